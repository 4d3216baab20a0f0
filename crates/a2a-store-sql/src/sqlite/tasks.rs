//! Reading tasks and their event logs from the reader pool, and the shared secret, which
//! the writer keeps.

use std::sync::Arc;

use a2a_server::TaskEvent;
use a2a_server::store::{StoreError, TaskPage, TaskQuery};
use a2a_types::TaskId;
use sqlx::SqlitePool;

use super::{Shared, Sqlite};
use crate::error::backend;
use crate::rows::ScopeKey;
use crate::sends::SendClaim;

/// [`sql::LOAD_EVENTS`](crate::sql::LOAD_EVENTS) for SQLite, whose events are keyed by the
/// task's `task_key`.
const LOAD_EVENTS: &str = "SELECT e.sequence, e.body FROM tasks t \
     LEFT JOIN task_events e ON e.task_key = t.task_key AND e.sequence > $5 \
     WHERE t.task_id = $1 AND t.tenant = $2 AND t.has_owner = $3 AND t.owner = $4 \
     AND (t.expires_at IS NULL OR t.expires_at > $6) \
     ORDER BY e.sequence LIMIT $7";

impl Sqlite {
    /// The reader pool the [`Shared`] reads run on; writes go through the writer.
    pub(crate) fn reads(&self) -> &SqlitePool {
        &self.reads
    }

    /// The secret `name`, `offer` kept as it when none was stored yet.
    pub(crate) async fn shared_secret(
        &self,
        name: &str,
        offer: Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        let job = Arc::new((name.to_owned(), offer));
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (name, offer) = &*job;
                    Shared::shared_secret(conn, name, offer).await
                })
            })
            .await
    }

    /// Claims a send key (see [`Shared::claim_send`]) on the writer, which runs one write
    /// at a time.
    pub(crate) async fn claim_send(
        &self,
        claim: SendClaim,
    ) -> Result<Option<(String, String)>, StoreError> {
        let claim = Arc::new(claim);
        self.writer
            .write(move |conn| {
                let claim = Arc::clone(&claim);
                Box::pin(async move { Shared::claim_send(conn, &claim).await })
            })
            .await
    }

    /// Forgets a send key's claim for `task_id`.
    pub(crate) async fn release_send(
        &self,
        scope: ScopeKey,
        key: &str,
        task_id: &str,
    ) -> Result<(), StoreError> {
        let job = Arc::new((scope, key.to_owned(), task_id.to_owned()));
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (scope, key, task_id) = &*job;
                    Shared::release_send(conn, scope, key, task_id).await
                })
            })
            .await
    }

    pub(crate) async fn list(
        &self,
        scope: &ScopeKey,
        query: &TaskQuery,
    ) -> Result<TaskPage, StoreError> {
        // One read transaction, so that the count and the page see the same tasks.
        let tx = self.reads.begin().await.map_err(backend)?;
        Shared::list(tx, scope, query).await
    }

    pub(crate) async fn events(
        &self,
        scope: &ScopeKey,
        id: &TaskId,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<TaskEvent>>, StoreError> {
        Shared::events(&self.reads, LOAD_EVENTS, scope, id, after, limit).await
    }
}
