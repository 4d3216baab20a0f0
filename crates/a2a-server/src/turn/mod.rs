//! Turns: one run of the executor for one incoming message, and the [`Engine`] that starts
//! them, applies their updates to the stored task and publishes the resulting events.
//!
//! Every change to a task happens under its lock ([`TaskLocks`]): load, apply, save with
//! compare-and-swap, publish, then release. The executor runs on its own tokio task, tracked
//! and admitted by [`Admission`]; the request that started the turn watches a [`TurnView`] to
//! know when to answer.

mod admission;
mod apply;
mod finish;
mod lifecycle;
mod locks;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use a2a_types::{A2aError, ContextId, Message, StreamResponse, Task, TaskId, TaskState};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub(crate) use self::admission::{Admission, Ticket};
use self::apply::agent_message;
pub(crate) use self::apply::apply_change;
pub(crate) use self::apply::status_event;
pub(crate) use self::lifecycle::ends_turn;
pub(crate) use self::locks::TaskLocks;
use crate::cluster::{Cluster, ClusterSignal};
use crate::config::ServerConfig;
use crate::events::{EventBus, TaskEvent};
use crate::executor::{
    AgentExecutor, Change, RequestContext, TaskUpdater, TurnHandle, Update, UpdateError, progress,
};
use crate::store::{Expected, Saved, StoreError, StoredTask, TaskScope, TaskStore, Version};

/// What the request that started a turn can see of it.
#[derive(Debug, Clone, Default)]
pub(crate) struct TurnView {
    /// The latest task as stored, once it exists.
    pub(crate) task: Option<Task>,
    /// True once the turn changed the task.
    pub(crate) changed: bool,
    /// The last state the turn set with a status change.
    pub(crate) status_set: Option<TaskState>,
    /// The reply, when the executor answered with a message.
    pub(crate) reply: Option<Message>,
    /// The error that answers the request (a refusal, or InvalidAgentResponse).
    pub(crate) refusal: Option<A2aError>,
    /// True once the turn ended.
    pub(crate) ended: bool,
}

#[derive(Debug, Default)]
struct TurnFlags {
    ended: bool,
    created: bool,
    changed: bool,
}

/// What every turn of one server shares.
pub(crate) struct Engine {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) cluster: Arc<dyn Cluster>,
    /// Signals for the other instances, sent by a background task (see `cluster.rs`).
    outbox: Mutex<Option<tokio::sync::mpsc::UnboundedSender<ClusterSignal>>>,
    /// Stops the background tasks when the engine goes.
    pub(crate) background: CancellationToken,
    /// Set once the background tasks started.
    pub(crate) background_started: std::sync::atomic::AtomicBool,
    pub(crate) locks: TaskLocks,
    pub(crate) events: EventBus,
    pub(crate) config: ServerConfig,
    pub(crate) admission: Admission,
    running: Mutex<HashMap<TaskId, Arc<Turn>>>,
    /// Push delivery, when the card declares push notifications.
    pub(crate) push: Option<Arc<crate::push::delivery::Dispatcher>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// One run of the executor.
#[derive(Debug)]
pub(crate) struct Turn {
    engine: Arc<Engine>,
    task_id: TaskId,
    context_id: ContextId,
    scope: TaskScope,
    is_new: bool,
    /// A new interaction whose task was stored SUBMITTED, and its request answered, while it
    /// waited for a slot (only `returnImmediately` requests may queue).
    queued: bool,
    message: Message,
    cancellation: CancellationToken,
    flags: Mutex<TurnFlags>,
    /// The task as this turn last saved it, and its version: the next update of this turn
    /// starts from it instead of loading (a stale copy fails the store's compare-and-swap).
    cache: Mutex<Option<(Task, Version)>>,
    view: watch::Sender<TurnView>,
}

/// A turn just started: its view, and (when asked for) its events from the first one on.
#[derive(Debug)]
pub(crate) struct StartedTurn {
    pub(crate) view: watch::Receiver<TurnView>,
    pub(crate) events: Option<tokio::sync::broadcast::Receiver<TaskEvent>>,
}

/// How a turn starts: a new interaction or a follow-up of a stored task.
#[derive(Debug)]
pub(crate) struct TurnStart {
    pub(crate) task_id: TaskId,
    pub(crate) context_id: ContextId,
    pub(crate) scope: TaskScope,
    pub(crate) message: Message,
    /// The stored task, with `message` already in its history: a follow-up's, or the
    /// SUBMITTED task of a queued new interaction.
    pub(crate) task: Option<Task>,
    /// Subscribe to the turn's events before it runs (streams). A plain SendMessage does not:
    /// a broadcast channel per request was a fifth of its CPU time in the load benchmark.
    pub(crate) subscribe: bool,
}

