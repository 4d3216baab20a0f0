//! [`SqlStore`]: one handle over either backend, implementing the server's store and
//! cluster traits, and a2a-run's run store.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use a2a_run::run::Run;
use a2a_run::store::StoredRun;
use a2a_server::TaskEvent;
use a2a_server::cluster::{Cluster, ClusterSignal, ExpiredLease};
use a2a_server::store::{
    ClaimedWebhook, DeliveryProgress, Expected, KeptSend, PushConfigStore, Saved, StoreError,
    StoredTask, TaskPage, TaskQuery, TaskScope, TaskStore, Version,
};
use a2a_types::{PushConfigId, StreamResponse, Task, TaskId, TaskPushNotificationConfig};
use async_trait::async_trait;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::error::SqlStoreError;
use crate::location::{Location, redact};
use crate::options::{SqlStoreOptions, is_plain_schema_name};
use crate::postgres::Postgres;
use crate::rows::{RunRow, ScopeKey, TaskRow, encode_events, now_millis};
use crate::sends::SendClaim;
use crate::shared::Shared;
use crate::signal;
use crate::sqlite::Sqlite;

/// A durable [`TaskStore`], [`PushConfigStore`], [`Cluster`] and
/// [`RunStore`](a2a_run::store::RunStore) on SQLite or PostgreSQL.
///
/// Cloning is cheap and shares the connections. Background work (the SQLite writer, the
/// expiry cleanup, the PostgreSQL listener) stops when the last clone is dropped, or at
/// [`SqlStore::close`].
///
/// Besides the [`TaskStore`] contract (it passes the conformance suite), it guarantees:
///
/// - **Expiry**: a terminal task expires
///   [`completed_task_ttl`](SqlStoreOptions::completed_task_ttl) after the save that made it
///   terminal; saving it again while it stays terminal does not extend its life. The expiry
///   is written with that save, from the saving instance's TTL, so instances with different
///   TTLs over one database never cut each other's tasks short. An expired task is
///   invisible at once to `load`, `list`, `events` and `save`, and a create may take its id;
///   a periodic pass deletes expired tasks with their events, push configs, runs and send
///   keys.
/// - **Versions** start from the creation time in microseconds and grow by one with each
///   save, so a task created again under the id of an expired one gets versions greater than
///   the expired one had, even after the cleanup deleted it.
/// - **Time** is the process's system clock in milliseconds, for task expiry and lease
///   expiry alike; instances sharing a PostgreSQL database need synchronised clocks.
/// - **Push delivery**: each config row carries its webhook's delivery state
///   (last sequence delivered, failed attempts, next attempt, claim). A claim compares it
///   with the end of the task's log in the tasks table, so
///   [`events_logged`](PushConfigStore::events_logged) has nothing to do, and skips expired
///   tasks. On PostgreSQL a claim locks its webhooks with `FOR UPDATE SKIP LOCKED`, so
///   instances claiming at once never share one; on SQLite the writer runs claims one at a
///   time.
///
/// On SQLite, every write goes through one writer task that commits the writes waiting
/// together in one transaction (group commit), and reads use a pool beside it (WAL). Use
/// one process per file: signals reach only the instance that publishes them. On
/// PostgreSQL, instances over one schema share tasks, leases and signals (LISTEN/NOTIFY).
#[derive(Clone)]
pub struct SqlStore {
    inner: Arc<Inner>,
}

