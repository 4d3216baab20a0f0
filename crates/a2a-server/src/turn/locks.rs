//! [`TaskLocks`]: one async mutex per task, so updates, cancels and follow-ups of a task never
//! interleave within a process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use a2a_types::TaskId;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// A map of per-task locks whose entries disappear when nobody holds or waits for them.
#[derive(Debug, Default)]
pub(crate) struct TaskLocks {
    locks: Mutex<Locks>,
}

#[derive(Debug, Default)]
struct Locks {
    by_task: HashMap<TaskId, Weak<AsyncMutex<()>>>,
    /// The size at which the next sweep of dead entries runs: twice what the last sweep
    /// left (at least [`SWEEP_FROM`]), so that sweeping stays O(1) per new entry however
    /// many turns hold their locks.
    sweep_at: usize,
}

/// The fewest entries the map sweeps at.
const SWEEP_FROM: usize = 1024;

/// The lock of one task, as [`TaskLocks::get`] hands it out: whoever holds it keeps the
/// task's entry alive, so every other caller asking for the same task gets the same lock.
pub(crate) type TaskLock = Arc<AsyncMutex<()>>;

impl TaskLocks {
    /// The lock of `task_id`. A turn takes it once and keeps it, so each of its updates
    /// locks it directly: looking it up per update made a new map entry (an id copy and an
    /// allocation) every time, as nobody held the lock between two updates.
    pub(crate) fn get(&self, task_id: &TaskId) -> TaskLock {
        let mut locks = self
            .locks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(lock) = locks.by_task.get(task_id).and_then(Weak::upgrade) {
            return lock;
        }
        // Sweep dead entries now and then so the map does not grow with every task ever
        // seen.
        if locks.by_task.len() >= locks.sweep_at.max(SWEEP_FROM) {
            locks.by_task.retain(|_, lock| lock.strong_count() > 0);
            locks.sweep_at = locks.by_task.len() * 2;
        }
        let lock = Arc::new(AsyncMutex::new(()));
        locks.by_task.insert(task_id.clone(), Arc::downgrade(&lock));
        lock
    }

    /// Waits for the lock of `task_id`.
    pub(crate) async fn lock(&self, task_id: &TaskId) -> OwnedMutexGuard<()> {
        self.get(task_id).lock_owned().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_same_task_is_locked_once_and_other_tasks_are_not_blocked() {
        let locks = TaskLocks::default();
        let a = TaskId::new("a");
        let guard = locks.lock(&a).await;
        let b = TaskId::new("b");
        let other = tokio::time::timeout(std::time::Duration::from_millis(50), locks.lock(&b));
        assert!(other.await.is_ok());
        let same = tokio::time::timeout(std::time::Duration::from_millis(50), locks.lock(&a));
        assert!(same.await.is_err());
        drop(guard);
        drop(locks.lock(&a).await);
    }

    #[test]
    fn dead_entries_are_swept_and_live_ones_kept() {
        let locks = TaskLocks::default();
        let kept: Vec<TaskLock> = (0..SWEEP_FROM)
            .map(|index| locks.get(&TaskId::new(format!("live-{index}"))))
            .collect();
        for index in 0..SWEEP_FROM {
            drop(locks.get(&TaskId::new(format!("dead-{index}"))));
        }
        let map = locks.locks.lock().unwrap();
        assert!(map.by_task.len() <= SWEEP_FROM * 2, "{}", map.by_task.len());
        assert!(
            map.sweep_at >= SWEEP_FROM * 2,
            "the next sweep waits for the map to double"
        );
        drop(map);
        for (index, lock) in kept.iter().enumerate() {
            let again = locks.get(&TaskId::new(format!("live-{index}")));
            assert!(Arc::ptr_eq(lock, &again), "a held lock is never swept");
        }
    }

    #[tokio::test]
    async fn a_kept_lock_is_the_one_every_other_caller_waits_for() {
        let locks = TaskLocks::default();
        let a = TaskId::new("a");
        let kept = locks.get(&a);
        let guard = kept.lock().await;
        let same = tokio::time::timeout(std::time::Duration::from_millis(50), locks.lock(&a));
        assert!(same.await.is_err(), "the map hands out the kept lock");
        drop(guard);
        drop(locks.lock(&a).await);
    }
}
