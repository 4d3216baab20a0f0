//! SendStreamingMessage (spec §2.2, §8): the turn a message starts, as a stream of its events
//! until the turn ends.

use std::sync::Arc;

use a2a_types::{A2aError, SendMessageRequest, StreamResponse, TaskId};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use super::stream::{Backfill, Refusal, chain_turn, ends_stream, lagged};
use super::stream_event::{EventStream, StreamEvent};
use super::{CallContext, RequestHandler, trim_history};
use crate::turn::TurnView;

impl RequestHandler {
    /// Sends a message and streams the turn: a message reply alone, or the task snapshot and
    /// then its status and artifact updates until the turn ends. `returnImmediately`
    /// is ignored.
    ///
    /// An error found before the first event (a refusal, an unknown task) is returned as
    /// `Err` here, so the binding can answer with a plain error response.
    ///
    /// # Errors
    /// UnsupportedOperation when the card does not declare streaming; otherwise as
    /// [`RequestHandler::send_message`].
    pub async fn send_streaming_message(
        &self,
        call: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream, A2aError> {
        let stream = Box::pin(self.open_streaming_message(call, request)).await?;
        Ok(self.track_stream(call, None, stream))
    }

    /// The stream of SendStreamingMessage, before it is tracked for the stream hooks.
    async fn open_streaming_message(
        &self,
        call: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream, A2aError> {
        crate::trace::note_call(call);
        self.check_streaming()?;
        let request_task_id = request.message.task_id.clone();
        let (length, started) = self.start_turn(call, request).await?;
        if started.repeated {
            // A repeated send starts no turn: its stream is the first send's task as it
            // stands (SubscribeToTask follows it on).
            let task = started
                .view
                .borrow()
                .task
                .clone()
                .ok_or_else(A2aError::internal)?;
            let mut task = trim_history(Arc::unwrap_or_clone(task), length);
            super::send_key::mark_repeated(&mut task);
            let only = StreamEvent {
                sequence: None,
                response: StreamResponse::Task(task),
            };
            return Ok(Box::pin(futures::stream::once(async { Ok(only) })));
        }
        let mut view = started.view;
        let mut events = started.events.ok_or_else(A2aError::internal)?;
        // The task as it stood before the turn ran: the turn's first poll ran already, so
        // the view may show its first change.
        if let Some(task) = started.stored {
            // A follow-up: the stored task (ending with the new message) comes first; a
            // later refusal arrives as an error event.
            let first = StreamEvent {
                sequence: None,
                response: StreamResponse::Task(trim_history(Arc::unwrap_or_clone(task), length)),
            };
            let head = futures::stream::once(async { Ok(first) });
            let backfill = self.backfill(call, &request_task_id, None);
            return Ok(Box::pin(chain_turn(
                head,
                events,
                Some(view),
                Refusal::Report,
                backfill,
            )));
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
        let task_id = task_id_of(&first.response);
        let sequence = first.sequence;
        let head = futures::stream::once(async { Ok(first) });
        if last {
            return Ok(Box::pin(head));
        }
        let backfill = self.backfill(call, &task_id, sequence);
        Ok(Box::pin(chain_turn(
            head,
            events,
            Some(view),
            Refusal::Report,
            backfill,
        )))
    }

    /// How a stream of `task_id` reads missed events from the store.
    fn backfill(
        &self,
        call: &CallContext,
        task_id: &Option<TaskId>,
        last: Option<u64>,
    ) -> Option<Backfill> {
        let task_id = task_id.clone()?;
        Some(Backfill {
            engine: Arc::clone(&self.inner.engine),
            scope: call.scope(),
            task_id,
            last,
        })
    }
}

/// The task id a stream's first event names.
fn task_id_of(response: &StreamResponse) -> Option<TaskId> {
    match response {
        StreamResponse::Task(task) => Some(task.id.clone()),
        StreamResponse::StatusUpdate(event) => Some(event.task_id.clone()),
        StreamResponse::ArtifactUpdate(event) => Some(event.task_id.clone()),
        StreamResponse::Message(message) => message.task_id.clone(),
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
        StreamResponse::Task(a2a_types::Task::clone(task))
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
