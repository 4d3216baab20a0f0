//! [`PushConfigStore`]: the webhooks registered for tasks (spec §2.7–§2.10), and
//! [`InMemoryPushConfigStore`], the default one.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};

use a2a_types::{PushConfigId, TaskId, TaskPushNotificationConfig};
use async_trait::async_trait;

use super::{StoreError, TaskScope};

pub use crate::config::DEFAULT_MAX_PUSH_CONFIGS_PER_TASK;

/// Storage of push-notification configs, keyed by (scope, task id, config id).
///
/// Implementations must guarantee:
/// - **Scope isolation**: a config is only visible under the [`TaskScope`] it was saved with.
/// - **Replace by id**: saving a config whose id the task already holds replaces it and does
///   not count toward the limit.
/// - **Limit**: saving a new config for a task that holds `max_per_task` already fails with
///   [`StoreError::Limit`] and stores nothing.
/// - **Order**: `list` returns a task's configs ordered by config id.
///
/// Callers give configs with their `task_id` and `id` set; the store keeps them as given.
#[async_trait]
pub trait PushConfigStore: Send + Sync + 'static {
    /// Creates or replaces a config of `task_id`. A new config is sent the task's events
    /// after sequence `deliver_after` (the log's end when it is registered, 0 for a task not
    /// created yet); a replaced one keeps its delivery progress.
    async fn save_push_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config: &TaskPushNotificationConfig,
        max_per_task: usize,
        deliver_after: u64,
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

    /// The task's event log now ends at `last_sequence`. The engine calls it after every
    /// save that logged events, so a store that cannot see the task store learns which
    /// webhooks have events due; a store that can (a SQL store joins its tasks table) may
    /// ignore it.
    async fn events_logged(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        last_sequence: u64,
    ) -> Result<(), StoreError>;

    /// Claims, for `instance` until `claim_until_ms` (Unix milliseconds), up to `limit`
    /// webhooks whose task logged events after their `delivered` sequence, whose next
    /// attempt is due (`next_attempt_at <= now_ms`) and that no live claim holds. Until it
    /// is released or its claim passes, a claimed webhook is handed to nobody else: with
    /// several instances, each event goes out from one of them.
    async fn claim_deliveries(
        &self,
        instance: &str,
        now_ms: u64,
        claim_until_ms: u64,
        limit: usize,
    ) -> Result<Vec<ClaimedWebhook>, StoreError>;

    /// Records a claimed webhook's progress. Only the instance holding a live claim may:
    /// `Ok(false)` (and nothing changes) when it no longer does, or the config is gone.
    async fn record_delivery(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config_id: &PushConfigId,
        instance: &str,
        progress: DeliveryProgress,
    ) -> Result<bool, StoreError>;
}

/// A webhook with events to send, claimed by one instance.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClaimedWebhook {
    /// The task's scope.
    pub scope: TaskScope,
    /// The task.
    pub task_id: TaskId,
    /// The webhook (with its id and task id set).
    pub config: TaskPushNotificationConfig,
    /// The last event sequence delivered or given up on; the events after it are due.
    pub delivered: u64,
    /// Failed attempts at the event after `delivered`.
    pub attempts: u32,
}

impl ClaimedWebhook {
    /// A claimed webhook, for store implementations.
    #[must_use]
    pub fn new(
        scope: TaskScope,
        task_id: TaskId,
        config: TaskPushNotificationConfig,
        delivered: u64,
        attempts: u32,
    ) -> Self {
        Self {
            scope,
            task_id,
            config,
            delivered,
            attempts,
        }
    }
}

/// Where a claimed webhook's delivery stands after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeliveryProgress {
    /// The last event sequence delivered or given up on.
    pub delivered: u64,
    /// Failed attempts at the next event.
    pub attempts: u32,
    /// Unix milliseconds before which the webhook is not claimed again (retry backoff).
    pub next_attempt_at_ms: u64,
    /// `Some(ms)`: the claim goes on until then (the round continues); `None`: released.
    pub claimed_until_ms: Option<u64>,
}

impl DeliveryProgress {
    /// Progress as given.
    #[must_use]
    pub fn new(
        delivered: u64,
        attempts: u32,
        next_attempt_at_ms: u64,
        claimed_until_ms: Option<u64>,
    ) -> Self {
        Self {
            delivered,
            attempts,
            next_attempt_at_ms,
            claimed_until_ms,
        }
    }