struct Inner {
    backend: Backend,
    options: SqlStoreOptions,
    instance_id: String,
    url: String,
    signals: broadcast::Sender<ClusterSignal>,
    shutdown: CancellationToken,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

#[derive(Debug, Clone)]
enum Backend {
    Sqlite(Sqlite),
    Postgres(Postgres),
}

/// Evaluates `$call` with `$db` bound to `$backend`'s database, whichever it is: both
/// backends answer the same calls with the same signatures, and reads on either are the
/// [`Shared`] ones on its [`reads`](Sqlite::reads) pool.
macro_rules! on_backend {
    ($backend:expr, $db:ident => $call:expr) => {
        match $backend {
            Backend::Sqlite($db) => $call,
            Backend::Postgres($db) => $call,
        }
    };
}

impl SqlStore {
    /// Opens the database at `url`, creating a SQLite file (or a PostgreSQL schema) when
    /// missing, and brings its schema up to date.
    ///
    /// `url` is `sqlite://PATH` or `sqlite:PATH` (a file, created when missing),
    /// `sqlite::memory:` (a database of this store alone, gone when it is dropped), or
    /// `postgres://…` / `postgresql://…`.
    ///
    /// # Errors
    /// [`SqlStoreError::InvalidUrl`] and [`SqlStoreError::InvalidOption`] for what cannot
    /// work, [`SqlStoreError::Connect`] when the database cannot be reached or opened,
    /// [`SqlStoreError::SchemaTooNew`] when a newer version of this crate laid the
    /// database out, [`SqlStoreError::Migration`] when updating the schema failed.
    pub async fn connect(url: &str, options: SqlStoreOptions) -> Result<Self, SqlStoreError> {
        validate(&options)?;
        let location = Location::parse(url)?;
        let url = redact(url);
        let instance_id = options
            .instance_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let signals = broadcast::channel(options.signal_capacity.max(1)).0;
        let shutdown = CancellationToken::new();
        let backend = match location {
            Location::Sqlite {
                options: connect,
                in_memory,
            } => Backend::Sqlite(
                Sqlite::open(connect, in_memory, &options, &url, &instance_id).await?,
            ),
            Location::Postgres(connect) => Backend::Postgres(
                Postgres::open(
                    connect,
                    &options,
                    &url,
                    &instance_id,
                    signals.clone(),
                    shutdown.clone(),
                )
                .await?,
            ),
        };
        if !options.completed_task_ttl.is_zero() && !options.cleanup_interval.is_zero() {
            tokio::spawn(clean_up_periodically(
                backend.clone(),
                options.cleanup_interval,
                shutdown.clone(),
            ));
        }
        Ok(Self {
            inner: Arc::new(Inner {
                backend,
                options,
                instance_id,
                url,
                signals,
                shutdown,
            }),
        })
    }

    /// The database URL, password hidden: safe to log.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The settings this store was opened with.
    pub fn options(&self) -> &SqlStoreOptions {
        &self.inner.options
    }

    /// Deletes the expired tasks now, with their events and push configs, as the periodic
    /// cleanup does; returns how many tasks went.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn delete_expired(&self) -> Result<u64, StoreError> {
        self.inner.backend.delete_expired().await
    }

    /// Stops the background work and closes the connections, waiting for calls in flight.
    /// Every clone is closed; later calls fail.
    pub async fn close(&self) {
        self.inner.shutdown.cancel();
        on_backend!(&self.inner.backend, db => db.close().await);
    }
}

impl fmt::Debug for SqlStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqlStore")
            .field("url", &self.inner.url)
            .field("instance_id", &self.inner.instance_id)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

fn validate(options: &SqlStoreOptions) -> Result<(), SqlStoreError> {
    if let Some(schema) = &options.postgres_schema
        && !is_plain_schema_name(schema)
    {
        return Err(SqlStoreError::InvalidOption {
            what: format!(
                "postgres schema {schema:?} must be 1 to 63 ASCII letters, digits or `_`, \
                 not starting with a digit"
            ),
        });
    }
    if options.instance_id.as_deref() == Some("") {
        return Err(SqlStoreError::InvalidOption {
            what: "the instance id must not be empty".to_owned(),
        });
    }
    if options.max_connections == 0 {
        return Err(SqlStoreError::InvalidOption {
            what: "max connections must be at least 1".to_owned(),
        });
    }
    Ok(())
}

async fn clean_up_periodically(backend: Backend, every: Duration, shutdown: CancellationToken) {
    crate::periodic::every(every, shutdown, || async {
        match backend.delete_expired().await {
            Ok(0) => {}
            Ok(deleted) => tracing::debug!(deleted, "deleted expired tasks"),
            Err(error) => tracing::warn!(%error, "could not delete expired tasks"),
        }
    })
    .await;
}

