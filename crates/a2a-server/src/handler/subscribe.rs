//! SubscribeToTask (spec §2.6, §8): a task's snapshot, then its events until it is terminal
//! (or, resumed with `Last-Event-ID`, the events after that one).

use std::sync::Arc;
use std::time::Duration;

use a2a_types::{A2aError, StreamResponse, SubscribeToTaskRequest, TaskState};
use futures::{Stream, StreamExt as _};
use tokio::sync::watch;

use super::stream::{Backfill, Ending, Refusal, TurnEvents, turn_events};
use super::stream_event::{EventStream, StreamEvent};
use super::{CallContext, RequestHandler, tenant_of};
use crate::store::TaskScope;
use crate::turn::{Subscription, TurnView};

impl RequestHandler {
    /// Re-attaches to a task: its snapshot first, then its events until the task reaches a
    /// terminal state, across INPUT_REQUIRED and AUTH_REQUIRED and the follow-up
    /// turns that other requests start, here or on another instance over the same store
    /// (their events arrive through the store's log). The client may leave at any time.
    ///
    /// With `subscribe_ends_on_interrupt` the stream ends where the turn does instead: at
    /// INPUT_REQUIRED, and a task with no running turn yields its snapshot alone.
    ///
    /// With `Last-Event-ID` (the call's `last_event_id`), the stream resumes instead: no
    /// snapshot, the logged events after that one, then live events, so the client sees what
    /// an uninterrupted stream would have shown, with no gap and no duplicate.
    ///
    /// # Errors
    /// UnsupportedOperation when the card does not declare streaming or the task is terminal
    /// (and no `Last-Event-ID` was given); TaskNotFound.
    pub async fn subscribe_to_task(
        &self,
        call: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream, A2aError> {
        let task_id = request.id.clone();
        let stream = Box::pin(self.open_subscription(call, request)).await?;
        Ok(self.track_stream(call, Some(task_id), stream))
    }

    /// The stream of SubscribeToTask, before it is tracked for the stream hooks.
    async fn open_subscription(
        &self,
        call: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream, A2aError> {
        crate::trace::note_call(call);
        self.check_streaming()?;
        let engine = &self.inner.engine;
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        self.authorize(call, &scope, &request.id, crate::hooks::Access::Read)
            .await?;
        // No event falls between the snapshot (or the replay) and the live events;
        // duplicates are dropped by sequence.
        let Subscription {
            events,
            stored,
            running,
        } = engine.subscribe(&scope, &request.id).await?;
        let task = stored.task;
        let state = task.status.state;
        let shared = engine.is_shared();
        let follow = if engine.config().subscribe_ends_on_interrupt {
            // More events are coming from a turn here, or (a running state with no turn
            // here) from a turn on another instance.
            let live = running.is_some()
                || (shared && matches!(state, TaskState::Submitted | TaskState::Working));
            Follow {
                live,
                view: running,
                ending: Ending::TurnEnd,
                poll: None,
            }
        } else {
            Follow {
                // A terminal task has logged its last event already.
                live: !state.is_terminal(),
                view: None,
                ending: Ending::Terminal,
                // Signals between instances are hints that can be lost; the log is the truth.
                poll: shared.then_some(SUBSCRIPTION_POLL),
            }
        };
        let mut backfill = Backfill {
            engine: Arc::clone(engine),
            scope: scope.clone(),
            task_id: request.id.clone(),
            last: Some(stored.last_sequence),
        };
        if let Some(after) = call.last_event_id {
            let mut replay = engine
                .events_after(&scope, &request.id, after, usize::MAX)
                .await?
                .ok_or_else(|| A2aError::task_not_found(request.id.as_str()))?;
            let end = replay
                .iter()
                .position(|event| follow.ends_stream(&event.response));
            if let Some(end) = end {
                replay.truncate(end + 1);
            }
            backfill.last = Some(replay.last().map_or(after, |event| event.sequence));
            let head = futures::stream::iter(replay.into_iter().map(|event| {
                Ok(StreamEvent {
                    sequence: Some(event.sequence),
                    response: event.response,
                })
            }));
            if end.is_some() || !follow.live {
                return Ok(Box::pin(head));
            }
            return Ok(Box::pin(head.chain(follow.events(events, backfill))));
        }
        if state.is_terminal() {
            return Err(A2aError::unsupported_operation(format!(
                "task {} is {} and has nothing more to stream",
                task.id, task.status.state
            ))
            .with_metadata("taskId", task.id.as_str()));
        }
        let snapshot = StreamEvent {
            // The snapshot reflects every logged event up to this one.
            sequence: Some(stored.last_sequence).filter(|sequence| *sequence > 0),
            response: StreamResponse::Task(task),
        };
        let head = futures::stream::once(async { Ok(snapshot) });
        if !follow.live {
            return Ok(Box::pin(head));
        }
        Ok(Box::pin(head.chain(follow.events(events, backfill))))
    }
}

/// How often a subscription over a shared store reads the task's log on its own, in case a
/// signal from another instance was lost: the stream then catches up within this long.
const SUBSCRIPTION_POLL: Duration = Duration::from_secs(5);

/// How a subscription follows its task after the snapshot.
struct Follow {
    /// More events may come; otherwise the snapshot (or replay) is all.
    live: bool,
    /// The running turn here, when the stream ends with it.
    view: Option<watch::Receiver<TurnView>>,
    ending: Ending,
    /// Read the log this often besides listening (instances sharing a store).
    poll: Option<Duration>,
}

impl Follow {
    fn ends_stream(&self, response: &StreamResponse) -> bool {
        self.ending.ends(response)
    }

    fn events(
        self,
        events: crate::events::EventReceiver,
        backfill: Backfill,
    ) -> impl Stream<Item = Result<StreamEvent, A2aError>> + Send + 'static {
        turn_events(TurnEvents::new(
            events,
            self.view,
            Refusal::Ignore,
            Some(backfill),
            self.ending,
            self.poll,
        ))
    }
}
