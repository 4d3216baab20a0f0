//! Where `a2a serve` keeps tasks: the `--store` URL read.

use a2a_server::store::InMemoryTaskStoreConfig;
use a2a_store_sql::SqlStoreOptions;

use super::checks::{invalid, positive};
use crate::config::ConfigError;
use crate::config::options::ServeOptions;

/// Where `a2a serve` keeps tasks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StoreSetting {
    /// In the process's memory: gone at exit.
    Memory(InMemoryTaskStoreConfig),
    /// In SQLite or PostgreSQL: durable, and shared by instances over one PostgreSQL.
    Sql {
        /// `sqlite://…` or `postgres://…`; may hold a password, so never print it whole.
        url: String,
        /// Pool, expiry and cluster settings.
        options: SqlStoreOptions,
    },
}

impl StoreSetting {
    /// What the log may say of the store: its kind and, for SQLite, the file; never a
    /// PostgreSQL URL, which may carry a password.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Memory(_) => "memory".to_owned(),
            Self::Sql { url, .. } if url.starts_with("sqlite:") => url.clone(),
            Self::Sql { .. } => "postgres".to_owned(),
        }
    }
}

/// The default store: a SQLite file in the working directory, so tasks survive a restart
/// with nothing to install.
pub(crate) const DEFAULT_STORE: &str = "sqlite://a2a.db";

pub(super) fn store(options: &ServeOptions) -> Result<StoreSetting, ConfigError> {
    let url = options.store.as_deref().map_or(DEFAULT_STORE, str::trim);
    if url == "memory" {
        let mut store = InMemoryTaskStoreConfig::default();
        if let Some(ttl) = options.completed_task_ttl {
            store.completed_task_ttl = ttl.0;
        }
        if let Some(max) = options.max_stored_tasks {
            store.max_stored_tasks = max;
        }
        if let Some(interval) = options.store_cleanup_interval {
            store.cleanup_interval = interval;
        }
        return Ok(StoreSetting::Memory(store));
    }
    if !(url.starts_with("sqlite:")
        || url.starts_with("postgres://")
        || url.starts_with("postgresql://"))
    {
        let shown = url.split_once("://").map_or(url, |(scheme, _)| scheme);
        return Err(invalid(
            "store",
            format!("unknown store `{shown}`; expected sqlite://PATH, postgres://URL or memory"),
        ));
    }
    if options.max_stored_tasks.is_some() {
        return Err(invalid(
            "max-stored-tasks",
            "applies to --store memory only; SQL stores expire finished tasks by --completed-task-ttl",
        ));
    }
    if options.store_cleanup_interval.is_some() {
        return Err(invalid(
            "store-cleanup-interval",
            "applies to --store memory only; SQL stores expire finished tasks by --completed-task-ttl",
        ));
    }
    if options.stuck_task_ttl.is_some_and(|ttl| !ttl.0.is_zero()) {
        return Err(invalid(
            "stuck-task-ttl",
            "applies to --store memory only; with a SQL store a task may run on another instance, and a turn lost with its instance is recovered after --lease-ttl",
        ));
    }
    let mut sql = SqlStoreOptions::new();
    if let Some(ttl) = options.completed_task_ttl {
        sql = sql.completed_task_ttl(ttl.0);
    }
    if let Some(max) = options.store_max_connections {
        if max == 0 {
            return Err(invalid("store-max-connections", "must be more than 0"));
        }
        sql = sql.max_connections(max);
    }
    if let Some(timeout) = options.store_connect_timeout {
        sql = sql.acquire_timeout(positive("store-connect-timeout", timeout.0)?);
    }
    if let Some(ttl) = options.lease_ttl {
        sql = sql.lease_ttl(positive("lease-ttl", ttl.0)?);
    }
    if let Some(id) = &options.instance_id {
        if id.trim().is_empty() {
            return Err(invalid("instance-id", "must not be empty"));
        }
        sql = sql.instance_id(id.trim());
    }
    Ok(StoreSetting::Sql {
        url: url.to_owned(),
        options: sql,
    })
}