impl Engine {
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        cluster: Arc<dyn Cluster>,
        config: ServerConfig,
        push: Option<Arc<crate::push::delivery::Dispatcher>>,
    ) -> Self {
        Self {
            push,
            store,
            cluster,
            outbox: Mutex::new(None),
            background: CancellationToken::new(),
            background_started: std::sync::atomic::AtomicBool::new(false),
            locks: TaskLocks::default(),
            events: EventBus::new(config.sse_queue_capacity),
            admission: Admission::new(config.max_concurrent_tasks, config.task_queue_size),
            config,
            running: Mutex::new(HashMap::new()),
        }
    }

    /// The running turn of `task_id`, if one runs in this process.
    pub(crate) fn running_turn(&self, task_id: &TaskId) -> Option<Arc<Turn>> {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(task_id)
            .cloned()
    }

    /// Starts a turn admitted by `ticket`: registers it, subscribes to its events when asked,
    /// then runs the executor on its own tracked tokio task once the ticket gives it a slot.
    /// Subscribing first means a stream misses none of the turn's events.
    pub(crate) fn start(
        self: &Arc<Self>,
        start: TurnStart,
        ticket: Ticket,
        executor: Arc<dyn AgentExecutor>,
        context: impl FnOnce(CancellationToken) -> RequestContext,
    ) -> StartedTurn {
        // Only new interactions queue (their task is stored SUBMITTED first), so a queued turn
        // is new even though its task exists.
        let queued = ticket.is_queued();
        let subscribe = start.subscribe;
        let created = start.task.is_some();
        let is_new = !created || queued;
        let (view, receiver) = watch::channel(TurnView {
            task: start.task,
            // The stored SUBMITTED task is the answer to a queued request.
            changed: queued,
            ..TurnView::default()
        });
        let cancellation = self.admission.turn_cancellation();
        let turn = Arc::new(Turn {
            engine: Arc::clone(self),
            task_id: start.task_id,
            context_id: start.context_id,
            scope: start.scope,
            is_new,
            queued,
            message: start.message,
            cancellation: cancellation.clone(),
            cache: Mutex::new(None),
            flags: Mutex::new(TurnFlags {
                created,
                ..TurnFlags::default()
            }),
            view,
        });
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(turn.task_id.clone(), Arc::clone(&turn));
        let events = subscribe.then(|| self.events.subscribe(&turn.task_id, &turn.scope));
        let context = context(cancellation);
        let ticket = ticket.register(&turn);
        self.admission.spawn(async move {
            let Some(_slot) = ticket.wait_for_slot(&turn).await else {
                return;
            };
            let handle: Arc<dyn TurnHandle> = Arc::clone(&turn) as Arc<dyn TurnHandle>;
            let updater = TaskUpdater::new(handle);
            let execute = {
                let current = TaskUpdater::new(updater.handle());
                async move {
                    progress::with_updater(&current, executor.execute(context, updater)).await
                }
            };
            let outcome = turn.run_executor(execute).await;
            turn.finish(outcome).await;
            // `_slot` is given back only now: the turn holds it until it settled, whatever its
            // binding (one shared cap covers every kind of request).
        });
        StartedTurn {
            view: receiver,
            events,
        }
    }

    /// Loads a task under the caller's scope, mapping store failures to an internal error.
    pub(crate) async fn load(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
    ) -> Result<Option<StoredTask>, A2aError> {
        self.store.load(scope, task_id).await.map_err(store_failure)
    }

    /// Saves a task with no events, mapping store failures to an internal error.
    pub(crate) async fn save(
        &self,
        scope: &TaskScope,
        task: &Task,
        expected: Expected,
    ) -> Result<(), A2aError> {
        self.store
            .save(scope, task, expected, &[])
            .await
            .map(drop)
            .map_err(store_failure)
    }

    /// Saves a task with the events its change made, then publishes them to this process's
    /// listeners and tells the other instances. The log comes first: an event is never sent
    /// to anyone before it is stored.
    pub(crate) async fn record(
        &self,
        scope: &TaskScope,
        task: &Task,
        expected: Expected,
        responses: Vec<StreamResponse>,
    ) -> Result<Saved, StoreError> {
        let saved = self.store.save(scope, task, expected, &responses).await?;
        let count = responses.len() as u64;
        if count > 0 {
            let first = saved.last_sequence.saturating_sub(count) + 1;
            let events = responses
                .into_iter()
                .zip(first..)
                .map(|(response, sequence)| TaskEvent { sequence, response })
                .collect();
            self.events
                .publish(&task.id, events, task.status.state.is_terminal());
            self.signal(ClusterSignal::Events {
                task_id: task.id.clone(),
                last_sequence: saved.last_sequence,
            });
            if let Some(push) = &self.push {
                push.events_logged(scope, &task.id, saved.last_sequence)
                    .await;
            }
        }
        Ok(saved)
    }

    /// Queues `signal` for the other instances; nothing happens for a cluster of one.
    pub(crate) fn signal(&self, signal: ClusterSignal) {
        if let Some(outbox) = self
            .outbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            // The publisher task ends only with the engine.
            let _ = outbox.send(signal);
        }
    }

    /// Sets where [`Engine::signal`] sends (the background publisher).
    pub(crate) fn set_outbox(&self, outbox: tokio::sync::mpsc::UnboundedSender<ClusterSignal>) {
        *self.outbox.lock().unwrap_or_else(PoisonError::into_inner) = Some(outbox);
    }

    /// The task ids of the turns running (or queued) in this process.
    pub(crate) fn running_task_ids(&self) -> Vec<TaskId> {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.background.cancel();
    }
}

