//! [`PushConfigStore`]: the webhooks registered for tasks (spec §2.7–§2.10, STO-11), and
//! [`InMemoryPushConfigStore`], the default one.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};

use a2a_types::{PushConfigId, TaskId, TaskPushNotificationConfig};
use async_trait::async_trait;

use super::{StoreError, TaskScope};

/// How many push configs one task may hold by default (STO-11).
pub const DEFAULT_MAX_PUSH_CONFIGS_PER_TASK: usize = 100;

/// Storage of push-notification configs, keyed by (scope, task id, config id).
///
/// Implementations must guarantee:
/// - **Scope isolation**: a config is only visible under the [`TaskScope`] it was saved with.
/// - **Replace by id**: saving a config whose id the task already holds replaces it and does
///   not count toward the limit (STO-11).
/// - **Limit**: saving a new config for a task that holds `max_per_task` already fails with
///   [`StoreError::Limit`] and stores nothing.
/// - **Order**: `list` returns a task's configs ordered by config id.
///
/// Callers give configs with their `task_id` and `id` set; the store keeps them as given.
#[async_trait]
pub trait PushConfigStore: Send + Sync + 'static {
    /// Creates or replaces a config of `task_id`.
    async fn save_push_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config: &TaskPushNotificationConfig,
        max_per_task: usize,
    ) -> Result<(), StoreError>;

    /// One config of a task, or `None`.
    async fn get_push_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config_id: &PushConfigId,
    ) -> Result<Option<TaskPushNotificationConfig>, StoreError>;

    /// Every config of a task, ordered by id.
    async fn list_push_configs(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
    ) -> Result<Vec<TaskPushNotificationConfig>, StoreError>;

    /// Deletes one config; `false` when there was none.
    async fn delete_push_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config_id: &PushConfigId,
    ) -> Result<bool, StoreError>;
}

type Configs = BTreeMap<String, TaskPushNotificationConfig>;

/// A [`PushConfigStore`] in the process's memory.
#[derive(Debug, Default)]
pub struct InMemoryPushConfigStore {
    configs: Mutex<HashMap<(TaskScope, TaskId), Configs>>,
}

impl InMemoryPushConfigStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(TaskScope, TaskId), Configs>> {
        self.configs.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn config_key(config: &TaskPushNotificationConfig) -> String {
    config
        .id
        .as_ref()
        .map(|id| id.as_str().to_owned())
        .unwrap_or_default()
}

#[async_trait]
impl PushConfigStore for InMemoryPushConfigStore {
    async fn save_push_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config: &TaskPushNotificationConfig,
        max_per_task: usize,
    ) -> Result<(), StoreError> {
        let mut all = self.lock();
        let configs = all.entry((scope.clone(), task_id.clone())).or_default();
        let key = config_key(config);
        if !configs.contains_key(&key) && configs.len() >= max_per_task {
            return Err(StoreError::Limit {
                what: format!("task {task_id} already holds {max_per_task} push configs"),
            });
        }
        configs.insert(key, config.clone());
        Ok(())
    }

    async fn get_push_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config_id: &PushConfigId,
    ) -> Result<Option<TaskPushNotificationConfig>, StoreError> {
        Ok(self
            .lock()
            .get(&(scope.clone(), task_id.clone()))
            .and_then(|configs| configs.get(config_id.as_str()))
            .cloned())
    }

    async fn list_push_configs(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
    ) -> Result<Vec<TaskPushNotificationConfig>, StoreError> {
        Ok(self
            .lock()
            .get(&(scope.clone(), task_id.clone()))
            .map(|configs| configs.values().cloned().collect())
            .unwrap_or_default())
    }

    async fn delete_push_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config_id: &PushConfigId,
    ) -> Result<bool, StoreError> {
        let mut all = self.lock();
        let key = (scope.clone(), task_id.clone());
        let Some(configs) = all.get_mut(&key) else {
            return Ok(false);
        };
        let removed = configs.remove(config_id.as_str()).is_some();
        if configs.is_empty() {
            all.remove(&key);
        }
        Ok(removed)
    }
}
