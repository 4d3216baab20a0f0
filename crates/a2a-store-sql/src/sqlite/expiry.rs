//! Deleting expired tasks on SQLite, with their events, push configs, runs and send keys, a batch per
//! writer job so that a large pass does not hold the write lock long.

use a2a_server::store::StoreError;
use sqlx::SqliteConnection;

use super::Sqlite;
use crate::rows::{now_millis, to_u64};

/// Expired tasks deleted per cleanup transaction, so that a large pass does not hold the
/// write lock long.
const CLEANUP_BATCH: i64 = 500;

impl Sqlite {
    /// Deletes up to [`CLEANUP_BATCH`] expired tasks per transaction, with their events,
    /// push configs and runs, until none is left; returns how many.
    pub(crate) async fn delete_expired(&self) -> Result<u64, StoreError> {
        let mut deleted = 0;
        loop {
            let now = now_millis();
            let batch = self
                .writer
                .write(move |conn| Box::pin(delete_expired(conn, now)))
                .await?;
            deleted += batch;
            if batch < to_u64(CLEANUP_BATCH) {
                return Ok(deleted);
            }
        }
    }
}

async fn delete_expired(conn: &mut SqliteConnection, now: i64) -> Result<u64, sqlx::Error> {
    let doomed: Vec<(i64, String)> =
        sqlx::query_as("SELECT task_key, task_id FROM tasks WHERE expires_at <= $1 LIMIT $2")
            .bind(now)
            .bind(CLEANUP_BATCH)
            .fetch_all(&mut *conn)
            .await?;
    if doomed.is_empty() {
        return Ok(0);
    }
    let (keys, ids): (Vec<i64>, Vec<String>) = doomed.into_iter().unzip();
    let encode = |error| sqlx::Error::Encode(Box::new(error));
    let (keys, ids) = (
        serde_json::to_string(&keys).map_err(encode)?,
        serde_json::to_string(&ids).map_err(encode)?,
    );
    let statements = [
        (
            "DELETE FROM push_configs WHERE task_id IN (SELECT value FROM json_each($1))",
            &ids,
        ),
        (
            "DELETE FROM runs WHERE task_id IN (SELECT value FROM json_each($1))",
            &ids,
        ),
        (
            "DELETE FROM send_keys WHERE task_id IN (SELECT value FROM json_each($1))",
            &ids,
        ),
        (
            "DELETE FROM task_events WHERE task_key IN (SELECT value FROM json_each($1))",
            &keys,
        ),
        (
            "DELETE FROM tasks WHERE task_key IN (SELECT value FROM json_each($1))",
            &keys,
        ),
    ];
    let mut deleted = 0;
    for (statement, list) in statements {
        deleted = sqlx::query(statement)
            .bind(list)
            .execute(&mut *conn)
            .await?
            .rows_affected();
    }
    // The tasks, the last statement's.
    Ok(deleted)
}
