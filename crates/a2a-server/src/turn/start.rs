//! Starting a turn: a new interaction (admitted, its task made at the first update, or stored
//! SUBMITTED at once when it waits for a slot) or a follow-up of a task that waits for input
//! (checked and recorded under the task's lock, with the cluster's lease).

use std::sync::Arc;

use a2a_types::{
    A2aError, Message, StreamResponse, Task, TaskId, TaskPushNotificationConfig, TaskState,
};

use super::engine::{Engine, Events, RequestExtras, StartedTurn, TurnStart, store_failure};
use super::sends::SendKey;
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
