//! Starting a turn: a new interaction (admitted, its task made at the first update, or stored
//! SUBMITTED at once when it waits for a slot) or a follow-up of a task that waits for input
//! (checked and recorded under the task's lock, with the cluster's lease).

use std::sync::{Arc, Mutex};

use a2a_types::{
    A2aError, Message, StreamResponse, Task, TaskId, TaskPushNotificationConfig, TaskState,
};

use tokio::sync::watch;

use super::admission::Ticket;
use super::engine::{
    Engine, Events, RequestExtras, StartedTurn, TurnRun, TurnStart, store_failure,
};
use super::run::{Turn, TurnFlags};
use super::running::RunningTurn;
use super::sends::SendKey;
use super::view::TurnView;
use crate::executor::{RequestContext, TaskUpdater, TurnHandle, progress};
use crate::store::{Expected, TaskScope};

/// Whether a new interaction may wait for a free slot, stored SUBMITTED and answered at once
/// (only `returnImmediately` requests may; the others are refused when every slot is taken).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Queueing {
    /// It may wait.
    MayWait,
    /// It runs now or is refused.
    Never,
}

/// A message to start a turn with, checked by the operation.
#[derive(Debug)]
pub(crate) struct TurnRequest {
    pub(crate) scope: TaskScope,
    /// The client's message: a follow-up when it names a task.
    pub(crate) message: Message,
    /// A webhook given inline, checked; registered once the task id is known.
    pub(crate) inline_push: Option<TaskPushNotificationConfig>,
    pub(crate) queueing: Queueing,
    pub(crate) events: Events,
    pub(crate) extras: RequestExtras,
    /// What makes this send the same as a retry of it (`None`: every send is new).
    pub(crate) send_key: Option<SendKey>,
}

/// A request's parts, as both kinds of start use them.
type Parts = (
    TaskScope,
    Message,
    Option<TaskPushNotificationConfig>,
    Events,
    RequestExtras,
    Option<SendKey>,
);

impl TurnRequest {
    fn into_parts(self) -> Parts {
        (
            self.scope,
            self.message,
            self.inline_push,
            self.events,
            self.extras,
            self.send_key,
        )
    }
}

impl Engine {
    /// Starts the turn of `request`: a new interaction, or a follow-up of the task its
    /// message names.
    ///
    /// # Errors
    /// ServerBusy or Unavailable (no slot, shutting down), PushNotificationNotSupported (an
    /// inline webhook without push), TaskNotFound, InvalidParams (a context that is not the
    /// task's), UnsupportedOperation (the task is finished or still working), InternalError.
    pub(crate) async fn start_turn(
        self: &Arc<Self>,
        request: TurnRequest,
    ) -> Result<StartedTurn, A2aError> {
        // Admitted before any store work, so a refused follow-up leaves no trace. Follow-ups
        // never queue: a queued task waits as SUBMITTED, and an existing task cannot go back.
        let may_queue = request.queueing == Queueing::MayWait && request.message.task_id.is_none();
        let ticket = self.admission.admit(may_queue)?;
        match request.message.task_id.clone() {
            None => {
                let task_id = self.deps.ids.task_id();
                // Claimed before the turn runs: of two sends of one key (a retry, here or on
                // another instance), one runs and the other is answered with its task.
                if let Some(key) = &request.send_key
                    && let Some(task) = self.claim_send(&request.scope, key, &task_id).await?
                {
                    return Ok(Self::repeated_send(task));
                }
                let (scope, key) = (request.scope.clone(), request.send_key.clone());
                let started = self
                    .start_interaction(request, task_id.clone(), ticket)
                    .await;
                if started.is_err()
                    && let Some(key) = key
                {
                    self.release_send(&scope, &key.key, &task_id).await;
                }
                started
            }
            Some(task_id) => self.accept_follow_up(request, &task_id, ticket).await,
        }
    }

