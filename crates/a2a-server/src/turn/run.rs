//! [`Turn`]: one run of the executor for one incoming message — applying its updates to the
//! stored task under the task's lock, saving with compare-and-swap, publishing the events,
//! and telling the waiting request through its [`TurnView`].

use std::sync::{Arc, Mutex, PoisonError};

use a2a_types::{
    A2aError, Artifact, ArtifactChunk, ContextId, Message, StreamResponse, Task,
    TaskArtifactUpdateEvent, TaskId, TaskState,
};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::apply::{agent_message, apply_change, status_event};
use super::engine::Engine;
use super::lifecycle::ends_turn;
use super::running::RunningTurn;
use super::view::TurnView;
use crate::executor::{Change, TurnHandle, Update, UpdateError};
use crate::store::{Expected, StoreError, TaskScope, Version};

#[derive(Debug, Default)]
pub(super) struct TurnFlags {
    pub(super) ended: bool,
    pub(super) created: bool,
    pub(super) changed: bool,
    /// Updates applied through [`TurnHandle::apply`] (counted for followed turns only).
    pub(super) applied: u32,
    /// What the client is told of the first store failure of the turn, for a new
    /// interaction whose task could not be stored at all.
    pub(super) store_failure: Option<A2aError>,
}

/// How many updates a followed turn applies between two yields to the runtime (the first
/// update is always followed by one).
const YIELD_EVERY: u32 = 16;

/// One run of the executor.
#[derive(Debug)]
pub(crate) struct Turn {
    pub(super) engine: Arc<Engine>,
    pub(super) task_id: TaskId,
    pub(super) context_id: ContextId,
    pub(super) scope: TaskScope,
    pub(super) is_new: bool,
    /// The request that started the turn streams its events.
    pub(super) followed: bool,
    /// A new interaction whose task was stored SUBMITTED, and its request answered, while it
    /// waited for a slot (only `returnImmediately` requests may queue).
    pub(super) queued: bool,
    pub(super) message: Message,
    /// The key its send claimed (see `sends.rs`).
    pub(super) send_key: Option<String>,
    pub(super) cancellation: CancellationToken,
    pub(super) flags: Mutex<TurnFlags>,
    /// The task as this turn last saved it, and its version: the next update of this turn
    /// starts from it instead of loading (a stale copy fails the store's compare-and-swap).
    pub(super) cache: Mutex<Option<(Task, Version)>>,
    pub(super) view: watch::Sender<TurnView>,
    /// The task's lock, kept for the turn's life (see [`TaskLocks::get`]).
    ///
    /// [`TaskLocks::get`]: super::locks::TaskLocks::get
    pub(super) lock: super::locks::TaskLock,
}

#[async_trait::async_trait]
impl TurnHandle for Turn {
    async fn apply(&self, changes: Vec<Change>) -> Result<(), UpdateError> {
        self.apply_all(changes).await?;
        if self.followed {
            let applied = {
                let mut flags = self.flags();
                flags.applied = flags.applied.wrapping_add(1);
                flags.applied
            };
            // A followed turn lets its stream run after the first change is published, so
            // the stream's first event goes out now rather than after every update an
            // executor that never waits makes in one go. After that it yields every
            // `YIELD_EVERY` updates: an executor that never waits would otherwise hold its
            // worker for its whole stream, and every other request on that worker (the
            // first event of a new stream among them) would wait behind it.
            if applied % YIELD_EVERY == 1 {
                tokio::task::yield_now().await;
            }
        }
        Ok(())
    }

    async fn reply(&self, message: Message) -> Result<(), UpdateError> {
        self.reply(message).await
    }

    fn draft(&self, artifact: Artifact, chunk: ArtifactChunk) -> Result<(), UpdateError> {
        let created = {
            let flags = self.flags();
            if flags.ended {
                return Err(UpdateError::TurnEnded);
            }
            flags.created
        };
        if !created {
            return Err(UpdateError::Invalid(
                "a draft needs the task: send a status update first",
            ));
        }
        let event = TaskArtifactUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            artifact,
            append: chunk.append(),
            last_chunk: chunk.last_chunk(),
            metadata: None,
        };
        self.engine
            .events
            .publish_draft(&self.task_id, StreamResponse::ArtifactUpdate(event));
        Ok(())
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

    pub(super) fn flags(&self) -> std::sync::MutexGuard<'_, TurnFlags> {
        self.flags.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn is_ended(&self) -> bool {
        self.flags().ended
    }

    /// Ends the turn: no more updates, the request is answered, the registry forgets it.
    pub(super) fn end(&self, view: impl FnOnce(&mut TurnView)) {
        self.flags().ended = true;
        self.engine.running.remove(&self.task_id, self);
        self.view.send_modify(|current| {
            view(current);
            current.ended = true;
        });
    }

    /// Ends the turn because the task was canceled: fires the cancellation token.
    pub(crate) fn end_canceled(&self, task: Task) {
        self.end(|view| view.task = Some(Arc::new(task)));
        self.cancellation.cancel();
    }

