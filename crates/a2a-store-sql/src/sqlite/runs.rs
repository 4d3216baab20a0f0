//! Agent runs on SQLite: saves and deletes go through the writer, as every write does;
//! loads are the [`Shared`] read on the reader pool.

use std::sync::Arc;

use a2a_server::store::{Expected, StoreError, Version};
use a2a_types::TaskId;

use super::{Shared, Sqlite};
use crate::error::backend;
use crate::rows::{RunRow, ScopeKey};

impl Sqlite {
    pub(crate) async fn save_run(
        &self,
        scope: ScopeKey,
        row: RunRow,
        expected: Expected,
    ) -> Result<Version, StoreError> {
        let job = Arc::new((scope, row));
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (scope, row) = &*job;
                    // The update and the lookup that tells a conflict from a missing run
                    // run in one transaction: no other write comes between them.
                    Shared::save_run(conn, scope, row, expected).await
                })
            })
            .await?
    }

    pub(crate) async fn delete_run(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
    ) -> Result<bool, StoreError> {
        // Most finished tasks have no run (their agent keeps none, or it is gone already):
        // the readers say so without a write queued behind the writer's saves. A run saved
        // before this call was committed before its save returned, so they see it.
        if !Shared::run_exists(&self.reads, &scope, task_id.as_str())
            .await
            .map_err(backend)?
        {
            return Ok(false);
        }
        let job = Arc::new((scope, task_id.as_str().to_owned()));
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (scope, task_id) = &*job;
                    Shared::delete_run(conn, scope, task_id).await
                })
            })
            .await
    }
}
