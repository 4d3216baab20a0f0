//! The turns running (or queued) in this process, by task: the engine's registry, which knows
//! a turn only through [`RunningTurn`], what the engine, admission and shutdown ask of it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use a2a_types::{Task, TaskId};
use tokio::sync::watch;

use super::view::TurnView;
use crate::store::TaskScope;

/// What the engine, admission and shutdown ask of a registered turn.
#[async_trait::async_trait]
pub(super) trait RunningTurn: Send + Sync + std::fmt::Debug {
    /// The scope the turn's task is stored under.
    fn scope(&self) -> &TaskScope;

    /// A receiver of the turn's view (for a subscriber that joins it).
    fn watch(&self) -> watch::Receiver<TurnView>;

    /// Ends the turn because the task was canceled, and fires its cancellation.
    fn end_canceled(&self, task: Task);

    /// True once the turn ended.
    fn is_ended(&self) -> bool;

    /// Fails the task with `text` unless the turn already ended.
    async fn fail(&self, text: &str);

    /// Fires the turn's cancellation (wakes a queued turn's wait for a slot).
    fn cancel(&self);
}

/// The running turns by task id.
#[derive(Debug, Default)]
pub(super) struct RunningTurns {
    turns: Mutex<HashMap<TaskId, Arc<dyn RunningTurn>>>,
}

impl RunningTurns {
    fn turns(&self) -> MutexGuard<'_, HashMap<TaskId, Arc<dyn RunningTurn>>> {
        self.turns.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The running turn of `task_id`.
    pub(super) fn get(&self, task_id: &TaskId) -> Option<Arc<dyn RunningTurn>> {
        self.turns().get(task_id).cloned()
    }

    /// Registers `turn` as the running turn of `task_id`.
    pub(super) fn insert(&self, task_id: TaskId, turn: Arc<dyn RunningTurn>) {
        self.turns().insert(task_id, turn);
    }

    /// Forgets `task_id`'s turn if it is still `turn` (a newer turn of the task stays).
    pub(super) fn remove<T>(&self, task_id: &TaskId, turn: &T) {
        let mut turns = self.turns();
        if turns.get(task_id).is_some_and(|registered| {
            std::ptr::addr_eq(Arc::as_ptr(registered), std::ptr::from_ref(turn))
        }) {
            turns.remove(task_id);
        }
    }

    /// The task ids of every registered turn.
    pub(super) fn task_ids(&self) -> Vec<TaskId> {
        self.turns().keys().cloned().collect()
    }

    /// Every registered turn.
    pub(super) fn all(&self) -> Vec<Arc<dyn RunningTurn>> {
        self.turns().values().cloned().collect()
    }
}