    /// Every event of a finished task delivered: released, and never due again. A
    /// terminal task logs nothing more, so the claim need not look at its webhook: the
    /// stores keep due webhooks in the order of `next_attempt_at_ms`, and this one sorts
    /// after every time.
    #[must_use]
    pub fn settled(delivered: u64) -> Self {
        Self::new(delivered, 0, u64::MAX, None)
    }
}

/// A config and where its delivery stands.
#[derive(Debug, Clone)]
struct Registered {
    config: TaskPushNotificationConfig,
    delivered: u64,
    attempts: u32,
    next_attempt_at_ms: u64,
    claim: Option<(String, u64)>,
}

/// A task's configs by id, and the end of its event log as last reported.
#[derive(Debug, Default)]
struct Configs {
    by_id: BTreeMap<String, Registered>,
    last_sequence: u64,
}

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
        deliver_after: u64,
    ) -> Result<(), StoreError> {
        let mut all = self.lock();
        let configs = all.entry((scope.clone(), task_id.clone())).or_default();
        let key = config_key(config);
        let held = configs.by_id.len();
        match configs.by_id.get_mut(&key) {
            Some(existing) => existing.config = config.clone(),
            None if held >= max_per_task => {
                return Err(StoreError::Limit {
                    what: format!("task {task_id} already holds {max_per_task} push configs"),
                });
            }
            None => {
                configs.by_id.insert(
                    key,
                    Registered {
                        config: config.clone(),
                        delivered: deliver_after,
                        attempts: 0,
                        next_attempt_at_ms: 0,
                        claim: None,
                    },
                );
            }
        }
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
            .and_then(|configs| configs.by_id.get(config_id.as_str()))
            .map(|registered| registered.config.clone()))
    }

    async fn list_push_configs(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
    ) -> Result<Vec<TaskPushNotificationConfig>, StoreError> {
        Ok(self
            .lock()
            .get(&(scope.clone(), task_id.clone()))
            .map(|configs| {
                configs
                    .by_id
                    .values()
                    .map(|registered| registered.config.clone())
                    .collect()
            })
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
        let removed = configs.by_id.remove(config_id.as_str()).is_some();
        if configs.by_id.is_empty() {
            all.remove(&key);
        }
        Ok(removed)
    }

    async fn events_logged(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        last_sequence: u64,
    ) -> Result<(), StoreError> {
        // Only tasks with configs are tracked: a task without webhooks costs one lookup.
        if let Some(configs) = self.lock().get_mut(&(scope.clone(), task_id.clone())) {
            configs.last_sequence = configs.last_sequence.max(last_sequence);
        }
        Ok(())
    }

    async fn claim_deliveries(
        &self,
        instance: &str,
        now_ms: u64,
        claim_until_ms: u64,
        limit: usize,
    ) -> Result<Vec<ClaimedWebhook>, StoreError> {
        let mut all = self.lock();
        let mut claimed = Vec::new();
        for ((scope, task_id), configs) in all.iter_mut() {
            let last_sequence = configs.last_sequence;
            for registered in configs.by_id.values_mut() {
                if claimed.len() >= limit {
                    return Ok(claimed);
                }
                let free = registered
                    .claim
                    .as_ref()
                    .is_none_or(|(_, until)| *until <= now_ms);
                if free
                    && registered.delivered < last_sequence
                    && registered.next_attempt_at_ms <= now_ms
                {
                    registered.claim = Some((instance.to_owned(), claim_until_ms));
                    claimed.push(ClaimedWebhook::new(
                        scope.clone(),
                        task_id.clone(),
                        registered.config.clone(),
                        registered.delivered,
                        registered.attempts,
                    ));
                }
            }
        }
        Ok(claimed)
    }

    async fn record_delivery(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config_id: &PushConfigId,
        instance: &str,
        progress: DeliveryProgress,
    ) -> Result<bool, StoreError> {
        let mut all = self.lock();
        let Some(registered) = all
            .get_mut(&(scope.clone(), task_id.clone()))
            .and_then(|configs| configs.by_id.get_mut(config_id.as_str()))
        else {
            return Ok(false);
        };
        if registered
            .claim
            .as_ref()
            .is_none_or(|(holder, _)| holder != instance)
        {
            return Ok(false);
        }
        registered.delivered = progress.delivered;
        registered.attempts = progress.attempts;
        registered.next_attempt_at_ms = progress.next_attempt_at_ms;
        registered.claim = progress
            .claimed_until_ms
            .map(|until| (instance.to_owned(), until));
        Ok(true)
    }
}