/// Logs a store failure and hides it from the client (style rule 5).
#[allow(clippy::needless_pass_by_value)] // shaped for `map_err(store_failure)`
pub(crate) fn store_failure(error: StoreError) -> A2aError {
    tracing::error!(error = %error, source = ?std::error::Error::source(&error), "task store failed");
    A2aError::internal()
}

#[async_trait::async_trait]
impl TurnHandle for Turn {
    async fn apply(&self, changes: Vec<Change>) -> Result<(), UpdateError> {
        self.apply_all(changes).await
    }

    async fn reply(&self, message: Message) -> Result<(), UpdateError> {
        self.reply(message).await
    }

    fn task_id(&self) -> &TaskId {
        &self.task_id
    }
}

impl Turn {
    /// The scope the turn's task is stored under.
    pub(crate) fn scope(&self) -> &TaskScope {
        &self.scope
    }

    /// A receiver of this turn's view (for a subscriber that joins a running turn).
    pub(crate) fn watch(&self) -> watch::Receiver<TurnView> {
        self.view.subscribe()
    }

    fn flags(&self) -> std::sync::MutexGuard<'_, TurnFlags> {
        self.flags.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn is_ended(&self) -> bool {
        self.flags().ended
    }

    /// Ends the turn: no more updates, the request is answered, the registry forgets it.
    fn end(&self, view: impl FnOnce(&mut TurnView)) {
        self.flags().ended = true;
        {
            let mut running = self
                .engine
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if running
                .get(&self.task_id)
                .is_some_and(|turn| std::ptr::eq(turn.as_ref(), self))
            {
                running.remove(&self.task_id);
            }
        }
        self.view.send_modify(|current| {
            view(current);
            current.ended = true;
        });
    }

    /// Ends the turn because the task was canceled: fires the cancellation token.
    pub(crate) fn end_canceled(&self, task: Task) {
        self.end(|view| view.task = Some(task));
        self.cancellation.cancel();
    }

    /// The stored task to change, or a fresh SUBMITTED one for a new interaction.
    async fn current(&self) -> Result<(Task, Expected, Vec<StreamResponse>), UpdateError> {
        if self.flags().created {
            let cached = self
                .cache
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some((task, version)) = cached {
                return Ok((task, Expected::Version(version), Vec::new()));
            }
            let stored = self
                .engine
                .store
                .load(&self.scope, &self.task_id)
                .await
                .map_err(|error| log_store(&error))?
                .ok_or(UpdateError::TaskFinished)?;
            if stored.task.status.state.is_terminal() {
                // Canceled, or finished by another instance: drop the update, this turn is over.
                self.end(|view| view.task = Some(stored.task.clone()));
                self.cancellation.cancel();
                return Err(UpdateError::TaskFinished);
            }
            Ok((stored.task, Expected::Version(stored.version), Vec::new()))
        } else {
            let mut task = Task::new(
                self.task_id.clone(),
                self.context_id.clone(),
                TaskState::Submitted,
            );
            task.history.push(self.message.clone());
            let snapshot = StreamResponse::Task(task.clone());
            Ok((task, Expected::Absent, vec![snapshot]))
        }
    }

    /// Applies `changes` in order as one update: one save, their events logged together, so
    /// either all of them happen or none does.
    pub(crate) async fn apply_all(&self, changes: Vec<Change>) -> Result<(), UpdateError> {
        if self.is_ended() {
            return Err(UpdateError::TurnEnded);
        }
        let _guard = self.engine.locks.lock(&self.task_id).await;
        if self.is_ended() {
            return Err(UpdateError::TurnEnded);
        }
        let (mut task, expected, mut events) = self.current().await?;
        let mut status_set = None;
        for change in changes {
            if let Change::Status { state, .. } = &change {
                status_set = Some(*state);
            }
            events.push(apply_change(&mut task, change)?);
        }
        self.commit(task, expected, events, status_set).await
    }

