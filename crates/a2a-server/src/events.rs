//! [`EventBus`]: fans a task's logged events out to everyone in this process watching it
//! (streams today, push delivery later), in the order of their sequence numbers.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use a2a_types::TaskId;

use crate::store::TaskScope;
use tokio::sync::Notify;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

pub use crate::config::DEFAULT_QUEUE_CAPACITY;
pub use crate::store::TaskEvent;

/// The sequence number of a draft event: sent to the listeners of the moment and never
/// logged (logged events are numbered from 1).
pub(crate) const DRAFT_SEQUENCE: u64 = 0;

/// One task's queue of events, shared by its publisher and its listeners.
///
/// It holds only what some listener has yet to read, at most `capacity` events, and grows
/// as events arrive: a queue that reserved its whole capacity up front (as
/// `tokio::sync::broadcast` does) made every new stream allocate, clear and free a slot per
/// event it could hold (a sixth of a stream's CPU time with a queue of 4 000).
#[derive(Debug)]
struct Queue {
    state: Mutex<QueueState>,
    /// Woken at every publish and when the queue closes.
    arrived: Notify,
    capacity: usize,
}

#[derive(Debug, Default)]
struct QueueState {
    /// Each event with the number of listeners that have yet to read it.
    events: VecDeque<(Arc<TaskEvent>, usize)>,
    /// The position of `events[0]` among all events sent on the queue.
    head: u64,
    listeners: usize,
    closed: bool,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `event` for the current listeners; nothing happens when there are none.
    fn send(&self, event: Arc<TaskEvent>) {
        {
            let mut state = self.lock();
            if state.listeners == 0 {
                return;
            }
            let listeners = state.listeners;
            state.events.push_back((event, listeners));
            if state.events.len() > self.capacity {
                // The oldest event is lost to whoever has not read it yet: they lag.
                state.events.pop_front();
                state.head += 1;
            }
        }
        self.arrived.notify_waiters();
    }

    /// Ends the queue: listeners read what is queued, then see it closed.
    fn close(&self) {
        self.lock().closed = true;
        self.arrived.notify_waiters();
    }
}

impl QueueState {
    /// Drops the events at the front that every listener has read.
    fn trim(&mut self) {
        while self.events.front().is_some_and(|(_, unread)| *unread == 0) {
            self.events.pop_front();
            self.head += 1;
        }
    }
}

#[derive(Debug)]
struct Channel {
    queue: Arc<Queue>,
    /// The scope the listeners watch the task under (to read its log on their behalf).
    scope: TaskScope,
    /// The greatest sequence number published on this channel.
    last_published: u64,
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.queue.close();
    }
}

impl Channel {
    fn listeners(&self) -> usize {
        self.queue.lock().listeners
    }
}

/// Per-task broadcast channels, alive while someone listens.
///
/// Events arrive from the turns of this process and, with several instances, from the task's
/// log when another instance signals new events. Both may race, so `publish` drops events
/// whose sequence number was published already; a listener that sees a gap in the numbers
/// reads what it missed from the store.
#[derive(Debug)]
pub struct EventBus {
    channels: Mutex<HashMap<TaskId, Channel>>,
    capacity: usize,
}

impl Default for EventBus {
    fn default() -> Self {
        Self::new(DEFAULT_QUEUE_CAPACITY)
    }
}