impl Backend {
    async fn delete_expired(&self) -> Result<u64, StoreError> {
        on_backend!(self, db => db.delete_expired().await)
    }
}

#[async_trait]
impl TaskStore for SqlStore {
    async fn locate(&self, id: &TaskId) -> Result<Option<TaskScope>, StoreError> {
        let found = on_backend!(&self.inner.backend, db => Shared::locate(db.reads(), id).await?);
        Ok(found.map(ScopeKey::into_scope))
    }

    async fn shared_secret(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        // The first offer is kept; every later one (a racing instance's included) is
        // dropped, and everyone reads the one kept.
        let mut offer = Vec::with_capacity(32);
        offer.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        offer.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        let value = on_backend!(&self.inner.backend, db => db.shared_secret(name, offer).await?);
        Ok(Some(value))
    }

    /// `SELECT 1` on the pool reads use: on SQLite a closed store fails it, on PostgreSQL
    /// an unreachable server too (after the pool's acquire timeout, which the readiness
    /// check does not wait for).
    async fn ping(&self) -> Result<(), StoreError> {
        on_backend!(&self.inner.backend, db => Shared::ping(db.reads()).await)
    }

    async fn load(&self, scope: &TaskScope, id: &TaskId) -> Result<Option<StoredTask>, StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => Shared::load(db.reads(), &scope, id).await)
    }

    /// One row per key and scope (the `send_keys` primary key), so of instances claiming
    /// one key at once exactly one wins; a key naming an expired task is free again.
    async fn claim_send(
        &self,
        scope: &TaskScope,
        key: &str,
        digest: &str,
        task_id: &TaskId,
    ) -> Result<Option<KeptSend>, StoreError> {
        let claim = SendClaim {
            scope: ScopeKey::of(scope),
            key: key.to_owned(),
            digest: digest.to_owned(),
            task_id: task_id.as_str().to_owned(),
            now: now_millis(),
        };
        let kept = on_backend!(&self.inner.backend, db => db.claim_send(claim).await?);
        Ok(kept.map(|(task_id, digest)| KeptSend {
            task_id: TaskId::new(task_id),
            digest,
        }))
    }

    async fn release_send(
        &self,
        scope: &TaskScope,
        key: &str,
        task_id: &TaskId,
    ) -> Result<(), StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => db.release_send(scope, key, task_id.as_str()).await)
    }

    async fn save(
        &self,
        scope: &TaskScope,
        task: &Task,
        expected: Expected,
        events: &[StreamResponse],
    ) -> Result<Saved, StoreError> {
        let scope = ScopeKey::of(scope);
        let row = TaskRow::of(task)?;
        let events = encode_events(events)?;
        on_backend!(&self.inner.backend, db => db.save(scope, row, expected, events).await)
    }

    async fn list(&self, scope: &TaskScope, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => db.list(&scope, query).await)
    }

    async fn events(
        &self,
        scope: &TaskScope,
        id: &TaskId,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<TaskEvent>>, StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => db.events(&scope, id, after, limit).await)
    }
}

#[async_trait]
impl PushConfigStore for SqlStore {
    async fn save_push_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config: &TaskPushNotificationConfig,
        max_per_task: usize,
        deliver_after: u64,
    ) -> Result<(), StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => {
            db.save_push_config(scope, task_id, config, max_per_task, deliver_after)
                .await
        })
    }

    async fn get_push_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config_id: &PushConfigId,
    ) -> Result<Option<TaskPushNotificationConfig>, StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => {
            Shared::get_push_config(db.reads(), &scope, task_id, config_id.as_str()).await
        })
    }

    async fn list_push_configs(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
    ) -> Result<Vec<TaskPushNotificationConfig>, StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => {
            Shared::list_push_configs(db.reads(), &scope, task_id).await
        })
    }

    async fn delete_push_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config_id: &PushConfigId,
    ) -> Result<bool, StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => {
            db.delete_push_config(scope, task_id, config_id.as_str()).await
        })
    }

    /// Nothing to do: the claim compares each webhook's progress with the end of its task's
    /// log in the tasks table, which the save that logged the events wrote.
    async fn events_logged(
        &self,
        _scope: &TaskScope,
        _task_id: &TaskId,
        _last_sequence: u64,
    ) -> Result<(), StoreError> {
        Ok(())
    }

    async fn claim_deliveries(
        &self,
        instance: &str,
        now_ms: u64,
        claim_until_ms: u64,
        limit: usize,
    ) -> Result<Vec<ClaimedWebhook>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        on_backend!(&self.inner.backend, db => {
            db.claim_deliveries(instance, now_ms, claim_until_ms, limit).await
        })
    }

    async fn record_delivery(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config_id: &PushConfigId,
        instance: &str,
        progress: DeliveryProgress,
    ) -> Result<bool, StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => {
            db.record_delivery(scope, task_id, config_id.as_str(), instance, progress)
                .await
        })
    }
}

