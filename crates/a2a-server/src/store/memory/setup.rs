//! Making an in-memory store, reaching its state, and showing it without its tasks.

use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::{InMemoryTaskStore, InMemoryTaskStoreConfig, Tasks};

impl Default for InMemoryTaskStoreConfig {
    fn default() -> Self {
        Self {
            completed_task_ttl: Duration::from_secs(60 * 60),
            max_stored_tasks: 10_000,
            keep_finished_event_logs: false,
            cleanup_interval: super::CLEANUP_INTERVAL,
        }
    }
}

impl InMemoryTaskStore {
    /// An empty store with the default [`InMemoryTaskStoreConfig`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_config(InMemoryTaskStoreConfig::default())
    }

    /// An empty store with `config`.
    #[must_use]
    pub fn with_config(config: InMemoryTaskStoreConfig) -> Self {
        Self {
            retain_logs: std::sync::atomic::AtomicBool::new(config.keep_finished_event_logs),
            config,
            tasks: Mutex::new(Tasks::default()),
        }
    }

    /// The settings this store was made with.
    #[must_use]
    pub fn config(&self) -> &InMemoryTaskStoreConfig {
        &self.config
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Tasks> {
        // No critical section calls foreign code or can stop half-way through an update
        // (only allocation failure could, and that aborts), so data behind a poisoned lock
        // is still consistent and refusing it would only turn one panic into many.
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for InMemoryTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("InMemoryTaskStore");
        debug.field("config", &self.config);
        // `try_lock`: formatting must not deadlock when the caller holds the lock.
        if let Ok(tasks) = self.tasks.try_lock() {
            debug.field("stored_tasks", &tasks.by_id.len());
        }
        debug.finish_non_exhaustive()
    }
}
