//! Vacuuming the store's own tables when the PostgreSQL server's autovacuum is off.
//!
//! A save rewrites its task's row, a delivery record rewrites its push config's, and the
//! cleanup deletes whole tasks: each leaves a dead row version that only a vacuum makes
//! reusable. A server run with `autovacuum = off` never does that by itself, so the tables
//! and their indexes grow for as long as the store runs, and every claim, save and list
//! reads through more dead rows than live ones. The store then vacuums its own tables,
//! every [`SqlStoreOptions::postgres_vacuum_interval`](crate::SqlStoreOptions::postgres_vacuum_interval).

use std::time::Duration;

use sqlx::PgPool;
use tokio_util::sync::CancellationToken;

/// The tables whose rows are rewritten or deleted as tasks run and expire. Unqualified:
/// the connections' `search_path` names the store's schema.
const CHURNED: &str = "tasks, task_events, push_configs, send_keys, runs";

/// Whether the server vacuums by itself: its `autovacuum` setting.
pub(super) async fn server_vacuums(pool: &PgPool) -> Result<bool, sqlx::Error> {
    let setting: String = sqlx::query_scalar("SELECT current_setting('autovacuum')")
        .fetch_one(pool)
        .await?;
    Ok(setting == "on")
}

/// Vacuums (and analyses) [`CHURNED`] every `every` until `shutdown`. A table another
/// instance is vacuuming at that moment is skipped rather than waited for.
pub(super) fn start(pool: PgPool, every: Duration, shutdown: CancellationToken) {
    // VACUUM cannot run in a transaction block: the simple protocol sends it alone.
    let vacuum = format!("VACUUM (SKIP_LOCKED, ANALYZE) {CHURNED}");
    tokio::spawn(async move {
        crate::periodic::every(every, shutdown, || async {
            if let Err(error) = sqlx::raw_sql(&vacuum).execute(&pool).await {
                tracing::warn!(%error, "could not vacuum the task tables");
            }
        })
        .await;
    });
}
