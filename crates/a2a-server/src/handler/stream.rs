//! SendStreamingMessage and SubscribeToTask (spec §2.2, §2.6, §8; D-11, D-12): the task's
//! events as a stream, transport-agnostic. The SSE framing is the bindings' job.

use std::pin::Pin;
use std::time::Duration;

use a2a_types::{A2aError, SendMessageRequest, StreamResponse, SubscribeToTaskRequest};
use futures::{Stream, StreamExt as _};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::{broadcast, watch};

use super::{CallContext, RequestHandler, tenant_of, trim_history};
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

/// Whether a stream attached to a turn ends with the turn's refusal as an error item. Only
/// the stream of the request that started the turn does: to anyone else the refused message
/// never happened (the task is as it was).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    Report,
    Ignore,
}

impl RequestHandler {
    fn check_streaming(&self, call: &CallContext) -> Result<(), A2aError> {
        self.prepare(call)?;
        if self.inner.card.capabilities.supports_streaming() {
            Ok(())
        } else {
            Err(
                A2aError::unsupported_operation("streaming is not available")
                    .with_metadata("capability", "streaming"),
            )
        }
    }

    /// How often idle SSE streams get a keep-alive comment (STR-10).
    pub(crate) fn sse_keepalive(&self) -> Duration {
        self.inner.engine.config.sse_keepalive
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
        let mut events = started.events.ok_or_else(A2aError::internal)?;
        let follow_up_snapshot = view.borrow().task.clone();
        if let Some(task) = follow_up_snapshot {
            // A follow-up: the stored task (ending with the new message) comes first; a
            // later refusal arrives as an error event (STR-06).
            let first = StreamEvent {
                sequence: None,
                response: StreamResponse::Task(trim_history(task, length)),
            };
            let head = futures::stream::once(async { Ok(first) });
            return Ok(Box::pin(chain_turn(head, events, view, Refusal::Report)));
        }
        // A new interaction: wait for the first event, a reply or a refusal.
        let mut open = true;
        let first = loop {
            tokio::select! {
                biased;
                event = events.recv(), if open => match event {
                    Ok(event) => break Some(event),
                    Err(RecvError::Lagged(_)) => return Err(lagged()),
                    // Not expected before the first event; the view still says how it ended.
                    Err(RecvError::Closed) => open = false,
                },
                changed = view.changed() => {
                    // The turn publishes its events before it updates the view, so once the
                    // view says it ended, any event it made is already queued.
                    if changed.is_err() || view.borrow_and_update().ended {
                        break match events.try_recv() {
                            Ok(event) => Some(event),
                            Err(TryRecvError::Lagged(_)) => return Err(lagged()),
                            Err(TryRecvError::Empty | TryRecvError::Closed) => None,
                        };
                    }
                }
            }
        };
        let Some(first) = first else {
            return ended_without_events(&view.borrow());
        };
        let mut first = StreamEvent {
            sequence: Some(first.sequence),
            response: first.response,
        };
        if let StreamResponse::Task(task) = first.response {
            first.response = StreamResponse::Task(trim_history(task, length));
        }
        let last = ends_stream(&first.response);
        let head = futures::stream::once(async { Ok(first) });
        if last {
            return Ok(Box::pin(head));
        }
        Ok(Box::pin(chain_turn(head, events, view, Refusal::Report)))
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
            ))
            .with_metadata("taskId", task.id.as_str()));
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
            (Some(turn), Some(events)) => Ok(Box::pin(chain_turn(
                head,
                events,
                turn.watch(),
                Refusal::Ignore,
            ))),
            (Some(_), None) | (None, Some(_)) | (None, None) => Ok(Box::pin(head)),
        }
    }
}

/// The answer to a new interaction whose turn ended without publishing an event to us: the
/// refusal, the reply, or (should the task exist anyway) its latest state.
fn ended_without_events(view: &TurnView) -> Result<EventStream, A2aError> {
    if let Some(error) = &view.refusal {
        return Err(error.clone());
    }
    let response = if let Some(reply) = &view.reply {
        StreamResponse::Message(reply.clone())
    } else if let Some(task) = &view.task {
        StreamResponse::Task(task.clone())
    } else {
        return Err(A2aError::invalid_agent_response(
            "the agent neither replied nor created a task",
        ));
    };
    let event = StreamEvent {
        sequence: None,
        response,
    };
    Ok(Box::pin(futures::stream::once(async { Ok(event) })))
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

/// D-12: the reader fell more than the queue capacity behind. It is told, and its stream ends;
/// the task goes on and the client can subscribe again.
fn lagged() -> A2aError {
    A2aError::server_busy().with_metadata("reason", "the stream fell behind; subscribe again")
}

/// `head`, then the events of a running turn.
fn chain_turn(
    head: impl Stream<Item = Result<StreamEvent, A2aError>> + Send + 'static,
    events: broadcast::Receiver<TaskEvent>,
    view: watch::Receiver<TurnView>,
    refusal: Refusal,
) -> impl Stream<Item = Result<StreamEvent, A2aError>> + Send + 'static {
    head.chain(turn_events(events, view, refusal))
}

/// Where [`turn_events`] is.
struct TurnEvents {
    events: broadcast::Receiver<TaskEvent>,
    view: watch::Receiver<TurnView>,
    /// The turn ended (or vanished): drain what it published, then stop.
    ended: bool,
    refusal: Refusal,
}

