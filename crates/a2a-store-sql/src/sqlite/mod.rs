//! The SQLite backend: one writer task with group commit ([`writer`]) and a pool of
//! readers, over a WAL-mode file.
//!
//! Reads, and the writes whose statements PostgreSQL runs alike, are the
//! [`Shared`](crate::shared::Shared) ones, read from the reader pool or written through
//! the writer. By topic:
//!
//! - `connect`: opening the file, its two pools and the writer.
//! - `job`: a write waiting for the writer, and the prelude each batch runs first.
//! - `checkpoint`: WAL checkpoints on a reader connection, off the writer's path.
//! - `tasks`: reading tasks and their events, and the shared secret.
//! - `save`: a task save with its events, inside the writer's transaction.
//! - `push`: push configs, and the claims and records of their deliveries.
//! - `leases`: turn leases.
//! - `runs`: agent runs (a2a-run's `RunStore`), written through the writer.
//! - `expiry`: deleting expired tasks (with their runs).

mod checkpoint;
mod connect;
mod expiry;
mod job;
mod leases;
mod push;
mod runs;
mod save;
mod tasks;
mod writer;

use std::sync::Arc;
use std::time::Duration;

use sqlx::SqlitePool;

use self::writer::Writer;
use crate::rows::Expiry;

/// The statements SQLite runs as PostgreSQL does.
type Shared = crate::shared::Shared<sqlx::Sqlite>;

/// A SQLite database: a writer task and a reader pool.
#[derive(Debug, Clone)]
pub(crate) struct Sqlite {
    reads: SqlitePool,
    writes: SqlitePool,
    writer: Writer,
    expiry: Expiry,
    /// The lease holder this instance writes.
    instance_id: Arc<str>,
    lease_ttl: Duration,
}
