//! SendStreamingMessage and SubscribeToTask (spec §2.2, §2.6, §8; D-11, D-12): the task's
//! events as a stream, transport-agnostic. The SSE framing is the bindings' job.

use std::pin::Pin;

use a2a_types::{A2aError, SendMessageRequest, StreamResponse, SubscribeToTaskRequest};
use futures::Stream;
use tokio::sync::{broadcast, watch};

use super::{CallContext, RequestHandler, tenant_of};
use crate::events::TaskEvent;
use crate::store::TaskScope;
use crate::turn::TurnView;

/// One element of an event stream: the event and, when it came from the task's event bus,
/// its sequence number within the task (the SSE `id:`).
#[derive(Debug, Clone, PartialEq)]
pub struct StreamEvent {
    /// The task's event sequence number; `None` for snapshots and replies made for this
    /// stream alone.
    pub sequence: Option<u64>,
    /// The event.
    pub response: StreamResponse,
}

/// The events of a stream. An `Err` item ends it: the binding sends it as an error frame.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, A2aError>> + Send>>;

impl RequestHandler {
    fn check_streaming(&self, call: &CallContext) -> Result<(), A2aError> {
        self.prepare(call)?;
        if self.inner.card.capabilities.supports_streaming() {
            Ok(())
        } else {
            Err(A2aError::unsupported_operation(
                "this agent does not stream (capabilities.streaming)",
            ))
        }
    }

    /// Sends a message and streams the turn: a message reply alone, or the task snapshot and
    /// then its status and artifact updates until the turn ends (D-11). `returnImmediately`
    /// is ignored.
    ///
    /// An error found before the first event (a refusal, an unknown task) is returned as
    /// `Err` here, so the binding can answer with a plain error response (D-13).
    ///
    /// # Errors
    /// UnsupportedOperation when the card does not declare streaming; otherwise as
    /// [`RequestHandler::send_message`].
    pub async fn send_streaming_message(
        &self,
        call: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream, A2aError> {
        self.check_streaming(call)?;
        let (length, started) = self.start_turn(call, request).await?;
        let mut view = started.view;
        let mut events = started.events;
        let follow_up_snapshot = view.borrow().task.clone();
        if let Some(task) = follow_up_snapshot {
            // A follow-up: the stored task (ending with the new message) comes first; a
            // later refusal arrives as an error event (seed 001).
            let first = StreamEvent {
                sequence: None,
                response: StreamResponse::Task(super::trim_history(task, length)),
            };
            return Ok(Box::pin(
                futures::stream::once(async { Ok(first) }).chain_turn(events, view),
            ));
        }
        // A new interaction: wait for the first event, a reply or a refusal.
        loop {
            tokio::select! {
                biased;
                event = events.recv() => {
                    let first = match event {
                        Ok(event) => event,
                        Err(broadcast::error::RecvError::Lagged(_)) => return Err(lagged()),
                        Err(broadcast::error::RecvError::Closed) => return Err(A2aError::internal()),
                    };
                    let first = StreamEvent { sequence: Some(first.sequence), response: first.response };
                    let terminal = ends_stream(&first.response);
                    let head = futures::stream::once(async { Ok(first) });
                    if terminal {
                        return Ok(Box::pin(head));
                    }
                    return Ok(Box::pin(head.chain_turn(events, view)));
                }
                changed = view.changed() => {
                    let current = view.borrow_and_update().clone();
                    if changed.is_err() || current.ended {
                        if current.task.is_some() {
                            // The turn ended with a task whose events are queued: take them.
                            continue;
                        }
                        if let Some(error) = current.refusal {
                            return Err(error);
                        }
                        if let Some(reply) = current.reply {
                            let event = StreamEvent { sequence: None, response: StreamResponse::Message(reply) };
                            return Ok(Box::pin(futures::stream::once(async { Ok(event) })));
                        }
                        return Err(A2aError::invalid_agent_response("the agent neither replied nor created a task"));
                    }
                }
            }
        }
    }

    /// Re-attaches to a task: its snapshot first, then the events of its running turn until
    /// that turn ends. A task with no running turn (one waiting for input) yields its snapshot
    /// alone.
    ///
    /// # Errors
    /// UnsupportedOperation when the card does not declare streaming or the task is terminal;
    /// TaskNotFound.
    pub async fn subscribe_to_task(
        &self,
        call: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream, A2aError> {
        self.check_streaming(call)?;
        let engine = &self.inner.engine;
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        // Subscribe before loading, under the task's lock, so no event falls between the
        // snapshot and the first update.
        let guard = engine.locks.lock(&request.id).await;
        let stored = engine
            .load(&scope, &request.id)
            .await?
            .ok_or_else(|| A2aError::task_not_found(request.id.as_str()))?;
        let task = stored.task;
        if task.status.state.is_terminal() {
            return Err(A2aError::unsupported_operation(format!(
                "task {} is {} and has nothing more to stream",
                task.id, task.status.state
            )));
        }
        let running = engine.running_turn(&task.id);
        let events = running.as_ref().map(|_| engine.events.subscribe(&task.id));
        drop(guard);
        let snapshot = StreamEvent {
            sequence: None,
            response: StreamResponse::Task(task),
        };
        let head = futures::stream::once(async { Ok(snapshot) });
        match (running, events) {
            (Some(turn), Some(events)) => Ok(Box::pin(head.chain_turn(events, turn.watch()))),
            _ => Ok(Box::pin(head)),
        }
    }
}

/// True for the last event of a stream: a message, or a terminal status (D-11).
fn ends_stream(response: &StreamResponse) -> bool {
    match response {
        StreamResponse::Message(_) => true,
        StreamResponse::Task(task) => task.status.state.is_terminal(),
        StreamResponse::StatusUpdate(event) => event.status.state.is_terminal(),
        StreamResponse::ArtifactUpdate(_) => false,
    }
}

fn lagged() -> A2aError {
    A2aError::server_busy().with_metadata("reason", "the stream fell behind; subscribe again")
}

/// Extends a stream with a running turn's events.
trait ChainTurn: Stream<Item = Result<StreamEvent, A2aError>> + Sized + Send + 'static {
    fn chain_turn(
        self,
        events: broadcast::Receiver<TaskEvent>,
        view: watch::Receiver<TurnView>,
    ) -> impl Stream<Item = Result<StreamEvent, A2aError>> + Send + 'static {
        futures::StreamExt::chain(self, turn_events(events, view))
    }
}