    /// Saves `task`, publishes `events` and updates the view; ends the turn when a status
    /// change ends it.
    async fn commit(
        &self,
        task: Task,
        expected: Expected,
        events: Vec<StreamResponse>,
        status_set: Option<TaskState>,
    ) -> Result<(), UpdateError> {
        let version = match self
            .engine
            .record(&self.scope, &task, expected, events)
            .await
        {
            Ok(saved) => saved.version,
            Err(StoreError::Conflict { .. } | StoreError::NotFound { .. }) => {
                // Someone else changed the task since this turn last saved it (a cancel, or
                // another instance): this turn is over.
                self.end(|_| {});
                self.cancellation.cancel();
                return Err(UpdateError::TaskFinished);
            }
            Err(error) => return Err(log_store(&error)),
        };
        let first_change = {
            let mut flags = self.flags();
            let first = !flags.changed;
            flags.created = true;
            flags.changed = true;
            first
        };
        let ends = status_set.is_some_and(ends_turn);
        // The waiting request reads the task only at its first change, at a terminal or
        // interrupted status, or at the end of the turn; other updates (artifact chunks) skip
        // the copy, which halves the cost of a long stream.
        let answers = first_change
            || ends
            || status_set.is_some_and(|state| state.is_terminal() || state.is_interrupted());
        let for_view = answers.then(|| task.clone());
        if !ends {
            *self.cache.lock().unwrap_or_else(PoisonError::into_inner) = Some((task, version));
        }
        let update = |view: &mut TurnView| {
            if let Some(task) = for_view {
                view.task = Some(task);
            }
            view.changed = true;
            if status_set.is_some() {
                view.status_set = status_set;
            }
        };
        if ends {
            self.end(update);
        } else {
            self.view.send_modify(update);
        }
        Ok(())
    }

    /// Answers the request with a message and ends the turn.
    pub(crate) async fn reply(&self, message: Message) -> Result<(), UpdateError> {
        if message.parts.is_empty() {
            return Err(UpdateError::Invalid("a reply needs at least one part"));
        }
        if self.is_ended() {
            return Err(UpdateError::TurnEnded);
        }
        let _guard = self.engine.locks.lock(&self.task_id).await;
        if self.is_ended() {
            return Err(UpdateError::TurnEnded);
        }
        let (created, changed) = {
            let flags = self.flags();
            (flags.created, flags.changed)
        };
        if !created {
            // A reply creates no task (a message-only response).
            let reply = agent_message(message, None, &self.context_id);
            self.end(|view| view.reply = Some(reply));
            return Ok(());
        }
        if self.is_new && changed {
            return Err(UpdateError::Invalid(
                "this turn created a task: finish it with a status update, not a reply",
            ));
        }
        if self.is_new {
            // A queued task: its request was answered with the task, so the reply
            // cannot stand alone; it completes the task as its status message.
            let (mut task, expected, mut events) = self.current().await?;
            let change = Change::Status {
                state: TaskState::Completed,
                update: Update {
                    message: Some(message),
                    metadata: None,
                },
            };
            events.push(apply_change(&mut task, change)?);
            return self
                .commit(task, expected, events, Some(TaskState::Completed))
                .await;
        }
        // A follow-up: the reply joins the history and becomes the status message; the state
        // stays, so the client can go on (typically INPUT_REQUIRED).
        let (mut task, expected, _) = self.current().await?;
        let reply = agent_message(message, Some(&self.task_id), &self.context_id);
        task.history.push(reply.clone());
        task.status.message = Some(reply.clone());
        task.status.timestamp = Some(a2a_types::Timestamp::now());
        let event = status_event(&task, None);
        match self
            .engine
            .record(&self.scope, &task, expected, vec![event])
            .await
        {
            Ok(_) => {}
            Err(StoreError::Conflict { .. } | StoreError::NotFound { .. }) => {
                return Err(UpdateError::TaskFinished);
            }
            Err(error) => return Err(log_store(&error)),
        }
        self.end(|view| {
            view.task = Some(task);
            view.reply = Some(reply);
        });
        Ok(())
    }
}

fn log_store(error: &StoreError) -> UpdateError {
    tracing::error!(error = %error, source = ?std::error::Error::source(error), "task store failed during an update");
    UpdateError::Store
}
