//! Listing tasks and reading their event logs, and the shared secret. Locating and loading
//! a task are the [`Shared`] reads, on [`Postgres::reads`].

use a2a_server::TaskEvent;
use a2a_server::store::{StoreError, TaskPage, TaskQuery};
use a2a_types::TaskId;
use sqlx::Connection;
use sqlx::PgPool;

use super::{Postgres, Shared};
use crate::error::backend;
use crate::rows::ScopeKey;
use crate::sends::SendClaim;
use crate::sql;

impl Postgres {
    /// The pool the [`Shared`] reads run on: the one pool, which writes use too.
    pub(crate) fn reads(&self) -> &PgPool {
        &self.pool
    }

    /// The secret `name`, `offer` kept as it when none was stored yet.
    pub(crate) async fn shared_secret(
        &self,
        name: &str,
        offer: Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        Shared::shared_secret(&mut conn, name, &offer)
            .await
            .map_err(backend)
    }

    /// Claims a send key (see [`Shared::claim_send`]). Of two racing claims, the second's
    /// insert waits for the first to commit, then finds its row.
    pub(crate) async fn claim_send(
        &self,
        claim: SendClaim,
    ) -> Result<Option<(String, String)>, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        Shared::claim_send(&mut conn, &claim).await.map_err(backend)
    }

    /// Forgets a send key's claim for `task_id`.
    pub(crate) async fn release_send(
        &self,
        scope: ScopeKey,
        key: &str,
        task_id: &str,
    ) -> Result<(), StoreError> {
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        Shared::release_send(&mut conn, &scope, key, task_id)
            .await
            .map_err(backend)
    }

    pub(crate) async fn list(
        &self,
        scope: &ScopeKey,
        query: &TaskQuery,
    ) -> Result<TaskPage, StoreError> {
        // REPEATABLE READ: the count and the page see the same tasks.
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        let tx = conn
            .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .await
            .map_err(backend)?;
        Shared::list(tx, scope, query).await
    }

    pub(crate) async fn events(
        &self,
        scope: &ScopeKey,
        id: &TaskId,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<TaskEvent>>, StoreError> {
        Shared::events(&self.pool, sql::LOAD_EVENTS, scope, id, after, limit).await
    }
}
