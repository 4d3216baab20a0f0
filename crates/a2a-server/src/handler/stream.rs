//! What SendStreamingMessage and SubscribeToTask share: a task's events as a stream,
//! transport-agnostic — gaps filled from the log, duplicates dropped, the ending rules, a
//! reader that falls behind. The SSE framing is the bindings' job.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use a2a_types::{A2aError, StreamResponse, TaskId, TaskState};
use futures::{Stream, StreamExt as _};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::watch;

use super::RequestHandler;
use super::stream_event::StreamEvent;
use crate::events::{DRAFT_SEQUENCE, EventReceiver, TaskEvent};
use crate::store::TaskScope;
use crate::turn::{Engine, TurnView};

/// Whether a stream attached to a turn ends with the turn's refusal as an error item. Only
/// the stream of the request that started the turn does: to anyone else the refused message
/// never happened (the task is as it was).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    Report,
    Ignore,
}

impl RequestHandler {
    pub(super) fn check_streaming(&self) -> Result<(), A2aError> {
        if self.inner.card.capabilities.supports_streaming() {
            Ok(())
        } else {
            Err(
                A2aError::unsupported_operation("streaming is not available")
                    .with_metadata("capability", "streaming"),
            )
        }
    }

    /// How often idle SSE streams get a keep-alive comment.
    pub(crate) fn sse_keepalive(&self) -> Duration {
        self.inner.engine.config().sse_keepalive
    }
}

/// Which event is a stream's last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    /// A message or a terminal status.
    Terminal,
    /// Also INPUT_REQUIRED: the end of a turn that waits for input (the old subscription
    /// behaviour, `subscribe_ends_on_interrupt`).
    TurnEnd,
}

impl Ending {
    pub(super) fn ends(self, response: &StreamResponse) -> bool {
        match self {
            Self::Terminal => ends_stream(response),
            Self::TurnEnd => ends_subscription(response),
        }
    }
}

/// True for the last event of a subscription: the end of a stream, or the end of a turn that
/// waits for input.
pub(super) fn ends_subscription(response: &StreamResponse) -> bool {
    ends_stream(response)
        || matches!(response, StreamResponse::StatusUpdate(event) if event.status.state == TaskState::InputRequired)
}

/// True for the last event of a stream: a message, or a terminal status.
pub(super) fn ends_stream(response: &StreamResponse) -> bool {
    matches!(response, StreamResponse::Message(_)) || response.is_terminal_status()
}

/// The reader fell more than the queue capacity behind. It is told, and its stream ends;
/// the task goes on and the client can subscribe again.
pub(super) fn lagged() -> A2aError {
    A2aError::server_busy().with_metadata("reason", "the stream fell behind; subscribe again")
}

/// Reads the events a stream missed from the task's log: a stream that receives event `n`
/// after `m < n - 1` fetches `m + 1 .. n` first; events at or before `m` are duplicates.
pub(crate) struct Backfill {
    pub(crate) engine: Arc<Engine>,
    pub(crate) scope: TaskScope,
    pub(crate) task_id: TaskId,
    /// The last sequence the stream delivered; `None` before the first numbered event.
    pub(crate) last: Option<u64>,
}

impl Backfill {
    /// Queues what to deliver for `event` on `out`, in order: missed events from the log,
    /// then `event`; nothing for a duplicate. (Queued in place: a vector per event was an
    /// allocation per streamed chunk.)
    async fn take(
        &mut self,
        event: TaskEvent,
        out: &mut VecDeque<TaskEvent>,
    ) -> Result<(), A2aError> {
        if event.sequence == DRAFT_SEQUENCE {
            // A draft is never logged: it has no place in the numbering to check.
            out.push_back(event);
            return Ok(());
        }
        let Some(last) = self.last else {
            self.last = Some(event.sequence);
            out.push_back(event);
            return Ok(());
        };
        if event.sequence <= last {
            return Ok(());
        }
        if event.sequence > last + 1 {
            let missing = usize::try_from(event.sequence - last - 1).unwrap_or(usize::MAX);
            out.extend(
                self.engine
                    .events_after(&self.scope, &self.task_id, last, missing)
                    .await?
                    .unwrap_or_default(),
            );
        }
        self.last = Some(event.sequence);
        out.push_back(event);
        Ok(())
    }

    /// The logged events after the last one delivered, at most [`CATCH_UP_BATCH`] of them
    /// (the next beat reads on).
    async fn catch_up(&mut self) -> Result<Vec<TaskEvent>, A2aError> {
        let Some(last) = self.last else {
            return Ok(Vec::new());
        };
        let events = self
            .engine
            .events_after(&self.scope, &self.task_id, last, CATCH_UP_BATCH)
            .await?
            .unwrap_or_default();
        if let Some(event) = events.last() {
            self.last = Some(event.sequence);
        }
        Ok(events)
    }
}

/// The most events one beat of a polling subscription reads from the log.
const CATCH_UP_BATCH: usize = 1000;

