//! Joining a task's events: under the task's lock, subscribe to its bus, then load it, so no
//! event falls between the stored task (or a replay of its log) and the live events.

use tokio::sync::watch;

use a2a_types::{A2aError, TaskId};

use super::engine::Engine;
use super::view::TurnView;
use crate::store::{StoredTask, TaskScope};

/// A task joined: its live events from now on, the stored task, and the view of the turn
/// that runs it here, if one does.
#[derive(Debug)]
pub(crate) struct Subscription {
    pub(crate) events: crate::events::EventReceiver,
    pub(crate) stored: StoredTask,
    pub(crate) running: Option<watch::Receiver<TurnView>>,
}

impl Engine {
    /// Subscribes to the events of `task_id` in `scope`.
    ///
    /// # Errors
    /// TaskNotFound; InternalError when the store fails.
    pub(crate) async fn subscribe(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
    ) -> Result<Subscription, A2aError> {
        let guard = self.locks.lock(task_id).await;
        let events = self.events.subscribe(task_id, scope);
        let Some(stored) = self.load(scope, task_id).await? else {
            drop(guard);
            return Err(self.missing_task(scope, task_id).await);
        };
        let running = self.running_turn(task_id).map(|turn| turn.watch());
        Ok(Subscription {
            events,
            stored,
            running,
        })
    }
}
