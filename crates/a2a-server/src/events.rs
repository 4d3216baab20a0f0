//! [`EventBus`]: fans a task's events out to everyone watching it (streams today, push
//! delivery later), in the order they were made.

use std::collections::HashMap;
use std::sync::Mutex;

use a2a_types::{StreamResponse, TaskId};
use tokio::sync::broadcast;

/// How many events a subscriber may fall behind before it is told it lagged (D-12).
pub const DEFAULT_QUEUE_CAPACITY: usize = 1000;

/// One event of a task, with its sequence number within the task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskEvent {
    /// Increases by one with every event of the task published by this process.
    pub sequence: u64,
    /// The event.
    pub response: StreamResponse,
}

#[derive(Debug, Default)]
struct Channel {
    /// Present while someone listens.
    sender: Option<broadcast::Sender<TaskEvent>>,
    /// The sequence number of the task's next event; kept while nobody listens so numbers
    /// never repeat within a task.
    next_sequence: u64,
}

/// Per-task broadcast channels. A task's entry lives until the task is terminal; its channel
/// only while someone listens.
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

    /// Subscribes to the events of `task_id` published from now on.
    pub fn subscribe(&self, task_id: &TaskId) -> broadcast::Receiver<TaskEvent> {
        let mut channels = self
            .channels
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let channel = channels.entry(task_id.clone()).or_insert_with(|| Channel {
            sender: None,
            next_sequence: 1,
        });
        match &channel.sender {
            Some(sender) => sender.subscribe(),
            None => {
                let (sender, receiver) = broadcast::channel(self.capacity);
                channel.sender = Some(sender);
                receiver
            }
        }
    }

    /// Publishes `events` of `task_id` in order. When `closes` is true (the task reached a
    /// terminal state) the entry is dropped after them, which ends every subscriber.
    pub(crate) fn publish(&self, task_id: &TaskId, events: Vec<StreamResponse>, closes: bool) {
        let mut channels = self
            .channels
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let channel = channels.entry(task_id.clone()).or_insert_with(|| Channel {
            sender: None,
            next_sequence: 1,
        });
        for response in events {
            let sequence = channel.next_sequence;
            channel.next_sequence += 1;
            if let Some(sender) = &channel.sender {
                // No receiver is not an error: the last listener just left.
                let _ = sender.send(TaskEvent { sequence, response });
            }
        }
        if channel
            .sender
            .as_ref()
            .is_some_and(|sender| sender.receiver_count() == 0)
        {
            channel.sender = None;
        }
        if closes {
            channels.remove(task_id);
        }
    }
}