impl EventBus {
    /// A bus whose subscribers may fall `capacity` events behind.
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            channels: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<TaskId, Channel>> {
        self.channels.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Subscribes to the events of `task_id` (watched under `scope`) published from now on.
    pub fn subscribe(&self, task_id: &TaskId, scope: &TaskScope) -> EventReceiver {
        let mut channels = self.lock();
        let channel = channels.entry(task_id.clone()).or_insert_with(|| Channel {
            queue: Arc::new(Queue {
                state: Mutex::new(QueueState::default()),
                arrived: Notify::new(),
                capacity: self.capacity,
            }),
            scope: scope.clone(),
            last_published: 0,
        });
        let next = {
            let mut state = channel.queue.lock();
            state.listeners += 1;
            state.head + state.events.len() as u64
        };
        EventReceiver {
            queue: Arc::clone(&channel.queue),
            next,
        }
    }

    /// Where listeners of `task_id` are: their scope and the last sequence published to them;
    /// `None` when nobody listens.
    pub(crate) fn watched(&self, task_id: &TaskId) -> Option<(TaskScope, u64)> {
        let mut channels = self.lock();
        let channel = channels.get(task_id)?;
        if channel.listeners() == 0 {
            channels.remove(task_id);
            return None;
        }
        Some((channel.scope.clone(), channel.last_published))
    }

    /// Sends `response` to the current listeners of `task_id` without logging it: a draft
    /// (for example a model's text as it comes), numbered [`DRAFT_SEQUENCE`]. Only the
    /// listeners of this process see it; a listener that joins later never does.
    pub(crate) fn publish_draft(&self, task_id: &TaskId, response: a2a_types::StreamResponse) {
        let channels = self.lock();
        if let Some(channel) = channels.get(task_id) {
            // No listener is not an error: nobody is watching the drafts.
            channel.queue.send(Arc::new(TaskEvent {
                sequence: DRAFT_SEQUENCE,
                response,
            }));
        }
    }

    /// Publishes `events` of `task_id` in order, skipping any whose sequence number was
    /// published already. When `closes` is true (the task reached a terminal state) the
    /// channel is dropped after them, which ends every subscriber.
    pub(crate) fn publish(&self, task_id: &TaskId, events: Vec<TaskEvent>, closes: bool) {
        let mut channels = self.lock();
        let Some(channel) = channels.get_mut(task_id) else {
            return;
        };
        for event in events {
            if event.sequence <= channel.last_published {
                continue;
            }
            channel.last_published = event.sequence;
            // No listener is not an error: the last one just left.
            channel.queue.send(Arc::new(event));
        }
        if closes || channel.listeners() == 0 {
            channels.remove(task_id);
        }
    }
}

/// The events of one task as a listener receives them, in order (see [`EventBus::subscribe`]).
#[derive(Debug)]
pub struct EventReceiver {
    queue: Arc<Queue>,
    /// The position of the next event to read among all events sent on the queue.
    next: u64,
}

impl EventReceiver {
    /// The next event, waiting for it.
    ///
    /// # Errors
    /// `Lagged` when the listener fell more than the bus's capacity behind (the missed
    /// events are skipped); `Closed` when the task's channel is gone and drained.
    pub async fn recv(&mut self) -> Result<TaskEvent, RecvError> {
        loop {
            // Made before looking, so that a publish between the look and the wait wakes it.
            let arrived = self.queue.arrived.notified();
            match take(&self.queue, &mut self.next) {
                Ok(event) => return Ok(event),
                Err(TryRecvError::Lagged(missed)) => return Err(RecvError::Lagged(missed)),
                Err(TryRecvError::Closed) => return Err(RecvError::Closed),
                Err(TryRecvError::Empty) => arrived.await,
            }
        }
    }

    /// The next event if one is queued.
    ///
    /// # Errors
    /// `Empty` when none is; otherwise as [`EventReceiver::recv`].
    pub fn try_recv(&mut self) -> Result<TaskEvent, TryRecvError> {
        take(&self.queue, &mut self.next)
    }
}

/// The event at position `next` of `queue`, moving `next` past it (or past what was lost).
fn take(queue: &Queue, next: &mut u64) -> Result<TaskEvent, TryRecvError> {
    let event = {
        let mut state = queue.lock();
        if *next < state.head {
            let missed = state.head - *next;
            *next = state.head;
            return Err(TryRecvError::Lagged(missed));
        }
        let at = usize::try_from(*next - state.head).unwrap_or(usize::MAX);
        let Some((event, unread)) = state.events.get_mut(at) else {
            return Err(if state.closed {
                TryRecvError::Closed
            } else {
                TryRecvError::Empty
            });
        };
        *unread = unread.saturating_sub(1);
        let event = Arc::clone(event);
        *next += 1;
        if at == 0 {
            state.trim();
        }
        event
    };
    // The last reader takes the event; the others copy it.
    Ok(Arc::unwrap_or_clone(event))
}

impl Drop for EventReceiver {
    fn drop(&mut self) {
        let mut state = self.queue.lock();
        state.listeners = state.listeners.saturating_sub(1);
        let from = usize::try_from(self.next.saturating_sub(state.head)).unwrap_or(usize::MAX);
        for (_, unread) in state.events.iter_mut().skip(from) {
            *unread = unread.saturating_sub(1);
        }
        state.trim();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::{StreamResponse, TaskState, TaskStatus, TaskStatusUpdateEvent};

    fn event(sequence: u64) -> TaskEvent {
        TaskEvent {
            sequence,
            response: StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: "t".into(),
                context_id: "c".into(),
                status: TaskStatus::new(TaskState::Working),
                metadata: None,
            }),
        }
    }