    /// A new interaction: ids now, the task at the first update.
    async fn start_interaction(
        self: &Arc<Self>,
        request: TurnRequest,
        task_id: TaskId,
        ticket: super::Ticket,
    ) -> Result<StartedTurn, A2aError> {
        let (scope, mut message, mut inline_push, events, extras, send_key) = request.into_parts();
        let context_id = message
            .context_id
            .clone()
            .unwrap_or_else(|| self.deps.ids.context_id());
        message.task_id = Some(task_id.clone());
        message.context_id = Some(context_id.clone());
        if let Some(config) = inline_push.as_mut() {
            self.register_inline_push(&scope, &task_id, config, 0)
                .await?;
        }
        let task = if ticket.is_queued() {
            // Queued: the task exists SUBMITTED from now on, and answers the request; its
            // turn starts when a slot frees.
            let mut task = Task::new(task_id.clone(), context_id.clone(), TaskState::Submitted);
            task.status.timestamp = Some(self.deps.clock.now());
            task.history.push(message.clone());
            let snapshot = StreamResponse::Task(task.clone());
            self.record(&scope, &task, Expected::Absent, vec![snapshot])
                .await
                .map_err(store_failure)?;
            Some(task)
        } else {
            None
        };
        let start = TurnStart {
            task_id,
            context_id,
            scope,
            message,
            task,
            events,
            extras,
            send_key: send_key.map(|key| key.key),
        };
        Ok(self.start_now(start, ticket).await)
    }

    /// A follow-up, accepted only by a task of the same context that waits for input: checked
    /// and recorded under the task's lock, and the turn is registered before the lock is
    /// released, so two follow-ups cannot both start one.
    async fn accept_follow_up(
        self: &Arc<Self>,
        request: TurnRequest,
        task_id: &TaskId,
        ticket: super::Ticket,
    ) -> Result<StartedTurn, A2aError> {
        let guard = self.locks.lock(task_id).await;
        let Some(stored) = self.load(&request.scope, task_id).await? else {
            return Err(self.missing_task(&request.scope, task_id).await);
        };
        // A retry of a follow-up is answered with the task it continued: the message is
        // not appended again and no second turn starts. A follow-up the task refuses
        // releases its key, so that it may be sent again once the task is ready.
        let (scope, key) = (request.scope.clone(), request.send_key.clone());
        if let Some(key) = &key
            && let Some(task) = self.claim_send(&scope, key, task_id).await?
        {
            return Ok(Self::repeated_send(task));
        }
        let accepted = self
            .follow_up(request, task_id, stored, guard, ticket)
            .await;
        if accepted.is_err()
            && let Some(key) = key
        {
            self.release_send(&scope, &key.key, task_id).await;
        }
        accepted
    }

    /// A follow-up whose key (if any) is claimed, under the task's lock (`guard`).
    async fn follow_up(
        self: &Arc<Self>,
        request: TurnRequest,
        task_id: &TaskId,
        stored: crate::store::StoredTask,
        guard: tokio::sync::OwnedMutexGuard<()>,
        ticket: super::Ticket,
    ) -> Result<StartedTurn, A2aError> {
        let (scope, mut message, mut inline_push, events, extras, send_key) = request.into_parts();
        let mut task = stored.task;
        if message
            .context_id
            .as_ref()
            .is_some_and(|context| context != &task.context_id)
        {
            return Err(A2aError::invalid_field(
                "message.contextId",
                "does not match the context of the task",
            ));
        }
        let state = task.status.state;
        if state.is_terminal() {
            return Err(A2aError::unsupported_operation(format!(
                "task {task_id} is {state} and accepts no more messages"
            )));
        }
        let busy = match state {
            TaskState::InputRequired | TaskState::AuthRequired => {
                // Another instance may run a turn of it (AUTH_REQUIRED keeps its turn): the
                // lease says who may, as any instance over the store can serve the next turn.
                self.running_turn(task_id).is_some()
                    || !self
                        .cluster
                        .acquire_lease(&scope, task_id)
                        .await
                        .map_err(store_failure)?
            }
            TaskState::Unspecified
            | TaskState::Submitted
            | TaskState::Working
            | TaskState::Completed
            | TaskState::Failed
            | TaskState::Canceled
            | TaskState::Rejected => true,
        };
        if busy {
            return Err(A2aError::unsupported_operation(format!(
                "task {task_id} is still working; wait for it to ask for input"
            )));
        }
        message.context_id = Some(task.context_id.clone());
        task.history.push(message.clone());
        self.save(&scope, &task, Expected::Version(stored.version))
            .await?;
        if let Some(config) = inline_push.as_mut() {
            self.register_inline_push(&scope, task_id, config, stored.last_sequence)
                .await?;
        }
        let start = TurnStart {
            task_id: task_id.clone(),
            context_id: task.context_id.clone(),
            scope,
            message,
            task: Some(task),
            events,
            extras,
            send_key: send_key.map(|key| key.key),
        };
        // Registered under the lock; its executor runs once the lock is released, since its
        // updates take it.
        let (started, run) = self.prepare(start, ticket);
        drop(guard);
        self.launch(run).await;
        Ok(started)
    }