/// Runs saved beside their tasks, in the `runs` table: the same value serves as the
/// [`TaskStore`] and the [`RunStore`](a2a_run::store::RunStore), so one `Arc` does both. A
/// run is keyed by its task id, which is global as task ids are, and goes with its task
/// when the task expires (the cleanup, or a create that replaces the expired task).
#[async_trait]
impl a2a_run::store::RunStore for SqlStore {
    async fn load(&self, scope: &TaskScope, id: &TaskId) -> Result<Option<StoredRun>, StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => Shared::load_run(db.reads(), &scope, id).await)
    }

    async fn save(
        &self,
        scope: &TaskScope,
        run: &Run,
        expected: Expected,
    ) -> Result<Version, StoreError> {
        let scope = ScopeKey::of(scope);
        let row = RunRow::of(run)?;
        on_backend!(&self.inner.backend, db => db.save_run(scope, row, expected).await)
    }

    async fn delete(&self, scope: &TaskScope, id: &TaskId) -> Result<bool, StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => db.delete_run(scope, id).await)
    }
}

#[async_trait]
impl Cluster for SqlStore {
    fn instance_id(&self) -> &str {
        &self.inner.instance_id
    }

    fn lease_ttl(&self) -> Duration {
        self.inner.options.lease_ttl
    }

    async fn acquire_lease(&self, scope: &TaskScope, task_id: &TaskId) -> Result<bool, StoreError> {
        let scope = ScopeKey::of(scope);
        on_backend!(&self.inner.backend, db => db.acquire_lease(scope, task_id).await)
    }

    async fn renew_leases(&self, task_ids: &[TaskId]) -> Result<(), StoreError> {
        on_backend!(&self.inner.backend, db => db.renew_leases(task_ids).await)
    }

    async fn release_lease(&self, task_id: &TaskId) -> Result<(), StoreError> {
        on_backend!(&self.inner.backend, db => db.release_lease(task_id).await)
    }

    async fn claim_expired_leases(&self, limit: usize) -> Result<Vec<ExpiredLease>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        on_backend!(&self.inner.backend, db => db.claim_expired_leases(limit).await)
    }

    async fn publish(&self, signal: &ClusterSignal) -> Result<(), StoreError> {
        // Local receivers hear it at once, whatever happens to the notification.
        let _ = self.inner.signals.send(signal.clone());
        if let Backend::Postgres(postgres) = &self.inner.backend {
            match signal::encode(&self.inner.instance_id, signal) {
                Some(payload) => postgres.notify(&payload).await?,
                None => tracing::debug!(?signal, "cluster signal delivered locally only"),
            }
        }
        Ok(())
    }

    async fn publish_all(&self, signals: &[ClusterSignal]) -> Result<(), StoreError> {
        for signal in signals {
            let _ = self.inner.signals.send(signal.clone());
        }
        if let Backend::Postgres(postgres) = &self.inner.backend {
            let payloads: Vec<String> = signals
                .iter()
                .filter_map(|signal| signal::encode(&self.inner.instance_id, signal))
                .collect();
            postgres.notify_all(&payloads).await?;
        }
        Ok(())
    }

    fn subscribe(&self) -> broadcast::Receiver<ClusterSignal> {
        self.inner.signals.subscribe()
    }
}
