//! [`InMemoryRunStore`]: runs in this process's memory, lost when it stops.

use std::collections::HashMap;
use std::sync::Mutex;

use a2a_server::store::{Expected, StoreError, TaskScope, Version};
use a2a_types::TaskId;
use async_trait::async_trait;

use super::{RunStore, StoredRun};
use crate::run::Run;

/// Runs kept in memory: for one instance without a durable store, and for tests.
#[derive(Debug, Default)]
pub struct InMemoryRunStore {
    runs: Mutex<HashMap<TaskId, (TaskScope, StoredRun)>>,
}

impl InMemoryRunStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn runs(&self) -> std::sync::MutexGuard<'_, HashMap<TaskId, (TaskScope, StoredRun)>> {
        // A panic while holding the lock cannot leave a half-written entry (every change is
        // one insert or remove), so a poisoned lock is still consistent.
        self.runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl RunStore for InMemoryRunStore {
    async fn load(&self, scope: &TaskScope, id: &TaskId) -> Result<Option<StoredRun>, StoreError> {
        Ok(self
            .runs()
            .get(id)
            .filter(|(owner, _)| owner == scope)
            .map(|(_, stored)| stored.clone()))
    }

    async fn save(
        &self,
        scope: &TaskScope,
        run: &Run,
        expected: Expected,
    ) -> Result<Version, StoreError> {
        let mut runs = self.runs();
        let current = runs.get(&run.task_id);
        let version = match (expected, current) {
            (Expected::Absent, None) => Version(1),
            (Expected::Absent, Some(_)) => {
                return Err(StoreError::Conflict {
                    task_id: run.task_id.clone(),
                });
            }
            (Expected::Version(_), None) => {
                return Err(StoreError::NotFound {
                    task_id: run.task_id.clone(),
                });
            }
            (Expected::Version(expected), Some((owner, stored))) => {
                if owner != scope {
                    return Err(StoreError::NotFound {
                        task_id: run.task_id.clone(),
                    });
                }
                if stored.version != expected {
                    return Err(StoreError::Conflict {
                        task_id: run.task_id.clone(),
                    });
                }
                Version(expected.0 + 1)
            }
        };
        runs.insert(
            run.task_id.clone(),
            (
                scope.clone(),
                StoredRun {
                    run: run.clone(),
                    version,
                },
            ),
        );
        Ok(version)
    }

    async fn delete(&self, scope: &TaskScope, id: &TaskId) -> Result<bool, StoreError> {
        let mut runs = self.runs();
        if runs.get(id).is_some_and(|(owner, _)| owner == scope) {
            runs.remove(id);
            return Ok(true);
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_memory_store_passes_the_conformance_suite() {
        crate::store::conformance::run_all(&InMemoryRunStore::new()).await;
    }
}
