//! [`SqlStoreOptions`]: pool sizes, timeouts, expiry and cluster identity of a
//! [`SqlStore`](crate::SqlStore).

use std::time::Duration;

/// Settings of a [`SqlStore`](crate::SqlStore); every one has a default.
///
/// ```
/// use std::time::Duration;
/// use a2a_store_sql::SqlStoreOptions;
///
/// let options = SqlStoreOptions::new()
///     .max_connections(16)
///     .completed_task_ttl(Duration::from_secs(24 * 60 * 60))
///     .postgres_schema("agents");
/// # let _ = options;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct SqlStoreOptions {
    pub(crate) max_connections: u32,
    pub(crate) min_connections: u32,
    pub(crate) acquire_timeout: Duration,
    pub(crate) completed_task_ttl: Duration,
    pub(crate) cleanup_interval: Duration,
    pub(crate) postgres_vacuum_interval: Duration,
    pub(crate) postgres_schema: Option<String>,
    pub(crate) postgres_synchronous_commit: bool,
    pub(crate) instance_id: Option<String>,
    pub(crate) lease_ttl: Duration,
    pub(crate) signal_capacity: usize,
}

impl Default for SqlStoreOptions {
    fn default() -> Self {
        Self {
            max_connections: 10,
            min_connections: 0,
            acquire_timeout: Duration::from_secs(10),
            completed_task_ttl: Duration::from_secs(60 * 60),
            cleanup_interval: Duration::from_secs(60),
            postgres_vacuum_interval: Duration::from_secs(60),
            postgres_schema: None,
            postgres_synchronous_commit: true,
            instance_id: None,
            lease_ttl: Duration::from_secs(30),
            signal_capacity: 1024,
        }
    }
}

impl SqlStoreOptions {
    /// The defaults: 10 connections at most, none kept open idle, a 10 s acquire timeout,
    /// terminal tasks kept one hour, a cleanup pass every minute, PostgreSQL's default
    /// schema, a random instance id, 30 s turn leases.
    pub fn new() -> Self {
        Self::default()
    }

    /// The most connections the pool opens (default 10). SQLite has one writer whatever
    /// this says: the number bounds the readers.
    pub fn max_connections(mut self, max: u32) -> Self {
        self.max_connections = max;
        self
    }

    /// How many connections the pool keeps open even when idle (default 0).
    pub fn min_connections(mut self, min: u32) -> Self {
        self.min_connections = min;
        self
    }

    /// How long a call waits for a free connection, and how long `connect` waits for the
    /// database to answer (default 10 s).
    pub fn acquire_timeout(mut self, timeout: Duration) -> Self {
        self.acquire_timeout = timeout;
        self
    }

    /// How long a terminal task is kept after the save that made it terminal (default one
    /// hour, like the in-memory store). Saving it again while it stays terminal
    /// does not extend its life. `Duration::ZERO` keeps terminal tasks forever.
    pub fn completed_task_ttl(mut self, ttl: Duration) -> Self {
        self.completed_task_ttl = ttl;
        self
    }

    /// How often expired tasks, with their events and push configs, are deleted (default
    /// one minute). Expired tasks are invisible at once either way; the pass gives the
    /// space back. `Duration::ZERO` turns the background pass off.
    pub fn cleanup_interval(mut self, interval: Duration) -> Self {
        self.cleanup_interval = interval;
        self
    }

    /// PostgreSQL only: how often the store vacuums its own tables when the server's
    /// `autovacuum` is off (default one minute, autovacuum's own pause; `Duration::ZERO`
    /// never). Every save, delivery record and cleanup leaves dead rows behind; without a
    /// vacuum they are never reused, so the tables and their indexes grow for as long as
    /// the store runs and every query slows down with them. With `autovacuum` on (the
    /// server's default) the store leaves vacuuming to the server and this is unused.
    pub fn postgres_vacuum_interval(mut self, interval: Duration) -> Self {
        self.postgres_vacuum_interval = interval;
        self
    }

    /// PostgreSQL only: keep the tables in this schema, created when missing (default: the
    /// connection's `search_path`, usually `public`). Names are letters, digits and `_`.
    /// Instances over one schema share tasks, leases and signals; different schemas are
    /// fully separate. Ignored for SQLite.
    pub fn postgres_schema(mut self, schema: impl Into<String>) -> Self {
        self.postgres_schema = Some(schema.into());
        self
    }

    /// PostgreSQL only: whether a save waits for its commit to reach the disk (default:
    /// yes). `false` sets `synchronous_commit = off` on the store's connections: a save
    /// answers before the server flushed it, so a crash of the database server (not of
    /// this process) can lose the last fraction of a second of saves, never corrupting
    /// anything. Commits are then no longer bound by the disk's flush rate, which on slow
    /// disks is what limits the saves per second. (SQLite runs with `synchronous=NORMAL`
    /// in WAL mode, the same trade for a power cut.)
    pub fn postgres_synchronous_commit(mut self, on: bool) -> Self {
        self.postgres_synchronous_commit = on;
        self
    }

    /// This instance's id among the instances sharing the database, the holder named in
    /// its turn leases (default: a random UUID, new at each start).
    pub fn instance_id(mut self, id: impl Into<String>) -> Self {
        self.instance_id = Some(id.into());
        self
    }

    /// How long a turn lease lives without renewal (default 30 s): the instance running a
    /// turn renews it every third of that, and once it has passed without renewal (the
    /// instance died) another instance may claim the task.
    pub fn lease_ttl(mut self, ttl: Duration) -> Self {
        self.lease_ttl = ttl;
        self
    }

    /// How many cluster signals a slow subscriber may fall behind before it sees `Lagged`
    /// (default 1024).
    pub fn signal_capacity(mut self, capacity: usize) -> Self {
        self.signal_capacity = capacity;
        self
    }
}

/// Whether `schema` is a PostgreSQL schema name that needs no quoting: 1 to 63 ASCII
/// letters, digits or `_`, not starting with a digit. [`SqlStore::connect`] refuses other
/// names for [`SqlStoreOptions::postgres_schema`].
///
/// [`SqlStore::connect`]: crate::SqlStore::connect
#[must_use]
pub fn is_plain_schema_name(schema: &str) -> bool {
    let mut chars = schema.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && schema.len() <= 63
}
