//! SendMessage (spec §2.1, §9.6): starting a turn and deciding when to answer.

use a2a_types::{A2aError, Message, Role, SendMessageRequest, SendMessageResponse, Task};
use std::sync::Arc;

use tokio::sync::watch;

use super::{CallContext, RequestHandler, history_length, tenant_of, trim_history};
use crate::store::TaskScope;
use crate::turn::{Events, Queueing, RequestExtras, StartedTurn, TurnRequest, TurnView};

impl RequestHandler {
    /// Sends a message: starts a turn and answers with the task or the agent's reply.
    ///
    /// Blocking by default: the answer waits until the task is terminal or interrupted. With
    /// `returnImmediately` (or when the [`ReturnImmediatelyHook`](crate::hooks::ReturnImmediatelyHook)
    /// or the configured default says so) it comes at the turn's first update.
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
        let return_immediately = self.returns_immediately(call, &request);
        let queueing = if return_immediately {
            Queueing::MayWait
        } else {
            Queueing::Never
        };
        let (length, started) = self
            .begin_turn(call, request, queueing, Events::ViewOnly)
            .await?;
        let blocking_timeout = self.inner.engine.config().blocking_timeout;
        let view = wait_for_answer(started.view, return_immediately, blocking_timeout).await?;
        answer(view, length)
    }

    /// Validates a SendMessage request and starts its turn, following its events (streams
    /// never wait for a slot: only `returnImmediately` requests may queue).
    pub(crate) async fn start_turn(
        &self,
        call: &CallContext,
        request: SendMessageRequest,
    ) -> Result<(Option<usize>, StartedTurn), A2aError> {
        self.begin_turn(call, request, Queueing::Never, Events::Follow)
            .await
    }

    /// Checks the request, then asks the engine to start its turn.
    async fn begin_turn(
        &self,
        call: &CallContext,
        request: SendMessageRequest,
        queueing: Queueing,
        events: Events,
    ) -> Result<(Option<usize>, StartedTurn), A2aError> {
        let extensions = call.activated_extensions.clone();
        let configuration = request.configuration.clone();
        let length = history_length(configuration.as_ref().and_then(|c| c.history_length))?;
        // A webhook given inline is checked before any work, registered once the task id is
        // known, and gets every event of the task from then on.
        let inline_push = match configuration
            .as_ref()
            .and_then(|c| c.task_push_notification_config.clone())
        {
            Some(config) => {
                if !self.inner.card.capabilities.supports_push_notifications() {
                    // A webhook in the request of an agent without push (the spec does not
                    // say): refused as the push-config operations are.
                    return Err(A2aError::push_notification_not_supported());
                }
                let dispatcher = self.push()?;
                Some(self.checked_push_config(dispatcher, config).await?)
            }
            None => None,
        };
        let message = request.message;
        Self::check_message(&message)?;
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        match &message.task_id {
            Some(task_id) => {
                self.authorize(call, &scope, task_id, crate::hooks::Access::Write)
                    .await?;
            }
            None => self.authorize_create(call, &message).await?,
        }
        let referenced_tasks = self.referenced_tasks(&scope, &message).await?;
        let turn = TurnRequest {
            scope,
            message,
            inline_push,
            queueing,
            events,
            extras: RequestExtras {
                caller: call.caller.clone(),
                headers: call.headers.clone(),
                extensions,
                referenced_tasks,
                configuration,
                metadata: request.metadata,
            },
        };
        // Boxed: the engine's future is large, and every layer above would otherwise carry
        // (and copy) it inline.
        let started = Box::pin(self.inner.engine.start_turn(turn)).await?;
        Ok((length, started))
    }

    /// Checks what the proto requires of a client message: a `messageId` (the binding
    /// generates a missing one under `lenient_message_id`), the user role and at least one
    /// part.
    fn check_message(message: &Message) -> Result<(), A2aError> {
        if message.message_id.is_empty() {
            return Err(A2aError::invalid_field("message.messageId", "is required"));
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
        if !self.inner.engine.config().populate_referenced_tasks {
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
    blocking_timeout: std::time::Duration,
) -> Result<TurnView, A2aError> {
    let ready = |return_immediately: bool| {
        move |view: &TurnView| {
            view.ended
                || (return_immediately && view.changed)
                || view
                    .status_set
                    .is_some_and(|state| state.is_terminal() || state.is_interrupted())
        }
    };
    let waited = if blocking_timeout.is_zero() || return_immediately {
        Ok(receiver
            .wait_for(ready(return_immediately))
            .await
            .map(|view| view.clone()))
    } else {
        tokio::time::timeout(blocking_timeout, async {
            receiver
                .wait_for(ready(false))
                .await
                .map(|view| view.clone())
        })
        .await
    };
    let view = match waited {
        Ok(view) => view.map_err(|_| A2aError::internal())?,
        // Past the blocking call's limit: answer as a non-blocking call would, with the
        // task as it stands; the turn goes on.
        Err(_) => receiver
            .wait_for(ready(true))
            .await
            .map_err(|_| A2aError::internal())?
            .clone(),
    };
    // Once the turn is over and gone, this was the last holder of the view besides `view`,
    // so the answer takes the task instead of copying it.
    drop(receiver);
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
        Some(task) => Ok(SendMessageResponse::Task(trim_history(
            Arc::unwrap_or_clone(task),
            length,
        ))),
        None => Err(A2aError::invalid_agent_response(
            "the agent neither replied nor created a task",
        )),
    }
}
