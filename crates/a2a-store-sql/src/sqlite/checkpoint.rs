//! WAL checkpoints off the writer's path.
//!
//! SQLite's automatic checkpoint runs inside the commit that takes the WAL past its limit:
//! the writer would copy the WAL into the database file and sync it while every save
//! waiting behind it waits too. The write connection therefore has automatic checkpoints
//! off, and this task runs a passive checkpoint (which never blocks the writer nor the
//! readers) on a reader connection at most every [`EVERY`], when the writer committed
//! since the last one. Durability is the same: a commit is in the WAL either way, and the
//! WAL is what a crash or a reopen reads.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::SqlitePool;

/// How often the WAL is checkpointed while the writer commits.
const EVERY: Duration = Duration::from_millis(100);

/// Counts the writer's commits, so that the checkpointer knows when there is work.
#[derive(Debug, Clone, Default)]
pub(crate) struct Commits(Arc<AtomicU64>);

impl Commits {
    /// One more commit.
    pub(crate) fn committed(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    fn count(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Starts the checkpointer over `reads`; it stops when that pool is closed.
pub(crate) fn spawn(reads: SqlitePool, commits: Commits) {
    tokio::spawn(run(reads, commits));
}

async fn run(reads: SqlitePool, commits: Commits) {
    let mut ticks = tokio::time::interval(EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut checkpointed = commits.count();
    loop {
        ticks.tick().await;
        if reads.is_closed() {
            return;
        }
        let count = commits.count();
        if count == checkpointed {
            continue;
        }
        checkpointed = count;
        // A failure (the pool closing, a busy file) leaves the pages for the next pass.
        if let Err(error) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&reads)
            .await
        {
            if reads.is_closed() {
                return;
            }
            tracing::debug!(%error, "SQLite WAL checkpoint failed");
        }
    }
}
