//! Observers of every stored event: the [`EventSubscriber`] and its queue.

use std::sync::{Arc, Mutex, PoisonError};

use a2a_types::TaskId;
use tokio::sync::mpsc;

use crate::events::TaskEvent;
use crate::store::TaskScope;

/// One stored event of a task, as an [`EventSubscriber`] sees it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ObservedEvent {
    /// The tenant of the task (empty when none).
    pub tenant: String,
    /// The owner of the task, when it has one.
    pub owner: Option<String>,
    /// The task.
    pub task_id: TaskId,
    /// The event, with its sequence number in the task's log.
    pub event: TaskEvent,
}

/// Sees every event of every task after it is stored: for audit logs and metrics.
///
/// The subscriber runs on a task of its own, fed by a bounded queue of
/// [`SUBSCRIBER_QUEUE_CAPACITY`] events: a turn never waits for it. When the subscriber
/// falls that far behind, newer events are dropped for it (a warning is logged and the
/// `a2a_subscriber_events_dropped_total` counter grows) until it catches up. It sees the
/// events stored by this process; drafts (never stored) are not shown.
#[async_trait::async_trait]
pub trait EventSubscriber: Send + Sync + 'static {
    /// Called once per stored event, in the order they were stored.
    async fn on_event(&self, event: ObservedEvent);
}

/// How many events an [`EventSubscriber`] may fall behind before new ones are dropped.
pub const SUBSCRIBER_QUEUE_CAPACITY: usize = 1024;

/// A subscriber and its queue's receiving end, before its task is spawned.
type NotStarted = (Arc<dyn EventSubscriber>, mpsc::Receiver<ObservedEvent>);

/// One registered subscriber: its queue, and until the first event the subscriber itself,
/// started on the runtime the first event is stored on.
pub(crate) struct Subscriber {
    sender: mpsc::Sender<ObservedEvent>,
    pending: Mutex<Option<NotStarted>>,
}

impl std::fmt::Debug for Subscriber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscriber").finish_non_exhaustive()
    }
}

impl Subscriber {
    pub(crate) fn new(subscriber: Arc<dyn EventSubscriber>) -> Self {
        let (sender, receiver) = mpsc::channel(SUBSCRIBER_QUEUE_CAPACITY);
        Self {
            sender,
            pending: Mutex::new(Some((subscriber, receiver))),
        }
    }

    /// Queues `event` without waiting; drops it when the subscriber is too far behind.
    fn offer(&self, event: ObservedEvent) {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some((subscriber, mut receiver)) = pending {
            tokio::spawn(async move {
                while let Some(event) = receiver.recv().await {
                    subscriber.on_event(event).await;
                }
            });
        }
        if self.sender.try_send(event).is_err() {
            metrics::counter!("a2a_subscriber_events_dropped_total").increment(1);
            tracing::warn!("an event subscriber is behind: an event was dropped for it");
        }
    }
}

/// Hands stored events to every subscriber.
pub(crate) fn observe(
    subscribers: &[Subscriber],
    scope: &TaskScope,
    task_id: &TaskId,
    events: &[TaskEvent],
) {
    for subscriber in subscribers {
        for event in events {
            subscriber.offer(ObservedEvent {
                tenant: scope.tenant.clone(),
                owner: scope.owner.clone(),
                task_id: task_id.clone(),
                event: event.clone(),
            });
        }
    }
}
