//! Opening a SQLite database: the write connection (migrating the schema on it), the
//! reader pool, and the writer task.

use std::time::Duration;

use sqlx::ConnectOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use super::Sqlite;
use super::checkpoint::{self, Commits};
use super::save::batch_first_statements;
use super::writer::Writer;
use crate::error::SqlStoreError;
use crate::options::SqlStoreOptions;
use crate::rows::Expiry;
use crate::schema;

/// How long a connection waits for a lock another connection holds (the readers, when a
/// checkpoint runs; the writer, when another process holds the file).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The write connection's page cache: 8 MiB (SQLite reads a negative `cache_size` as KiB).
/// Ids are ordered by time, so new rows and index entries land on the last pages of each
/// index; a larger cache bought nothing, and at 64 MiB the end of every transaction cost a
/// tenth of the writer's time walking the cache (`pcache1Truncate`).
const WRITER_CACHE_KIB: &str = "-8192";

/// The size (bytes) a WAL file is cut back to when the writer starts it over: 64 MiB.
const WAL_SIZE_LIMIT: &str = "67108864";

impl Sqlite {
    /// Opens (creating when missing) the database and brings its schema up to date.
    pub(crate) async fn open(
        options: SqliteConnectOptions,
        in_memory: bool,
        settings: &SqlStoreOptions,
        url: &str,
        instance_id: &str,
    ) -> Result<Self, SqlStoreError> {
        let connect_failed = |source| SqlStoreError::Connect {
            url: url.to_owned(),
            source,
        };
        let base = options
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT)
            .synchronous(SqliteSynchronous::Normal)
            .disable_statement_logging();
        // WAL lets readers run beside the writer; an in-memory database has no journal file.
        // The writer leaves checkpoints to the checkpointer (`checkpoint`), off its path.
        // Its page cache is larger than SQLite's 2 MiB default: a page not in the cache is a
        // read from the file on the writer's path.
        let write_options = if in_memory {
            base.clone()
        } else {
            base.clone()
                .journal_mode(SqliteJournalMode::Wal)
                .pragma("wal_autocheckpoint", "0")
                // When the writer starts the WAL over, a file grown past this is cut back.
                .pragma("journal_size_limit", WAL_SIZE_LIMIT)
                .pragma("cache_size", WRITER_CACHE_KIB)
        };
        // One connection, kept open: SQLite has one writer, and an in-memory database lives
        // only as long as a connection to it.
        let writes = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .test_before_acquire(false)
            .acquire_timeout(settings.acquire_timeout)
            .connect_with(write_options)
            .await
            .map_err(connect_failed)?;
        let migrated = match writes.acquire().await {
            Ok(mut conn) => schema::TASKS
                .migrate_sqlite(&mut conn)
                .await
                .map_err(|error| schema::store_error(error, url)),
            Err(error) => Err(connect_failed(error)),
        };
        if let Err(error) = migrated {
            writes.close().await;
            return Err(error);
        }
        // The readers of an in-memory database must share the writer's connection: each
        // connection would otherwise have a database of its own.
        let reads = if in_memory {
            writes.clone()
        } else {
            SqlitePoolOptions::new()
                .max_connections(settings.max_connections.max(1))
                .min_connections(settings.min_connections)
                .test_before_acquire(false)
                .acquire_timeout(settings.acquire_timeout)
                .connect_with(base)
                .await
                .map_err(connect_failed)?
        };
        let commits = Commits::default();
        if !in_memory {
            checkpoint::spawn(reads.clone(), commits.clone());
        }
        Ok(Self {
            writer: Writer::spawn(writes.clone(), commits, !in_memory, batch_first_statements),
            reads,
            writes,
            expiry: Expiry::new(settings.completed_task_ttl),
            instance_id: instance_id.into(),
            lease_ttl: settings.lease_ttl,
        })
    }

    /// Closes both pools; later calls fail.
    pub(crate) async fn close(&self) {
        self.reads.close().await;
        self.writes.close().await;
    }
}
