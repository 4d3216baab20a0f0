//! Deleting expired tasks on PostgreSQL, with their events, push configs, runs and send keys.

use a2a_server::store::StoreError;

use super::Postgres;
use crate::error::backend;
use crate::rows::{now_millis, to_u64};

/// Expired tasks deleted per cleanup statement.
const CLEANUP_BATCH: i64 = 500;

impl Postgres {
    /// Deletes expired tasks, [`CLEANUP_BATCH`] per statement, with their events, push
    /// configs, runs and send keys; returns how many. Rows another instance is deleting are skipped.
    pub(crate) async fn delete_expired(&self) -> Result<u64, StoreError> {
        let mut deleted = 0;
        loop {
            let done = sqlx::query(
                "WITH doomed AS (SELECT task_id FROM tasks WHERE expires_at <= $1 \
                 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED), \
                 configs AS (DELETE FROM push_configs \
                 WHERE task_id IN (SELECT task_id FROM doomed)), \
                 events AS (DELETE FROM task_events \
                 WHERE task_id IN (SELECT task_id FROM doomed)), \
                 runs AS (DELETE FROM runs WHERE task_id IN (SELECT task_id FROM doomed)), \
                 keys AS (DELETE FROM send_keys \
                 WHERE task_id IN (SELECT task_id FROM doomed)) \
                 DELETE FROM tasks WHERE task_id IN (SELECT task_id FROM doomed)",
            )
            .bind(now_millis())
            .bind(CLEANUP_BATCH)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
            deleted += done.rows_affected();
            if done.rows_affected() < to_u64(CLEANUP_BATCH) {
                return Ok(deleted);
            }
        }
    }
}
