//! Agent runs on PostgreSQL, on the pool; loads are the [`Shared`] read.

use a2a_server::store::{Expected, StoreError, Version};
use a2a_types::TaskId;

use super::{Postgres, Shared};
use crate::error::backend;
use crate::rows::{RunRow, ScopeKey};

impl Postgres {
    /// A save: one statement, and on a refused update a lookup that tells a conflict (the
    /// run is there, at another version) from a missing run. A run deleted or created
    /// between the two gets the answer of the lookup, which is as true as the other.
    pub(crate) async fn save_run(
        &self,
        scope: ScopeKey,
        row: RunRow,
        expected: Expected,
    ) -> Result<Version, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        Shared::save_run(&mut conn, &scope, &row, expected)
            .await
            .map_err(backend)?
    }

    pub(crate) async fn delete_run(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
    ) -> Result<bool, StoreError> {
        Shared::delete_run(&self.pool, &scope, task_id.as_str())
            .await
            .map_err(backend)
    }
}
