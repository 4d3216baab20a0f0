//! SendMessage (spec §2.1, §9.6): starting a turn and deciding when to answer.

use std::sync::Arc;

use a2a_types::{
    A2aError, ContextId, Message, MessageId, Role, SendMessageRequest, SendMessageResponse,
    StreamResponse, Task, TaskId, TaskState,
};
use tokio::sync::watch;

use super::{CallContext, RequestHandler, history_length, tenant_of, trim_history};
use crate::executor::RequestContext;
use crate::store::{Expected, TaskScope};
use crate::turn::{StartedTurn, TurnStart, TurnView, store_failure};

impl RequestHandler {
    /// Sends a message: starts a turn and answers with the task or the agent's reply.
    ///
    /// Blocking by default: the answer waits until the task is terminal or interrupted. With
    /// `returnImmediately` (or the configured default) it comes at the turn's first update.
    ///
    /// When `max_concurrent_tasks` turns already run, a new interaction with
    /// `returnImmediately` is answered at once with its task SUBMITTED and runs when a slot
    /// frees, if the queue (`task_queue_size`) has room.
    ///
    /// # Errors
    /// InvalidParams (message shape, context mismatch, `historyLength`), TaskNotFound,
    /// UnsupportedOperation (the task is finished or still working), PushNotificationNotSupported
    /// (an inline webhook), ServerBusy (no slot), Unavailable (shutting down), the
    /// executor's own refusal, InvalidAgentResponse.
    pub async fn send_message(
        &self,
        call: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse, A2aError> {
        let return_immediately = request
            .return_immediately()
            .unwrap_or(self.inner.engine.config.default_return_immediately);
        let (length, started) = self
            .begin_turn(call, request, return_immediately, false)
            .await?;
        let view = wait_for_answer(started.view, return_immediately).await?;
        answer(view, length)
    }

    /// Validates a SendMessage request and starts its turn (shared with streaming, which never
    /// waits for a slot: only `returnImmediately` requests may queue).
    pub(crate) async fn start_turn(
        &self,
        call: &CallContext,
        request: SendMessageRequest,
    ) -> Result<(Option<usize>, StartedTurn), A2aError> {
        self.begin_turn(call, request, false, true).await
    }

    /// [`Self::start_turn`], where a new interaction may wait in the queue when `may_queue`.
    async fn begin_turn(
        &self,
        call: &CallContext,
        request: SendMessageRequest,
        may_queue: bool,
        subscribe: bool,
    ) -> Result<(Option<usize>, StartedTurn), A2aError> {
        let extensions = self.prepare(call)?;
        let configuration = request.configuration.clone();
        let length = history_length(configuration.as_ref().and_then(|c| c.history_length))?;
        if configuration
            .as_ref()
            .is_some_and(|c| c.task_push_notification_config.is_some())
            && !self.inner.card.capabilities.supports_push_notifications()
        {
            // A webhook in the request of an agent without push (the spec does not say):
            // refused as the push-config operations are.
            return Err(A2aError::push_notification_not_supported());
        }
        // A webhook given inline is checked before any work, registered once the
        // task id is known, and gets every event of the task from then on.
        let mut inline_push = match configuration
            .as_ref()
            .and_then(|c| c.task_push_notification_config.clone())
        {
            Some(config) => {
                let dispatcher = self.push(call)?;
                Some(self.checked_push_config(dispatcher, config).await?)
            }
            None => None,
        };
        let mut message = request.message;
        self.check_message(&mut message)?;
        let engine = &self.inner.engine;
        // Admitted before any store work, so a refused follow-up leaves no trace. Follow-ups
        // never queue: a queued task waits as SUBMITTED, and an existing task cannot go back.
        let ticket = engine
            .admission
            .admit(may_queue && message.task_id.is_none())?;
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        let referenced_tasks = self.referenced_tasks(&scope, &message).await?;
        let caller = call.caller.clone();
        let executor = Arc::clone(&self.inner.executor);
        let context =
            |task_id: &TaskId, context_id: &ContextId, message: &Message, task: Option<&Task>| {
                let (task_id, context_id, message, task) = (
                    task_id.clone(),
                    context_id.clone(),
                    message.clone(),
                    task.cloned(),
                );
                let scope = scope.clone();
                let caller = caller.clone();
                move |cancellation| RequestContext {
                    message,
                    task,
                    task_id,
                    context_id,
                    tenant: scope.tenant,
                    owner: scope.owner,
                    caller,
                    cancellation,
                    extensions,
                    referenced_tasks,
                    configuration,
                    metadata: request.metadata,
                }
            };

        let Some(task_id) = message.task_id.clone() else {
            // A new interaction: ids now, the task at the first update.
            let task_id = TaskId::generate();
            let context_id = message
                .context_id
                .clone()
                .unwrap_or_else(ContextId::generate);
            message.task_id = Some(task_id.clone());
            message.context_id = Some(context_id.clone());
            if let Some(config) = inline_push.as_mut() {
                let dispatcher = self.push(call)?;
                self.register_push_config(dispatcher, &scope, &task_id, config, 0)
                    .await?;
            }
            let make_context = context(&task_id, &context_id, &message, None);
            let task = if ticket.is_queued() {
                // Queued: the task exists SUBMITTED from now on, and answers the request; its
                // turn starts when a slot frees.
                let mut task = Task::new(task_id.clone(), context_id.clone(), TaskState::Submitted);
                task.history.push(message.clone());
                let snapshot = StreamResponse::Task(task.clone());
                engine
                    .record(&scope, &task, Expected::Absent, vec![snapshot])
                    .await
                    .map_err(store_failure)?;
                Some(task)
            } else {
                None
            };
            let start = TurnStart {
                subscribe,
                task_id,
                context_id,
                scope: scope.clone(),
                message,
                task,
            };
            return Ok((length, engine.start(start, ticket, executor, make_context)));
        };

        // A follow-up (accepted only by a task of the same context that waits for input):
        // checked and recorded under the task's lock, and the turn is registered before the
        // lock is released, so two follow-ups cannot both start one.
        let _guard = engine.locks.lock(&task_id).await;
        let Some(stored) = engine.load(&scope, &task_id).await? else {
            return Err(self.missing_task(&scope, &task_id).await);
        };
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
                engine.running_turn(&task_id).is_some()
                    || !engine
                        .cluster
                        .acquire_lease(&scope, &task_id)
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
        engine
            .save(&scope, &task, Expected::Version(stored.version))
            .await?;
        if let Some(config) = inline_push.as_mut() {
            let dispatcher = self.push(call)?;
            self.register_push_config(dispatcher, &scope, &task_id, config, stored.last_sequence)
                .await?;
        }
        let make_context = context(&task_id, &task.context_id, &message, Some(&task));
        let start = TurnStart {
            subscribe,
            task_id,
            context_id: task.context_id.clone(),
            scope,
            message,
            task: Some(task),
        };
        Ok((length, engine.start(start, ticket, executor, make_context)))
    }

    /// Checks what the proto requires of a client message: a `messageId` (generated instead
    /// under `lenient_message_id`), the user role and at least one part.
    fn check_message(&self, message: &mut Message) -> Result<(), A2aError> {
        if message.message_id.is_empty() {
            if self.inner.engine.config.lenient_message_id {
                message.message_id = MessageId::generate();
            } else {
                return Err(A2aError::invalid_field("message.messageId", "is required"));
            }
        }
        match message.role {
            Role::User => {}
            Role::Unspecified | Role::Agent => {
                return Err(A2aError::invalid_field("message.role", "must be ROLE_USER"));
            }
        }
        if message.parts.is_empty() {
            return Err(A2aError::invalid_field(
                "message.parts",
                "needs at least one part",
            ));
        }
        Ok(())
    }

    /// The tasks named in `referenceTaskIds` that the caller may read (when
    /// `populate_referenced_tasks` is on).
    async fn referenced_tasks(
        &self,
        scope: &TaskScope,
        message: &Message,
    ) -> Result<Vec<Task>, A2aError> {
        let mut tasks = Vec::new();
        if !self.inner.engine.config.populate_referenced_tasks {
            return Ok(tasks);
        }
        for id in &message.reference_task_ids {
            if let Some(stored) = self.inner.engine.load(scope, id).await? {
                tasks.push(stored.task);
            }
        }
        Ok(tasks)
    }
}

/// Waits until the request can be answered: the turn's first update with
/// `returnImmediately`, else a terminal or interrupted state or the end of the turn.
async fn wait_for_answer(
    mut receiver: watch::Receiver<TurnView>,
    return_immediately: bool,
) -> Result<TurnView, A2aError> {
    let ready = |view: &TurnView| {
        view.ended
            || (return_immediately && view.changed)
            || view
                .status_set
                .is_some_and(|state| state.is_terminal() || state.is_interrupted())
    };
    let view = receiver
        .wait_for(ready)
        .await
        .map_err(|_| A2aError::internal())?
        .clone();
    Ok(view)
}

/// Turns what the turn produced into the SendMessage answer.
fn answer(view: TurnView, length: Option<usize>) -> Result<SendMessageResponse, A2aError> {
    if let Some(error) = view.refusal {
        return Err(error);
    }
    if let Some(reply) = view.reply {
        return Ok(SendMessageResponse::Message(reply));
    }
    match view.task {
        Some(task) => Ok(SendMessageResponse::Task(trim_history(task, length))),
        None => Err(A2aError::invalid_agent_response(
            "the agent neither replied nor created a task",
        )),
    }
}
