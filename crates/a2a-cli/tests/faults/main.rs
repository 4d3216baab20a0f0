//! Faults survived, with real processes: `a2a serve` over a real PostgreSQL whose link a proxy
//! of ours cuts or slows, two instances one of which is killed mid-stream, and a SQLite file
//! whose disk fills up or that another process locks. Every test is bounded in time, stays on
//! loopback, and prints its figures on a `FIGURES` line (`cargo test -p a2a-cli --test faults
//! -- --nocapture` shows them).
//!
//! A separate test target from `it`: these tests take longer, and run one at a time
//! (`#[serial]`-like, through [`one_at_a_time`]) so that one test's load does not skew
//! another's timings.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

#[allow(dead_code)]
#[path = "../it/support.rs"]
mod support;

mod database;
mod instance_killed;
mod load;
mod postgres_outage;
mod slow_database;
mod sqlite;
mod sqlite_full;
mod sqlite_locked;

/// Held for the whole of a fault test: they run one after another.
pub async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}
