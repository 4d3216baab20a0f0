//! WAL checkpoints off the writer's path.
//!
//! SQLite's automatic checkpoint runs inside the commit that takes the WAL past its limit:
//! the writer would copy the WAL into the database file and sync it while every save
//! waiting behind it waits too. The write connection therefore has automatic checkpoints
//! off, and this task runs a passive checkpoint (which never blocks the writer nor the
//! readers) on a reader connection at most every [`EVERY`], when the writer committed
//! since the last one. Durability is the same: a commit is in the WAL either way, and the
//! WAL is what a crash or a reopen reads.
//!
//! A passive checkpoint copies frames but never waits, so under a steady load some reader
//! always holds a snapshot the WAL still serves, the writer never gets to start the WAL
//! over, and the file grows without end (checkpoint starvation: gigabytes an hour at a
//! hundred tasks a second). Once the WAL holds more than [`TRUNCATE_FRAMES`], the
//! checkpointer runs one truncating checkpoint, which waits (up to the busy timeout) for
//! the readers of old snapshots to finish, holds the writer back for that long, copies
//! everything, and cuts the file to zero bytes.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::SqlitePool;

/// How often the WAL is checkpointed while the writer commits.
const EVERY: Duration = Duration::from_millis(100);

/// WAL frames (pages) past which a checkpoint truncates the WAL: 16 384 frames of 4 KiB,
/// 64 MiB.
const TRUNCATE_FRAMES: i64 = 16_384;

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
        match checkpoint(&reads, "PASSIVE").await {
            Ok(frames) if frames > TRUNCATE_FRAMES => {
                if let Err(error) = checkpoint(&reads, "TRUNCATE").await {
                    tracing::debug!(%error, frames, "SQLite WAL truncation failed");
                }
            }
            Ok(_) => {}
            Err(error) => {
                if reads.is_closed() {
                    return;
                }
                tracing::debug!(%error, "SQLite WAL checkpoint failed");
            }
        }
    }
}

/// Runs a checkpoint in `mode`; returns how many frames the WAL held.
async fn checkpoint(reads: &SqlitePool, mode: &str) -> Result<i64, sqlx::Error> {
    // Its row: whether it was blocked, the WAL's frames, the frames checkpointed.
    let (_busy, frames, _done): (i64, i64, i64) =
        sqlx::query_as(&format!("PRAGMA wal_checkpoint({mode})"))
            .fetch_one(reads)
            .await?;
    Ok(frames)
}
