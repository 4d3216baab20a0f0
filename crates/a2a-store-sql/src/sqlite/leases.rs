//! Turn leases on SQLite, written through the writer.

use std::sync::Arc;
use std::time::Duration;

use a2a_server::cluster::ExpiredLease;
use a2a_server::store::StoreError;
use a2a_types::TaskId;
use sqlx::SqliteConnection;

use super::{Shared, Sqlite};
use crate::error::json;
use crate::rows::{ExpiredRow, ScopeKey, expired_lease, millis_after, now_millis, to_i64};

impl Sqlite {
    pub(crate) async fn acquire_lease(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
    ) -> Result<bool, StoreError> {
        let job = Arc::new((scope, task_id.as_str().to_owned()));
        let (holder, ttl) = (Arc::clone(&self.instance_id), self.lease_ttl);
        self.writer
            .write(move |conn| {
                let (job, holder) = (Arc::clone(&job), Arc::clone(&holder));
                Box::pin(async move {
                    let (scope, task_id) = &*job;
                    Shared::acquire_lease(conn, scope, task_id, &holder, ttl).await
                })
            })
            .await
    }

    pub(crate) async fn renew_leases(&self, task_ids: &[TaskId]) -> Result<(), StoreError> {
        if task_ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<&str> = task_ids.iter().map(TaskId::as_str).collect();
        let ids: Arc<str> = serde_json::to_string(&ids).map_err(json)?.into();
        let (holder, ttl) = (Arc::clone(&self.instance_id), self.lease_ttl);
        self.writer
            .write(move |conn| {
                let (ids, holder) = (Arc::clone(&ids), Arc::clone(&holder));
                Box::pin(async move {
                    sqlx::query(
                        "UPDATE tasks SET lease_expires_at = $1 \
                         WHERE lease_holder = $2 AND task_id IN (SELECT value FROM json_each($3))",
                    )
                    .bind(millis_after(now_millis(), ttl))
                    .bind(&*holder)
                    .bind(&*ids)
                    .execute(&mut *conn)
                    .await?;
                    Ok(())
                })
            })
            .await
    }

    pub(crate) async fn release_lease(&self, task_id: &TaskId) -> Result<(), StoreError> {
        let task_id: Arc<str> = task_id.as_str().into();
        let holder = Arc::clone(&self.instance_id);
        self.writer
            .write(move |conn| {
                let (task_id, holder) = (Arc::clone(&task_id), Arc::clone(&holder));
                Box::pin(async move { Shared::release_lease(conn, &task_id, &holder).await })
            })
            .await
    }

    pub(crate) async fn claim_expired_leases(
        &self,
        limit: usize,
    ) -> Result<Vec<ExpiredLease>, StoreError> {
        let (holder, ttl) = (Arc::clone(&self.instance_id), self.lease_ttl);
        self.writer
            .write(move |conn| {
                let holder = Arc::clone(&holder);
                Box::pin(async move { claim_expired(conn, &holder, ttl, limit).await })
            })
            .await
    }
}

/// Takes over up to `limit` expired leases of unfinished tasks for `holder`, the longest
/// expired first; the writer runs one claim at a time, so none is claimed twice.
async fn claim_expired(
    conn: &mut SqliteConnection,
    holder: &str,
    ttl: Duration,
    limit: usize,
) -> Result<Vec<ExpiredLease>, sqlx::Error> {
    let now = now_millis();
    let rows: Vec<ExpiredRow> = sqlx::query_as(
        "SELECT task_id, tenant, has_owner, owner, lease_holder FROM tasks \
         WHERE lease_expires_at <= $1 AND terminal_at IS NULL \
         ORDER BY lease_expires_at, task_id LIMIT $2",
    )
    .bind(now)
    .bind(to_i64(limit))
    .fetch_all(&mut *conn)
    .await?;
    for (task_id, ..) in &rows {
        sqlx::query("UPDATE tasks SET lease_holder = $1, lease_expires_at = $2 WHERE task_id = $3")
            .bind(holder)
            .bind(millis_after(now, ttl))
            .bind(task_id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(rows.into_iter().map(expired_lease).collect())
}