/// The most queued events a stream takes from the bus in one go.
const TAKE_AT_ONCE: usize = 64;

/// `head`, then the events of a running turn, until a message, a terminal status or the
/// turn's end.
pub(super) fn chain_turn(
    head: impl Stream<Item = Result<StreamEvent, A2aError>> + Send + 'static,
    events: EventReceiver,
    view: Option<watch::Receiver<TurnView>>,
    refusal: Refusal,
    backfill: Option<Backfill>,
) -> impl Stream<Item = Result<StreamEvent, A2aError>> + Send + 'static {
    head.chain(turn_events(TurnEvents::new(
        events,
        view,
        refusal,
        backfill,
        Ending::Terminal,
        None,
    )))
}

/// Where [`turn_events`] is.
pub(super) struct TurnEvents {
    events: EventReceiver,
    /// The turn's view when the stream ends with a turn running in this process; `None` for
    /// a stream that ends at its last event only.
    view: Option<watch::Receiver<TurnView>>,
    /// The turn ended (or vanished): drain what it published, then stop.
    ended: bool,
    refusal: Refusal,
    backfill: Option<Backfill>,
    ending: Ending,
    /// Reads the log on this beat besides listening (needs `backfill`).
    poll: Option<tokio::time::Interval>,
    /// Events taken from the bus or the log, not delivered yet.
    pending: VecDeque<TaskEvent>,
    /// The reader fell behind after the events in `pending`: the stream ends once they
    /// are delivered.
    lagged: bool,
}

impl TurnEvents {
    pub(super) fn new(
        events: EventReceiver,
        view: Option<watch::Receiver<TurnView>>,
        refusal: Refusal,
        backfill: Option<Backfill>,
        ending: Ending,
        poll: Option<Duration>,
    ) -> Self {
        let poll = poll.filter(|_| backfill.is_some()).map(|every| {
            let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            interval
        });
        Self {
            events,
            view,
            ended: false,
            refusal,
            backfill,
            ending,
            poll,
            pending: VecDeque::new(),
            lagged: false,
        }
    }

