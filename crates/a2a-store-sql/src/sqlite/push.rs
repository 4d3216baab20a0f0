//! Push configs on SQLite, and the claims and records of their deliveries. Writes go
//! through the writer, which runs one claim at a time, so no two claims see the same
//! webhook free.

use std::sync::Arc;

use a2a_server::store::{ClaimedWebhook, DeliveryProgress, StoreError};
use a2a_types::{TaskId, TaskPushNotificationConfig};

use super::{Shared, Sqlite};
use crate::error::{backend, json};
use crate::rows::{ScopeKey, claimed_webhooks, config_key, progress_columns, to_i64};
use crate::sql;

/// `$1` now, `$2` instance, `$3` claimed until, `$4` limit → the claimed webhooks
/// ([`ClaimRow`](crate::rows::ClaimRow)), the soonest due first.
const CLAIM_DELIVERIES: &str = concat!(
    "UPDATE push_configs SET claimed_by = $2, claimed_until = $3 \
     WHERE rowid IN (SELECT c.rowid ",
    sql::claimable!(),
    " ORDER BY c.next_attempt_at LIMIT $4) \
     RETURNING tenant, has_owner, owner, task_id, body, delivered_sequence, attempts"
);

/// `$1` now → a row when some webhook is due.
const ANY_DUE: &str = concat!("SELECT 1 ", sql::claimable!(), " LIMIT 1");

impl Sqlite {
    pub(crate) async fn save_push_config(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
        config: &TaskPushNotificationConfig,
        max_per_task: usize,
        deliver_after: u64,
    ) -> Result<(), StoreError> {
        let body = serde_json::to_string(config).map_err(json)?;
        let job = Arc::new((scope, task_id.as_str().to_owned(), config_key(config), body));
        let deliver_after = to_i64(deliver_after);
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (scope, task_id, config_id, body) = &*job;
                    // The writer runs one job at a time: no other save can pass the count
                    // meanwhile.
                    Shared::save_push_config(
                        conn,
                        scope,
                        task_id,
                        config_id,
                        body,
                        max_per_task,
                        deliver_after,
                    )
                    .await
                })
            })
            .await?
    }

    pub(crate) async fn delete_push_config(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
        config_id: &str,
    ) -> Result<bool, StoreError> {
        let job = Arc::new((scope, task_id.as_str().to_owned(), config_id.to_owned()));
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (scope, task_id, config_id) = &*job;
                    Shared::delete_push_config(conn, scope, task_id, config_id).await
                })
            })
            .await
    }

    /// Claims due webhooks in one statement; the writer runs one claim at a time, so no
    /// two claims see the same webhook free.
    pub(crate) async fn claim_deliveries(
        &self,
        instance: &str,
        now_ms: u64,
        claim_until_ms: u64,
        limit: usize,
    ) -> Result<Vec<ClaimedWebhook>, StoreError> {
        let (now, until, limit) = (to_i64(now_ms), to_i64(claim_until_ms), to_i64(limit));
        // Nothing due is the usual answer of a poll: the readers give it without a write
        // transaction queued behind the writer's saves.
        let due: Option<i64> = sqlx::query_scalar(ANY_DUE)
            .bind(now)
            .fetch_optional(&self.reads)
            .await
            .map_err(backend)?;
        if due.is_none() {
            return Ok(Vec::new());
        }
        let instance: Arc<str> = instance.into();
        let rows = self
            .writer
            .write(move |conn| {
                let instance = Arc::clone(&instance);
                Box::pin(async move {
                    Shared::claim_deliveries(conn, CLAIM_DELIVERIES, now, &instance, until, limit)
                        .await
                })
            })
            .await?;
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
        let job = Arc::new((
            scope,
            task_id.as_str().to_owned(),
            config_id.to_owned(),
            instance.to_owned(),
            progress_columns(&progress, instance),
        ));
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (scope, task_id, config_id, instance, progress) = &*job;
                    Shared::record_delivery(conn, scope, task_id, config_id, instance, progress)
                        .await
                })
            })
            .await
    }
}