    fn publish(bus: &EventBus, sequences: std::ops::RangeInclusive<u64>, closes: bool) {
        bus.publish(&"t".into(), sequences.map(event).collect(), closes);
    }

    fn queued(receiver: &EventReceiver) -> usize {
        receiver.queue.lock().events.len()
    }

    #[tokio::test]
    async fn every_listener_gets_every_event_in_order_and_read_events_are_dropped() {
        let bus = EventBus::new(1000);
        let scope = TaskScope::tenant("");
        let mut first = bus.subscribe(&"t".into(), &scope);
        let mut second = bus.subscribe(&"t".into(), &scope);
        publish(&bus, 1..=3, false);
        assert_eq!(
            queued(&first),
            3,
            "the queue holds what was sent, not its capacity"
        );
        for sequence in 1..=3 {
            assert_eq!(first.recv().await.unwrap().sequence, sequence);
        }
        assert_eq!(
            queued(&first),
            3,
            "the second listener has read nothing yet"
        );
        assert_eq!(second.try_recv().unwrap().sequence, 1);
        assert_eq!(queued(&first), 2);
        drop(second);
        assert_eq!(
            queued(&first),
            0,
            "a listener that leaves reads nothing more"
        );
        assert!(matches!(first.try_recv(), Err(TryRecvError::Empty)));
    }

    #[tokio::test]
    async fn a_listener_hears_only_what_is_published_after_it_subscribed() {
        let bus = EventBus::new(8);
        let scope = TaskScope::tenant("");
        let mut early = bus.subscribe(&"t".into(), &scope);
        publish(&bus, 1..=2, false);
        let mut late = bus.subscribe(&"t".into(), &scope);
        publish(&bus, 3..=3, false);
        assert_eq!(late.recv().await.unwrap().sequence, 3);
        assert_eq!(early.recv().await.unwrap().sequence, 1);
    }

    #[tokio::test]
    async fn a_listener_that_falls_behind_the_capacity_lags_then_goes_on() {
        let bus = EventBus::new(2);
        let mut receiver = bus.subscribe(&"t".into(), &TaskScope::tenant(""));
        publish(&bus, 1..=5, false);
        assert_eq!(queued(&receiver), 2);
        assert!(matches!(receiver.recv().await, Err(RecvError::Lagged(3))));
        assert_eq!(receiver.recv().await.unwrap().sequence, 4);
        assert_eq!(receiver.recv().await.unwrap().sequence, 5);
    }

    #[tokio::test]
    async fn a_closed_channel_is_drained_then_ends_and_a_waiting_listener_wakes() {
        let bus = Arc::new(EventBus::new(8));
        let mut receiver = bus.subscribe(&"t".into(), &TaskScope::tenant(""));
        let publisher = Arc::clone(&bus);
        let waiting = tokio::spawn(async move {
            let first = receiver.recv().await.map(|event| event.sequence);
            let second = receiver.recv().await.map(|event| event.sequence);
            let end = receiver.recv().await;
            (first, second, end)
        });
        tokio::task::yield_now().await;
        publish(&publisher, 1..=2, true);
        let (first, second, end) = waiting.await.unwrap();
        assert_eq!((first.unwrap(), second.unwrap()), (1, 2));
        assert!(matches!(end, Err(RecvError::Closed)));
    }

    #[test]
    fn nothing_is_queued_without_listeners() {
        let bus = EventBus::new(8);
        let receiver = bus.subscribe(&"t".into(), &TaskScope::tenant(""));
        let queue = Arc::clone(&receiver.queue);
        drop(receiver);
        queue.send(Arc::new(event(1)));
        assert!(queue.lock().events.is_empty());
        assert!(
            bus.watched(&"t".into()).is_none(),
            "the channel goes with its last listener"
        );
    }
}