    /// Waits for more to deliver and queues it in `pending`: the next event from the bus
    /// (with any it missed, read from the log), or, on the polling beat, what the log has
    /// that the bus has not brought. `Ok(false)` when nothing more will come.
    async fn fill(&mut self) -> Result<bool, A2aError> {
        if self.lagged {
            return Err(lagged());
        }
        loop {
            // The turn's view changes after its events are published, so once it has ended
            // everything it published is already queued: drain, then stop.
            if let Some(view) = &self.view {
                self.ended = self.ended || view.borrow().ended;
            }
            if self.ended {
                return match self.events.try_recv() {
                    Ok(event) => self.queue(event).await.map(|()| true),
                    Err(TryRecvError::Lagged(_)) => Err(lagged()),
                    Err(TryRecvError::Empty | TryRecvError::Closed) => Ok(false),
                };
            }
            // Events already queued are taken without building the waits below: while a
            // turn publishes faster than its reader sends, that is every event.
            // Closed is seen by the wait below at once.
            let mut taken = 0;
            while taken < TAKE_AT_ONCE {
                match self.events.try_recv() {
                    Ok(event) => {
                        self.queue(event).await?;
                        taken += 1;
                    }
                    Err(TryRecvError::Lagged(_)) if taken == 0 => return Err(lagged()),
                    // Told after the events taken before it.
                    Err(TryRecvError::Lagged(_)) => {
                        self.lagged = true;
                        break;
                    }
                    Err(TryRecvError::Empty | TryRecvError::Closed) => break,
                }
            }
            if taken > 0 {
                return Ok(true);
            }
            let changed = async {
                match &mut self.view {
                    Some(view) => view.changed().await.is_err(),
                    None => futures::future::pending().await,
                }
            };
            let tick = async {
                match &mut self.poll {
                    Some(poll) => {
                        poll.tick().await;
                    }
                    None => futures::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                event = self.events.recv() => return match event {
                    Ok(event) => self.queue(event).await.map(|()| true),
                    Err(RecvError::Lagged(_)) => Err(lagged()),
                    // The task's channel closes right after its terminal event, which ends
                    // the stream first; nothing more can come either way.
                    Err(RecvError::Closed) => Ok(false),
                },
                // A view gone without saying the turn ended: nothing more will be
                // published, so drain like an ended turn.
                gone = changed => self.ended = gone,
                () = tick => {
                    if let Some(backfill) = &mut self.backfill {
                        self.pending.extend(backfill.catch_up().await?);
                    }
                    if !self.pending.is_empty() {
                        return Ok(true);
                    }
                }
            }
        }
    }

    /// Queues `event` after the events it shows were missed; nothing for a duplicate.
    async fn queue(&mut self, event: TaskEvent) -> Result<(), A2aError> {
        match &mut self.backfill {
            Some(backfill) => backfill.take(event, &mut self.pending).await?,
            None => self.pending.push_back(event),
        }
        Ok(())
    }

    /// The turn's refusal, for the stream of the request that started it.
    fn refusal(&self) -> Option<A2aError> {
        match (self.refusal, &self.view) {
            (Refusal::Report, Some(view)) => view.borrow().refusal.clone(),
            (Refusal::Report | Refusal::Ignore, _) => None,
        }
    }
}

/// The events of a running turn or task, until its last event (see [`Ending`]), the end of
/// the turn when a view is followed, or a reader that fell too far behind (an error
/// item, then the end; the task goes on). Gaps in the sequence are filled from the task's
/// log and duplicates dropped (see [`Backfill`]).
pub(super) fn turn_events(
    state: TurnEvents,
) -> impl Stream<Item = Result<StreamEvent, A2aError>> + Send + 'static {
    // Boxed: the state moves into every item's future and back out with the item.
    futures::stream::unfold(Some(Box::new(state)), |state| async move {
        let mut state = state?;
        loop {
            if let Some(event) = state.pending.pop_front() {
                let last = state.ending.ends(&event.response);
                let item = StreamEvent {
                    sequence: (event.sequence != DRAFT_SEQUENCE).then_some(event.sequence),
                    response: event.response,
                };
                return Some((Ok(item), (!last).then_some(state)));
            }
            match state.fill().await {
                Ok(true) => {}
                Ok(false) => return state.refusal().map(|error| (Err(error), None)),
                Err(error) => return Some((Err(error), None)),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::{Message, Task, TaskState, TaskStatus, TaskStatusUpdateEvent};

    use crate::events::EventBus;

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

    /// A bus of `capacity` and a listener of task `t` on it.
    fn channel(capacity: usize) -> (EventBus, EventReceiver) {
        let bus = EventBus::new(capacity);
        let receiver = bus.subscribe(&"t".into(), &TaskScope::tenant(""));
        (bus, receiver)
    }

    /// Publishes events of task `t` with these sequence numbers, in the WORKING state.
    fn publish(bus: &EventBus, sequences: std::ops::RangeInclusive<u64>) {
        let events = sequences
            .map(|sequence| event(sequence, TaskState::Working))
            .collect();
        bus.publish(&"t".into(), events, false);
    }

    /// The stream of a turn followed through its view, without a log.
    fn turn_stream(
        receiver: EventReceiver,
        view: watch::Receiver<TurnView>,
        refusal: Refusal,
    ) -> impl Stream<Item = Result<StreamEvent, A2aError>> {
        turn_events(TurnEvents::new(
            receiver,
            Some(view),
            refusal,
            None,
            Ending::Terminal,
            None,
        ))
    }

    #[tokio::test]
    async fn a_turn_stream_drains_what_an_ended_turn_published() {
        let (bus, receiver) = channel(8);
        let (view_sender, view) = watch::channel(TurnView::default());
        bus.publish(
            &"t".into(),
            vec![
                event(1, TaskState::Working),
                event(2, TaskState::InputRequired),
            ],
            false,
        );
        view_sender.send_modify(|view| view.ended = true);
        let items: Vec<_> = turn_stream(receiver, view, Refusal::Report).collect().await;
        let sequences: Vec<_> = items
            .iter()
            .map(|item| item.as_ref().unwrap().sequence)
            .collect();
        assert_eq!(sequences, [Some(1), Some(2)]);
    }

    #[tokio::test]
    async fn a_refusal_ends_the_requesters_stream_only() {
        for (refusal, expected) in [(Refusal::Report, 1), (Refusal::Ignore, 0)] {
            let (_bus, receiver) = channel(8);
            let (view_sender, view) = watch::channel(TurnView::default());
            view_sender.send_modify(|view| {
                view.ended = true;
                view.refusal = Some(A2aError::invalid_params("no"));
            });
            let items: Vec<_> = turn_stream(receiver, view, refusal).collect().await;
            assert_eq!(items.len(), expected, "{refusal:?}");
            assert!(items.iter().all(Result::is_err));
        }
    }

    #[tokio::test]
    async fn a_reader_that_fell_behind_gets_an_error_and_the_end() {
        let (bus, receiver) = channel(2);
        let (_view_sender, view) = watch::channel(TurnView::default());
        publish(&bus, 1..=5);
        let items: Vec<_> = turn_stream(receiver, view, Refusal::Report).collect().await;
        assert_eq!(items.len(), 1);
        let error = items[0].as_ref().unwrap_err();
        assert_eq!(error.kind(), a2a_types::ErrorKind::ServerBusy);
    }

    #[tokio::test]
    async fn a_vanished_turn_ends_its_stream_instead_of_spinning() {
        let (_bus, receiver) = channel(8);
        let (view_sender, view) = watch::channel(TurnView::default());
        drop(view_sender);
        let items: Vec<_> = tokio::time::timeout(
            Duration::from_secs(5),
            turn_stream(receiver, view, Refusal::Report).collect::<Vec<_>>(),
        )
        .await
        .unwrap();
        assert!(items.is_empty());
    }
}
