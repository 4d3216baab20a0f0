//! The PostgreSQL backend: a connection pool, one statement per save, and LISTEN/NOTIFY
//! for cluster signals ([`listener`]).
//!
//! Reads, and the writes whose statements SQLite runs alike, are the
//! [`Shared`](crate::shared::Shared) ones, run on the pool. By topic:
//!
//! - `connect`: the pool, the schema and its migration, the listener.
//! - `tasks`: reading tasks and their events, and the shared secret.
//! - `save`: a task save with its events, in one statement.
//! - `creates`: the creates of new tasks, batched: one statement and commit for many.
//! - `push`: push configs, and the claims and records of their deliveries.
//! - `leases`: turn leases, and the signals sent to other instances.
//! - `runs`: agent runs (a2a-run's `RunStore`).
//! - `expiry`: deleting expired tasks (with their runs).
//! - `vacuum`: vacuuming the tables when the server's autovacuum is off.

mod connect;
mod creates;
mod expiry;
mod leases;
mod listener;
mod push;
mod runs;
mod save;
mod tasks;
mod vacuum;

use std::sync::Arc;
use std::time::Duration;

use sqlx::PgPool;

use crate::rows::Expiry;

/// The statements PostgreSQL runs as SQLite does.
type Shared = crate::shared::Shared<sqlx::Postgres>;

/// A PostgreSQL database (one schema of it).
#[derive(Debug, Clone)]
pub(crate) struct Postgres {
    pool: PgPool,
    /// The batcher new tasks are created through.
    creates: creates::Creates,
    expiry: Expiry,
    /// The NOTIFY channel of this schema.
    channel: String,
    /// The lease holder this instance writes.
    instance_id: Arc<str>,
    lease_ttl: Duration,
}