    /// The stored task to change, or a fresh SUBMITTED one for a new interaction.
    pub(super) async fn current(
        &self,
    ) -> Result<(Task, Expected, Vec<StreamResponse>), UpdateError> {
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
                .map_err(|error| self.store_failed(&error))?
                .ok_or(UpdateError::TaskFinished)?;
            if stored.task.status.state.is_terminal() {
                // Canceled, or finished by another instance: drop the update, this turn is over.
                self.end(|view| view.task = Some(Arc::new(stored.task.clone())));
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
            task.status.timestamp = Some(self.engine.deps.clock.now());
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
        let _guard = self.lock.lock().await;
        if self.is_ended() {
            return Err(UpdateError::TurnEnded);
        }
        let (mut task, expected, mut events) = self.current().await?;
        let mut status_set = None;
        for change in changes {
            if let Change::Status { state, .. } = &change {
                status_set = Some(*state);
            }
            events.push(apply_change(&mut task, change, &self.engine.deps)?);
        }
        self.commit(task, expected, events, status_set).await
    }

    /// Saves `task`, publishes `events` and updates the view; ends the turn when a status
    /// change ends it.
    pub(super) async fn commit(
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
            Err(error) => return Err(self.store_failed(&error)),
        };
        let first_change = {
            let mut flags = self.flags();
            let first = !flags.changed;
            if !flags.created && matches!(expected, Expected::Absent) {
                crate::metrics::task_state(TaskState::Submitted);
            }
            flags.created = true;
            flags.changed = true;
            first
        };
        if let Some(state) = status_set {
            crate::metrics::task_state(state);
        }
        let ends = status_set.is_some_and(ends_turn);
        // The waiting request reads the task only at its first change, at a terminal or
        // interrupted status, or at the end of the turn; other updates (artifact chunks) skip
        // the copy, which halves the cost of a long stream.
        let answers = first_change
            || ends
            || status_set.is_some_and(|state| state.is_terminal() || state.is_interrupted());
        // A turn that ends keeps no copy: the task moves to the view.
        let for_view = if ends {
            Some(Arc::new(task))
        } else {
            let for_view = answers.then(|| Arc::new(task.clone()));
            *self.cache.lock().unwrap_or_else(PoisonError::into_inner) = Some((task, version));
            for_view
        };
        if ends {
            self.end(|view| {
                view.task = for_view;
                view.changed = true;
                view.status_set = status_set;
            });
        } else if for_view.is_some() || status_set.is_some() {
            self.view.send_modify(|view| {
                if let Some(task) = for_view {
                    view.task = Some(task);
                }
                view.changed = true;
                if status_set.is_some() {
                    view.status_set = status_set;
                }
            });
        }
        // Otherwise (an artifact chunk after the first change) the view is as it was: its
        // watchers are not woken for nothing.
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
        let _guard = self.lock.lock().await;
        if self.is_ended() {
            return Err(UpdateError::TurnEnded);
        }
        let (created, changed) = {
            let flags = self.flags();
            (flags.created, flags.changed)
        };
        if !created {
            // A reply creates no task (a message-only response).
            let reply = agent_message(message, None, &self.context_id, &self.engine.deps);
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
            events.push(apply_change(&mut task, change, &self.engine.deps)?);
            return self
                .commit(task, expected, events, Some(TaskState::Completed))
                .await;
        }
        // A follow-up: the reply joins the history and becomes the status message; the state
        // stays, so the client can go on (typically INPUT_REQUIRED).
        let (mut task, expected, _) = self.current().await?;
        let reply = agent_message(
            message,
            Some(&self.task_id),
            &self.context_id,
            &self.engine.deps,
        );
        task.history.push(reply.clone());
        task.status.message = Some(reply.clone());
        task.status.timestamp = Some(self.engine.deps.clock.now());
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
            Err(error) => return Err(self.store_failed(&error)),
        }
        self.end(|view| {
            view.task = Some(Arc::new(task));
            view.reply = Some(reply);
        });
        Ok(())
    }
}

// What the registry of running turns, admission and shutdown ask of a turn.
#[async_trait::async_trait]
impl RunningTurn for Turn {
    fn scope(&self) -> &TaskScope {
        Turn::scope(self)
    }

    fn watch(&self) -> watch::Receiver<TurnView> {
        Turn::watch(self)
    }

    fn end_canceled(&self, task: Task) {
        Turn::end_canceled(self, task);
    }

    fn is_ended(&self) -> bool {
        Turn::is_ended(self)
    }

    async fn fail(&self, text: &str) {
        Turn::fail(self, text).await;
    }

    fn cancel(&self) {
        self.cancellation.cancel();
    }
}

impl Turn {
    /// Logs a store failure during an update and keeps what the client would be told of it.
    fn store_failed(&self, error: &StoreError) -> UpdateError {
        tracing::error!(error = %error, source = ?std::error::Error::source(error), "task store failed during an update");
        self.flags()
            .store_failure
            .get_or_insert_with(|| crate::store::client_error(error));
        UpdateError::Store
    }
}
