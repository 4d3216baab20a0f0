//! [`EventBus`]: fans a task's logged events out to everyone in this process watching it
//! (streams today, push delivery later), in the order of their sequence numbers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use a2a_types::TaskId;

use crate::store::TaskScope;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

pub use crate::config::DEFAULT_QUEUE_CAPACITY;
pub use crate::store::TaskEvent;

/// The sequence number of a draft event: sent to the listeners of the moment and never
/// logged (logged events are numbered from 1).
pub(crate) const DRAFT_SEQUENCE: u64 = 0;

#[derive(Debug)]
struct Channel {
    /// Events are shared, not stored by value: a channel holds its capacity's worth of
    /// slots from the start, so a slot the size of a whole event made every new stream
    /// allocate and clear megabytes with a large queue.
    sender: broadcast::Sender<Arc<TaskEvent>>,
    /// The scope the listeners watch the task under (to read its log on their behalf).
    scope: TaskScope,
    /// The greatest sequence number published on this channel.
    last_published: u64,
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

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TaskId, Channel>> {
        self.channels
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Subscribes to the events of `task_id` (watched under `scope`) published from now on.
    pub fn subscribe(&self, task_id: &TaskId, scope: &TaskScope) -> EventReceiver {
        let mut channels = self.lock();
        let channel = channels.entry(task_id.clone()).or_insert_with(|| Channel {
            sender: broadcast::channel(self.capacity).0,
            scope: scope.clone(),
            last_published: 0,
        });
        EventReceiver(channel.sender.subscribe())
    }

    /// Where listeners of `task_id` are: their scope and the last sequence published to them;
    /// `None` when nobody listens.
    pub(crate) fn watched(&self, task_id: &TaskId) -> Option<(TaskScope, u64)> {
        let mut channels = self.lock();
        let channel = channels.get(task_id)?;
        if channel.sender.receiver_count() == 0 {
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
            // No receiver is not an error: nobody is watching the drafts.
            let _ = channel.sender.send(Arc::new(TaskEvent {
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
            // No receiver is not an error: the last listener just left.
            let _ = channel.sender.send(Arc::new(event));
        }
        if closes || channel.sender.receiver_count() == 0 {
            channels.remove(task_id);
        }
    }
}

/// The events of one task as a listener receives them, in order (see [`EventBus::subscribe`]).
#[derive(Debug)]
pub struct EventReceiver(broadcast::Receiver<Arc<TaskEvent>>);

impl EventReceiver {
    /// The next event, waiting for it.
    ///
    /// # Errors
    /// `Lagged` when the listener fell more than the bus's capacity behind (the missed
    /// events are skipped); `Closed` when the task's channel is gone and drained.
    pub async fn recv(&mut self) -> Result<TaskEvent, RecvError> {
        self.0.recv().await.map(Arc::unwrap_or_clone)
    }

    /// The next event if one is queued.
    ///
    /// # Errors
    /// `Empty` when none is; otherwise as [`EventReceiver::recv`].
    pub fn try_recv(&mut self) -> Result<TaskEvent, TryRecvError> {
        self.0.try_recv().map(Arc::unwrap_or_clone)
    }
}

impl From<broadcast::Receiver<Arc<TaskEvent>>> for EventReceiver {
    fn from(receiver: broadcast::Receiver<Arc<TaskEvent>>) -> Self {
        Self(receiver)
    }
}
