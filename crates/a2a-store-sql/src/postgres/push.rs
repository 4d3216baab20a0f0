//! Push configs on PostgreSQL, and the claims and records of their deliveries.

use a2a_server::store::{ClaimedWebhook, DeliveryProgress, StoreError};
use a2a_types::{TaskId, TaskPushNotificationConfig};

use super::{Postgres, Shared};
use crate::error::{backend, json};
use crate::rows::{ScopeKey, claimed_webhooks, config_key, progress_columns, to_i64};
use crate::sql;

/// `$1` now, `$2` instance, `$3` claimed until, `$4` limit → the claimed webhooks
/// ([`ClaimRow`](crate::rows::ClaimRow)). The candidates are locked in a CTE, which runs
/// once, so that no more than `$4` are claimed (a sub-select under `IN` may be run again by
/// the planner).
const CLAIM_DELIVERIES: &str = concat!(
    "WITH due AS (SELECT c.task_id, c.tenant, c.has_owner, c.owner, c.config_id ",
    sql::claimable!(),
    " ORDER BY c.next_attempt_at LIMIT $4 FOR UPDATE OF c SKIP LOCKED) \
     UPDATE push_configs AS c SET claimed_by = $2, claimed_until = $3 FROM due \
     WHERE c.task_id = due.task_id AND c.tenant = due.tenant \
     AND c.has_owner = due.has_owner AND c.owner = due.owner AND c.config_id = due.config_id \
     RETURNING c.tenant, c.has_owner, c.owner, c.task_id, c.body, c.delivered_sequence, \
     c.attempts"
);

impl Postgres {
    pub(crate) async fn save_push_config(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
        config: &TaskPushNotificationConfig,
        max_per_task: usize,
        deliver_after: u64,
    ) -> Result<(), StoreError> {
        let body = serde_json::to_string(config).map_err(json)?;
        let config_id = config_key(config);
        let mut tx = self.pool.begin().await.map_err(backend)?;
        // Saves for one task take turns, so that two new configs cannot both pass the
        // count. The lock ends with the transaction.
        sqlx::query("SELECT pg_advisory_xact_lock(6369889, hashtext($1))")
            .bind(task_id.as_str())
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        Shared::save_push_config(
            &mut tx,
            &scope,
            task_id.as_str(),
            &config_id,
            &body,
            max_per_task,
            to_i64(deliver_after),
        )
        .await
        .map_err(backend)??;
        tx.commit().await.map_err(backend)
    }

    pub(crate) async fn delete_push_config(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
        config_id: &str,
    ) -> Result<bool, StoreError> {
        Shared::delete_push_config(&self.pool, &scope, task_id.as_str(), config_id)
            .await
            .map_err(backend)
    }

    /// Claims due webhooks in one statement. `SKIP LOCKED`: instances claiming at once
    /// split the due webhooks between them instead of waiting for each other; a webhook
    /// another one claimed meanwhile fails the re-check of the claim condition on its new
    /// row, so none is handed out twice.
    pub(crate) async fn claim_deliveries(
        &self,
        instance: &str,
        now_ms: u64,
        claim_until_ms: u64,
        limit: usize,
    ) -> Result<Vec<ClaimedWebhook>, StoreError> {
        let rows = Shared::claim_deliveries(
            &self.pool,
            CLAIM_DELIVERIES,
            to_i64(now_ms),
            instance,
            to_i64(claim_until_ms),
            to_i64(limit),
        )
        .await
        .map_err(backend)?;
        Ok(claimed_webhooks(rows))
    }

    pub(crate) async fn record_delivery(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
        config_id: &str,
        instance: &str,
        progress: DeliveryProgress,
    ) -> Result<bool, StoreError> {
        Shared::record_delivery(
            &self.pool,
            &scope,
            task_id.as_str(),
            config_id,
            instance,
            &progress_columns(&progress, instance),
        )
        .await
        .map_err(backend)
    }
}