impl<S: Stream<Item = Result<StreamEvent, A2aError>> + Send + 'static> ChainTurn for S {}

/// The events of a running turn, until a terminal status, the end of the turn, or a reader
/// that fell too far behind (D-12: an error item, then the end; the task goes on).
fn turn_events(
    events: broadcast::Receiver<TaskEvent>,
    view: watch::Receiver<TurnView>,
) -> impl Stream<Item = Result<StreamEvent, A2aError>> + Send + 'static {
    futures::stream::unfold(Some((events, view)), |state| async move {
        let (mut events, mut view) = state?;
        loop {
            // The turn's view changes after its events are published, so once it has ended
            // everything it published is already queued: drain, then stop.
            let ended = view.borrow().ended;
            let next = if ended {
                match events.try_recv() {
                    Ok(event) => Ok(event),
                    Err(broadcast::error::TryRecvError::Lagged(_)) => Err(true),
                    Err(
                        broadcast::error::TryRecvError::Empty
                        | broadcast::error::TryRecvError::Closed,
                    ) => {
                        let refusal = view.borrow().refusal.clone();
                        return refusal.map(|error| (Err(error), None));
                    }
                }
            } else {
                tokio::select! {
                    biased;
                    event = events.recv() => match event {
                        Ok(event) => Ok(event),
                        Err(broadcast::error::RecvError::Lagged(_)) => Err(true),
                        Err(broadcast::error::RecvError::Closed) => Err(false),
                    },
                    changed = view.changed() => {
                        if changed.is_err() {
                            // The turn is gone without saying it ended: nothing more will come.
                            return None;
                        }
                        continue;
                    }
                }
            };
            return match next {
                Ok(event) => {
                    let last = ends_stream(&event.response);
                    let item = StreamEvent {
                        sequence: Some(event.sequence),
                        response: event.response,
                    };
                    Some((Ok(item), (!last).then_some((events, view))))
                }
                Err(true) => Some((Err(lagged()), None)),
                Err(false) => None,
            };
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::{Message, Task, TaskState, TaskStatus, TaskStatusUpdateEvent};

    #[test]
    fn streams_end_at_messages_and_terminal_states_only() {
        let status = |state| {
            StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: "t".into(),
                context_id: "c".into(),
                status: TaskStatus::new(state),
                metadata: None,
            })
        };
        assert!(ends_stream(&StreamResponse::Message(Message::agent_text(
            "hi"
        ))));
        assert!(ends_stream(&status(TaskState::Completed)));
        assert!(!ends_stream(&status(TaskState::Working)));
        assert!(!ends_stream(&status(TaskState::AuthRequired)));
        let task = Task::new("t".into(), "c".into(), TaskState::Submitted);
        assert!(!ends_stream(&StreamResponse::Task(task)));
    }
}