/// The events of a running turn, until a terminal status, the end of the turn, or a reader
/// that fell too far behind (D-12: an error item, then the end; the task goes on).
fn turn_events(
    events: broadcast::Receiver<TaskEvent>,
    view: watch::Receiver<TurnView>,
    refusal: Refusal,
) -> impl Stream<Item = Result<StreamEvent, A2aError>> + Send + 'static {
    let state = TurnEvents {
        events,
        view,
        ended: false,
        refusal,
    };
    futures::stream::unfold(Some(state), |state| async move {
        let mut state = state?;
        loop {
            // The turn's view changes after its events are published, so once it has ended
            // everything it published is already queued: drain, then stop.
            state.ended = state.ended || state.view.borrow().ended;
            let received = if state.ended {
                match state.events.try_recv() {
                    Ok(event) => Ok(event),
                    Err(TryRecvError::Lagged(_)) => Err(lagged()),
                    Err(TryRecvError::Empty | TryRecvError::Closed) => {
                        let refusal = match state.refusal {
                            Refusal::Report => state.view.borrow().refusal.clone(),
                            Refusal::Ignore => None,
                        };
                        return refusal.map(|error| (Err(error), None));
                    }
                }
            } else {
                tokio::select! {
                    biased;
                    event = state.events.recv() => match event {
                        Ok(event) => Ok(event),
                        Err(RecvError::Lagged(_)) => Err(lagged()),
                        // The task's channel closes right after its terminal event, which
                        // ends the stream first; nothing more can come either way.
                        Err(RecvError::Closed) => return None,
                    },
                    changed = state.view.changed() => {
                        // A view gone without saying the turn ended: nothing more will be
                        // published, so drain like an ended turn.
                        state.ended = changed.is_err();
                        continue;
                    }
                }
            };
            return match received {
                Ok(event) => {
                    let last = ends_stream(&event.response);
                    let item = StreamEvent {
                        sequence: Some(event.sequence),
                        response: event.response,
                    };
                    Some((Ok(item), (!last).then_some(state)))
                }
                Err(error) => Some((Err(error), None)),
            };
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::{Message, Task, TaskState, TaskStatus, TaskStatusUpdateEvent};

    fn status(state: TaskState) -> StreamResponse {
        StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus::new(state),
            metadata: None,
        })
    }

    #[test]
    fn streams_end_at_messages_and_terminal_states_only() {
        assert!(ends_stream(&StreamResponse::Message(Message::agent_text(
            "hi"
        ))));
        assert!(ends_stream(&status(TaskState::Completed)));
        assert!(!ends_stream(&status(TaskState::Working)));
        assert!(!ends_stream(&status(TaskState::AuthRequired)));
        let task = Task::new("t".into(), "c".into(), TaskState::Submitted);
        assert!(!ends_stream(&StreamResponse::Task(task)));
    }

    fn event(sequence: u64, state: TaskState) -> TaskEvent {
        TaskEvent {
            sequence,
            response: status(state),
        }
    }

    #[tokio::test]
    async fn a_turn_stream_drains_what_an_ended_turn_published() {
        let (sender, receiver) = broadcast::channel(8);
        let (view_sender, view) = watch::channel(TurnView::default());
        sender.send(event(1, TaskState::Working)).unwrap();
        sender.send(event(2, TaskState::InputRequired)).unwrap();
        view_sender.send_modify(|view| view.ended = true);
        let items: Vec<_> = turn_events(receiver, view, Refusal::Report).collect().await;
        let sequences: Vec<_> = items
            .iter()
            .map(|item| item.as_ref().unwrap().sequence)
            .collect();
        assert_eq!(sequences, [Some(1), Some(2)]);
    }

    #[tokio::test]
    async fn a_refusal_ends_the_requesters_stream_only() {
        for (refusal, expected) in [(Refusal::Report, 1), (Refusal::Ignore, 0)] {
            let (_sender, receiver) = broadcast::channel::<TaskEvent>(8);
            let (view_sender, view) = watch::channel(TurnView::default());
            view_sender.send_modify(|view| {
                view.ended = true;
                view.refusal = Some(A2aError::invalid_params("no"));
            });
            let items: Vec<_> = turn_events(receiver, view, refusal).collect().await;
            assert_eq!(items.len(), expected, "{refusal:?}");
            assert!(items.iter().all(Result::is_err));
        }
    }

    #[tokio::test]
    async fn a_reader_that_fell_behind_gets_an_error_and_the_end() {
        let (sender, receiver) = broadcast::channel(2);
        let (_view_sender, view) = watch::channel(TurnView::default());
        for sequence in 1..=5 {
            sender.send(event(sequence, TaskState::Working)).unwrap();
        }
        let items: Vec<_> = turn_events(receiver, view, Refusal::Report).collect().await;
        assert_eq!(items.len(), 1);
        let error = items[0].as_ref().unwrap_err();
        assert_eq!(error.kind(), a2a_types::ErrorKind::ServerBusy);
    }

    #[tokio::test]
    async fn a_vanished_turn_ends_its_stream_instead_of_spinning() {
        let (_sender, receiver) = broadcast::channel::<TaskEvent>(8);
        let (view_sender, view) = watch::channel(TurnView::default());
        drop(view_sender);
        let items: Vec<_> = tokio::time::timeout(
            Duration::from_secs(5),
            turn_events(receiver, view, Refusal::Report).collect::<Vec<_>>(),
        )
        .await
        .unwrap();
        assert!(items.is_empty());
    }
}
