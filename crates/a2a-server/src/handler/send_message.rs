//! SendMessage (spec §2.1, §9.6): starting a turn and deciding when to answer.

use a2a_types::{
    A2aError, ErrorKind, Message, Role, SendMessageRequest, SendMessageResponse, Task,
};
use std::sync::Arc;
use std::time::Duration;

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
    /// A send repeating an earlier one of the same caller (the same `Idempotency-Key`
    /// header, else the same message id, with the same message) starts no turn: it is
    /// answered with the task the first send made or continued, as it stands, marked
    /// `metadata.duplicate_send: true`. The same key with another message is refused
    /// (InvalidParams).
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
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        let (length, started) = self
            .begin_turn(call, request, queueing, Events::ViewOnly)
            .await?;
        let repeated = started.repeated;
        let limits = Limits::of(self.inner.engine.config());
        let view = match wait_for_answer(started.view, return_immediately, limits).await? {
            Waited::Answer(view) => view,
            Waited::PastLimit(view) => self.reconciled(&scope, view, limits).await?,
        };
        let mut response = answer(view, length)?;
        if repeated && let SendMessageResponse::Task(task) = &mut response {
            super::send_key::mark_repeated(task);
        }
        Ok(response)
    }

    /// The answer to a blocking call past its limit: the task as the store has it now (read
    /// within `store_reconciliation_timeout`, else as the turn last saw it). A turn that has
    /// produced nothing yet has no task to answer with: Unavailable, and the turn goes on.
    async fn reconciled(
        &self,
        scope: &TaskScope,
        mut view: TurnView,
        limits: Limits,
    ) -> Result<TurnView, A2aError> {
        let Some(task_id) = view.task.as_ref().map(|task| task.id.clone()) else {
            if view.reply.is_none() && view.refusal.is_none() {
                return Err(A2aError::new(
                    ErrorKind::Unavailable,
                    format!(
                        "the agent produced nothing within the blocking timeout ({} ms); its turn goes on",
                        limits.blocking.as_millis()
                    ),
                ));
            }
            return Ok(view);
        };
        match tokio::time::timeout(
            limits.reconciliation,
            self.inner.engine.load(scope, &task_id),
        )
        .await
        {
            Ok(Ok(Some(stored))) => view.task = Some(Arc::new(stored.task)),
            Ok(Ok(None)) => {}
            Ok(Err(error)) => {
                tracing::debug!(task_id = %task_id, error = %error, "the task could not be read back for a blocking answer; answering it as last seen");
            }
            Err(_elapsed) => {
                tracing::debug!(task_id = %task_id, "the store did not answer within the reconciliation timeout; answering the task as last seen");
            }
        }
        Ok(view)
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
        let send_key = super::send_key::send_key(call, &message)?;
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
            send_key: Some(send_key),
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

/// The limits of a blocking SendMessage, from the server's configuration.
#[derive(Debug, Clone, Copy)]
struct Limits {
    blocking: Duration,
    consumption: Duration,
    reconciliation: Duration,
}

impl Limits {
    fn of(config: &crate::config::ServerConfig) -> Self {
        Self {
            blocking: config.blocking_timeout,
            consumption: config.event_consumption_timeout,
            reconciliation: config.store_reconciliation_timeout,
        }
    }
}

/// What waiting for the turn gave: the answer, or, past the blocking limit, the view to
/// answer with once reconciled with the store.
enum Waited {
    Answer(TurnView),
    PastLimit(TurnView),
}

/// Waits until the request can be answered: the turn's first update with
/// `returnImmediately`, else a terminal or interrupted state or the end of the turn, for at
/// most the blocking limit. Past it the call is answered as a non-blocking one would be, with
/// the task as it stands (waiting at most the consumption limit for the turn's first event),
/// and the turn goes on.
async fn wait_for_answer(
    mut receiver: watch::Receiver<TurnView>,
    return_immediately: bool,
    limits: Limits,
) -> Result<Waited, A2aError> {
    let ready = |return_immediately: bool| {
        move |view: &TurnView| {
            view.ended
                || (return_immediately && view.changed)
                || view
                    .status_set
                    .is_some_and(|state| state.is_terminal() || state.is_interrupted())
        }
    };
    let waited = if limits.blocking.is_zero() || return_immediately {
        Ok(receiver
            .wait_for(ready(return_immediately))
            .await
            .map(|view| view.clone()))
    } else {
        tokio::time::timeout(limits.blocking, async {
            receiver
                .wait_for(ready(false))
                .await
                .map(|view| view.clone())
        })
        .await
    };
    let waited = match waited {
        Ok(view) => Waited::Answer(view.map_err(|_| A2aError::internal())?),
        Err(_) => {
            let first_event = tokio::time::timeout(limits.consumption, async {
                receiver
                    .wait_for(ready(true))
                    .await
                    .map(|view| view.clone())
            })
            .await;
            match first_event {
                Ok(view) => Waited::PastLimit(view.map_err(|_| A2aError::internal())?),
                // Nothing from the turn in that time either: the view as it is (a
                // follow-up's stored task, or nothing yet).
                Err(_) => Waited::PastLimit(receiver.borrow().clone()),
            }
        }
    };
    // Once the turn is over and gone, this was the last holder of the view besides the
    // answer's, so the answer takes the task instead of copying it.
    drop(receiver);
    Ok(waited)
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