    /// Registers a webhook given inline with the message; events after `deliver_after` go
    /// to it.
    async fn register_inline_push(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config: &mut TaskPushNotificationConfig,
        deliver_after: u64,
    ) -> Result<(), A2aError> {
        let dispatcher = self
            .push
            .as_deref()
            .ok_or_else(A2aError::push_notification_not_supported)?;
        dispatcher
            .register(scope, task_id, config, deliver_after)
            .await
    }
}

impl Engine {
    /// Registers a turn admitted by `ticket` and subscribes to its events when asked; returns
    /// them with the turn's run (the slot, the executor, the end of the turn), not started.
    pub(super) fn prepare(
        self: &Arc<Self>,
        start: TurnStart,
        ticket: Ticket,
    ) -> (StartedTurn, TurnRun) {
        // Only new interactions queue (their task is stored SUBMITTED first), so a queued turn
        // is new even though its task exists.
        let queued = ticket.is_queued();
        let created = start.task.is_some();
        let is_new = !created || queued;
        let cancellation = self.admission.turn_cancellation();
        let context = RequestContext {
            message: start.message.clone(),
            task: start.task.clone(),
            task_id: start.task_id.clone(),
            context_id: start.context_id.clone(),
            tenant: start.scope.tenant.clone(),
            owner: start.scope.owner.clone(),
            caller: start.extras.caller,
            headers: start.extras.headers,
            cancellation: cancellation.clone(),
            draining: self.admission.draining(),
            extensions: start.extras.extensions,
            referenced_tasks: start.extras.referenced_tasks,
            configuration: start.extras.configuration,
            metadata: start.extras.metadata,
            streaming: start.events == Events::Follow,
        };
        let stored = start.task.map(Arc::new);
        let (view, receiver) = watch::channel(TurnView {
            task: stored.clone(),
            // The stored SUBMITTED task is the answer to a queued request.
            changed: queued,
            ..TurnView::default()
        });
        let lock = self.locks.get(&start.task_id);
        let turn = Arc::new(Turn {
            engine: Arc::clone(self),
            task_id: start.task_id,
            context_id: start.context_id,
            scope: start.scope,
            is_new,
            followed: start.events == Events::Follow,
            queued,
            message: start.message,
            send_key: start.send_key,
            cancellation,
            cache: Mutex::new(None),
            flags: Mutex::new(TurnFlags {
                created,
                ..TurnFlags::default()
            }),
            view,
            lock,
        });
        self.running.insert(
            turn.task_id.clone(),
            Arc::clone(&turn) as Arc<dyn RunningTurn>,
        );
        let events = (start.events == Events::Follow)
            .then(|| self.events.subscribe(&turn.task_id, &turn.scope));
        let executor = Arc::clone(&self.executor);
        let ticket = ticket.register(&turn.task_id, Arc::clone(&turn) as Arc<dyn RunningTurn>);
        // A turn started by a request is that request's child; the request span learns the
        // ids it was missing.
        tracing::Span::current()
            .record("task_id", turn.task_id.as_str())
            .record("context_id", turn.context_id.as_str());
        let span = tracing::info_span!(
            target: crate::trace::SPAN_TARGET,
            "a2a.turn",
            task_id = %turn.task_id,
            context_id = %turn.context_id,
        );
        let run = Box::pin(tracing::Instrument::instrument(
            async move {
                let Some(_slot) = ticket
                    .wait_for_slot(&turn.engine.admission, &turn.cancellation, turn.as_ref())
                    .await
                else {
                    return;
                };
                let handle: Arc<dyn TurnHandle> = Arc::clone(&turn) as Arc<dyn TurnHandle>;
                let updater = TaskUpdater::new(handle);
                let current = TaskUpdater::new(updater.handle());
                let execute = async move {
                    let _running = crate::metrics::Live::new(crate::metrics::TURNS_RUNNING);
                    progress::with_updater(&current, executor.execute(context, updater)).await
                };
                let outcome = turn.run_executor(execute).await;
                turn.finish(outcome).await;
                turn.release_taskless_send().await;
                // `_slot` is given back only now: the turn holds it until it settled, whatever its
                // binding (one shared cap covers every kind of request).
            },
            span,
        ));
        let started = StartedTurn {
            view: receiver,
            events,
            stored,
            repeated: false,
        };
        (started, run)
    }
}
