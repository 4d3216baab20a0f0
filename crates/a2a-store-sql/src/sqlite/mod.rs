//! The SQLite backend: one writer task with group commit ([`writer`]) and a pool of
//! readers, over a WAL-mode file.

mod writer;

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use a2a_server::TaskEvent;
use a2a_server::cluster::ExpiredLease;
use a2a_server::store::{
    ClaimedWebhook, DeliveryProgress, Expected, Saved, StoreError, StoredTask, TaskPage, TaskQuery,
    Version,
};
use a2a_types::{TaskId, TaskPushNotificationConfig};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteRow, SqliteSynchronous,
};
use sqlx::{ConnectOptions, Row, SqliteConnection, SqlitePool};

use self::writer::Writer;
use crate::error::{SqlStoreError, backend, json};
use crate::list::{ListSql, Param};
use crate::options::SqlStoreOptions;
use crate::rows::{
    ClaimRow, Expiry, ScopeKey, TaskRow, claimed_webhooks, decode_stored, first_version,
    millis_after, now_millis, progress_columns, to_i64, to_u64, version_refusal,
};
use crate::schema;
use crate::sql;

/// How long a connection waits for a lock another connection holds (the readers, when a
/// checkpoint runs; the writer, when another process holds the file).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Events per `INSERT` statement, well below SQLite's limit of bound values.
const EVENTS_PER_INSERT: usize = 100;

/// Expired tasks deleted per cleanup transaction, so that a large pass does not hold the
/// write lock long.
const CLEANUP_BATCH: i64 = 500;

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

/// What a save needs, shared by the runs of its writer job.
#[derive(Debug)]
struct SaveJob {
    scope: ScopeKey,
    row: TaskRow,
    expected: Expected,
    events: Vec<String>,
    instance_id: Arc<str>,
    lease_ttl: Duration,
}

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
        let write_options = if in_memory {
            base.clone()
        } else {
            base.clone().journal_mode(SqliteJournalMode::Wal)
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
            Ok(mut conn) => schema::migrate_sqlite(&mut conn, url).await,
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
        Ok(Self {
            writer: Writer::spawn(writes.clone()),
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

    /// The secret `name`, `offer` kept as it when none was stored yet.
    pub(crate) async fn shared_secret(
        &self,
        name: &str,
        offer: Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        let job = Arc::new((name.to_owned(), offer));
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (name, offer) = &*job;
                    sqlx::query(sql::OFFER_SECRET)
                        .bind(name)
                        .bind(offer)
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query_scalar(sql::READ_SECRET)
                        .bind(name)
                        .fetch_one(&mut *conn)
                        .await
                })
            })
            .await
    }

    pub(crate) async fn locate(&self, id: &TaskId) -> Result<Option<ScopeKey>, StoreError> {
        let row: Option<(String, bool, String)> = sqlx::query_as(sql::LOCATE_TASK)
            .bind(id.as_str())
            .bind(now_millis())
            .fetch_optional(&self.reads)
            .await
            .map_err(backend)?;
        Ok(row.map(|(tenant, has_owner, owner)| ScopeKey {
            tenant,
            has_owner,
            owner,
        }))
    }

    pub(crate) async fn load(
        &self,
        scope: &ScopeKey,
        id: &TaskId,
    ) -> Result<Option<StoredTask>, StoreError> {
        let row: Option<(String, i64, i64)> = sqlx::query_as(sql::LOAD_TASK)
            .bind(id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .bind(now_millis())
            .fetch_optional(&self.reads)
            .await
            .map_err(backend)?;
        row.map(|(body, version, last_sequence)| decode_stored(&body, version, last_sequence))
            .transpose()
    }

    pub(crate) async fn save(
        &self,
        scope: ScopeKey,
        row: TaskRow,
        expected: Expected,
        events: Vec<String>,
    ) -> Result<Saved, StoreError> {
        let job = Arc::new(SaveJob {
            scope,
            row,
            expected,
            events,
            instance_id: Arc::clone(&self.instance_id),
            lease_ttl: self.lease_ttl,
        });
        let expiry = self.expiry;
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move { save(conn, &job, expiry).await })
            })
            .await?
    }

    pub(crate) async fn list(
        &self,
        scope: &ScopeKey,
        query: &TaskQuery,
    ) -> Result<TaskPage, StoreError> {
        let list = ListSql::new(scope, query, now_millis());
        let mut count = sqlx::query_scalar::<_, i64>(&list.count);
        for param in &list.count_params {
            count = match param {
                Param::Text(text) => count.bind(text.as_str()),
                Param::Int(int) => count.bind(*int),
                Param::Bool(flag) => count.bind(*flag),
            };
        }
        let mut page = sqlx::query_as::<_, (String, i64, String)>(&list.page);
        for param in &list.page_params {
            page = match param {
                Param::Text(text) => page.bind(text.as_str()),
                Param::Int(int) => page.bind(*int),
                Param::Bool(flag) => page.bind(*flag),
            };
        }
        // One read transaction, so that the count and the page see the same tasks.
        let mut tx = self.reads.begin().await.map_err(backend)?;
        let total = count.fetch_one(&mut *tx).await.map_err(backend)?;
        let rows = page.fetch_all(&mut *tx).await.map_err(backend)?;
        tx.commit().await.map_err(backend)?;
        list.into_page(total, rows)
    }

    pub(crate) async fn events(
        &self,
        scope: &ScopeKey,
        id: &TaskId,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<TaskEvent>>, StoreError> {
        let rows: Vec<(Option<i64>, Option<String>)> = sqlx::query_as(LOAD_EVENTS)
            .bind(id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .bind(to_i64(after))
            .bind(now_millis())
            .bind(to_i64(limit.max(1)))
            .fetch_all(&self.reads)
            .await
            .map_err(backend)?;
        crate::rows::events_from_rows(rows, limit)
    }

    pub(crate) async fn save_push_config(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
        config: &TaskPushNotificationConfig,
        max_per_task: usize,
        deliver_after: u64,
    ) -> Result<(), StoreError> {
        let body = serde_json::to_string(config).map_err(json)?;
        let job = Arc::new((
            scope,
            task_id.as_str().to_owned(),
            crate::rows::config_key(config),
            body,
        ));
        let deliver_after = to_i64(deliver_after);
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (scope, task_id, config_id, body) = &*job;
                    let (held, same_id): (i64, i64) = sqlx::query_as(sql::COUNT_PUSH_CONFIGS)
                        .bind(task_id)
                        .bind(&scope.tenant)
                        .bind(scope.has_owner)
                        .bind(&scope.owner)
                        .bind(config_id)
                        .fetch_one(&mut *conn)
                        .await?;
                    if same_id == 0 && usize::try_from(held).unwrap_or(usize::MAX) >= max_per_task {
                        return Ok(Err(crate::rows::push_limit(task_id, max_per_task)));
                    }
                    sqlx::query(sql::UPSERT_PUSH_CONFIG)
                        .bind(task_id)
                        .bind(&scope.tenant)
                        .bind(scope.has_owner)
                        .bind(&scope.owner)
                        .bind(config_id)
                        .bind(body)
                        .bind(deliver_after)
                        .execute(&mut *conn)
                        .await?;
                    Ok(Ok(()))
                })
            })
            .await?
    }

    pub(crate) async fn get_push_config(
        &self,
        scope: &ScopeKey,
        task_id: &TaskId,
        config_id: &str,
    ) -> Result<Option<TaskPushNotificationConfig>, StoreError> {
        let body: Option<String> = sqlx::query_scalar(sql::GET_PUSH_CONFIG)
            .bind(task_id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .bind(config_id)
            .fetch_optional(&self.reads)
            .await
            .map_err(backend)?;
        body.map(|body| serde_json::from_str(&body).map_err(json))
            .transpose()
    }

    pub(crate) async fn list_push_configs(
        &self,
        scope: &ScopeKey,
        task_id: &TaskId,
    ) -> Result<Vec<TaskPushNotificationConfig>, StoreError> {
        let bodies: Vec<String> = sqlx::query_scalar(sql::LIST_PUSH_CONFIGS)
            .bind(task_id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .fetch_all(&self.reads)
            .await
            .map_err(backend)?;
        bodies
            .iter()
            .map(|body| serde_json::from_str(body).map_err(json))
            .collect()
    }

    pub(crate) async fn delete_push_config(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
        config_id: &str,
    ) -> Result<bool, StoreError> {
        let job = Arc::new((scope, task_id.as_str().to_owned(), config_id.to_owned()));
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (scope, task_id, config_id) = &*job;
                    let done = sqlx::query(sql::DELETE_PUSH_CONFIG)
                        .bind(task_id)
                        .bind(&scope.tenant)
                        .bind(scope.has_owner)
                        .bind(&scope.owner)
                        .bind(config_id)
                        .execute(&mut *conn)
                        .await?;
                    Ok(done.rows_affected() > 0)
                })
            })
            .await
    }

    /// Claims due webhooks in one statement; the writer runs one claim at a time, so no
    /// two claims see the same webhook free.
    pub(crate) async fn claim_deliveries(
        &self,
        instance: &str,
        now_ms: u64,
        claim_until_ms: u64,
        limit: usize,
    ) -> Result<Vec<ClaimedWebhook>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let (now, until, limit) = (to_i64(now_ms), to_i64(claim_until_ms), to_i64(limit));
        // Nothing due is the usual answer of a poll: the readers give it without a write
        // transaction queued behind the writer's saves.
        let due: Option<i64> = sqlx::query_scalar(ANY_DUE)
            .bind(now)
            .fetch_optional(&self.reads)
            .await
            .map_err(backend)?;
        if due.is_none() {
            return Ok(Vec::new());
        }
        let instance: Arc<str> = instance.into();
        let rows = self
            .writer
            .write(move |conn| {
                let instance = Arc::clone(&instance);
                Box::pin(async move {
                    sqlx::query_as::<_, ClaimRow>(CLAIM_DELIVERIES)
                        .bind(now)
                        .bind(&*instance)
                        .bind(until)
                        .bind(limit)
                        .fetch_all(&mut *conn)
                        .await
                })
            })
            .await?;
        Ok(claimed_webhooks(rows))
    }

    pub(crate) async fn record_delivery(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
        config_id: &str,
        instance: &str,
        progress: DeliveryProgress,
    ) -> Result<bool, StoreError> {
        let job = Arc::new((
            scope,
            task_id.as_str().to_owned(),
            config_id.to_owned(),
            instance.to_owned(),
            progress_columns(&progress, instance),
        ));
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move {
                    let (scope, task_id, config_id, instance, progress) = &*job;
                    let (delivered, attempts, next_attempt_at, claimed_by, claimed_until) =
                        progress;
                    let done = sqlx::query(sql::RECORD_DELIVERY)
                        .bind(task_id)
                        .bind(&scope.tenant)
                        .bind(scope.has_owner)
                        .bind(&scope.owner)
                        .bind(config_id)
                        .bind(*delivered)
                        .bind(*attempts)
                        .bind(*next_attempt_at)
                        .bind(claimed_by.as_deref())
                        .bind(*claimed_until)
                        .bind(instance)
                        .execute(&mut *conn)
                        .await?;
                    Ok(done.rows_affected() > 0)
                })
            })
            .await
    }

    /// Deletes up to [`CLEANUP_BATCH`] expired tasks per transaction, with their events
    /// and push configs, until none is left; returns how many.
    pub(crate) async fn delete_expired(&self) -> Result<u64, StoreError> {
        let mut deleted = 0;
        loop {
            let now = now_millis();
            let batch = self
                .writer
                .write(move |conn| Box::pin(delete_expired(conn, now)))
                .await?;
            deleted += batch;
            if batch < to_u64(CLEANUP_BATCH) {
                return Ok(deleted);
            }
        }
    }

    pub(crate) async fn acquire_lease(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
    ) -> Result<bool, StoreError> {
        let job = Arc::new((scope, task_id.as_str().to_owned()));
        let (holder, ttl) = (Arc::clone(&self.instance_id), self.lease_ttl);
        self.writer
            .write(move |conn| {
                let (job, holder) = (Arc::clone(&job), Arc::clone(&holder));
                Box::pin(async move {
                    let (scope, task_id) = &*job;
                    let now = now_millis();
                    let taken = sqlx::query(sql::ACQUIRE_LEASE)
                        .bind(task_id)
                        .bind(&scope.tenant)
                        .bind(scope.has_owner)
                        .bind(&scope.owner)
                        .bind(&*holder)
                        .bind(millis_after(now, ttl))
                        .bind(now)
                        .execute(&mut *conn)
                        .await?;
                    if taken.rows_affected() > 0 {
                        return Ok(true);
                    }
                    // Nothing changed: another instance's live lease, or no such task (for
                    // which there is nothing to hold).
                    let leased = sqlx::query(sql::LEASED_TO_ANOTHER)
                        .bind(task_id)
                        .bind(&scope.tenant)
                        .bind(scope.has_owner)
                        .bind(&scope.owner)
                        .bind(&*holder)
                        .bind(now)
                        .fetch_optional(&mut *conn)
                        .await?;
                    Ok(leased.is_none())
                })
            })
            .await
    }

    pub(crate) async fn renew_leases(&self, task_ids: &[TaskId]) -> Result<(), StoreError> {
        if task_ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<&str> = task_ids.iter().map(TaskId::as_str).collect();
        let ids: Arc<str> = serde_json::to_string(&ids).map_err(json)?.into();
        let (holder, ttl) = (Arc::clone(&self.instance_id), self.lease_ttl);
        self.writer
            .write(move |conn| {
                let (ids, holder) = (Arc::clone(&ids), Arc::clone(&holder));
                Box::pin(async move {
                    sqlx::query(
                        "UPDATE tasks SET lease_expires_at = $1 \
                         WHERE lease_holder = $2 AND task_id IN (SELECT value FROM json_each($3))",
                    )
                    .bind(millis_after(now_millis(), ttl))
                    .bind(&*holder)
                    .bind(&*ids)
                    .execute(&mut *conn)
                    .await?;
                    Ok(())
                })
            })
            .await
    }

    pub(crate) async fn release_lease(&self, task_id: &TaskId) -> Result<(), StoreError> {
        let task_id: Arc<str> = task_id.as_str().into();
        let holder = Arc::clone(&self.instance_id);
        self.writer
            .write(move |conn| {
                let (task_id, holder) = (Arc::clone(&task_id), Arc::clone(&holder));
                Box::pin(async move {
                    sqlx::query(sql::RELEASE_LEASE)
                        .bind(&*task_id)
                        .bind(&*holder)
                        .execute(&mut *conn)
                        .await?;
                    Ok(())
                })
            })
            .await
    }

    pub(crate) async fn claim_expired_leases(
        &self,
        limit: usize,
    ) -> Result<Vec<ExpiredLease>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let (holder, ttl) = (Arc::clone(&self.instance_id), self.lease_ttl);
        self.writer
            .write(move |conn| {
                let holder = Arc::clone(&holder);
                Box::pin(async move { claim_expired(conn, &holder, ttl, limit).await })
            })
            .await
    }
}

/// One save, inside the writer's transaction.
async fn save(
    conn: &mut SqliteConnection,
    job: &SaveJob,
    expiry: Expiry,
) -> Result<Result<Saved, StoreError>, sqlx::Error> {
    let now = now_millis();
    let expires_at = expiry.expires_at(now);
    let (scope, row) = (&job.scope, &job.row);
    let count = to_i64(job.events.len());
    let lease = lease_of(job, now);
    // Up to a point, the events go in the statement of the save itself: one round trip to
    // SQLite's thread instead of two.
    let inline = job.events.len() <= EVENTS_PER_INSERT;
    let saved: Option<(i64, i64)> = match job.expected {
        Expected::Version(Version(version)) => {
            let statement = with_events(UPDATE_TASK, 17, if inline { &job.events } else { &[] });
            let mut query = sqlx::query_as(&statement)
                .bind(&row.task_id)
                .bind(&scope.tenant)
                .bind(scope.has_owner)
                .bind(&scope.owner)
                .bind(to_i64(version))
                .bind(&row.context_id)
                .bind(row.state)
                .bind(row.sort_millis)
                .bind(row.sub_millis_nanos)
                .bind(&row.body)
                .bind(count)
                .bind(row.terminal)
                .bind(now)
                .bind(expires_at)
                .bind(lease.0)
                .bind(lease.1);
            if inline {
                for body in &job.events {
                    query = query.bind(body.as_str());
                }
            }
            // All rows, not the first: stopping at the first row would skip the events.
            let saved = query.fetch_all(&mut *conn).await?.into_iter().next();
            if saved.is_none() {
                let found = find(conn, &row.task_id).await?;
                return Ok(Err(version_refusal(
                    &row.task_id,
                    found.map(|(stored, expires_at, _)| (stored, expires_at)),
                    scope,
                    now,
                )));
            }
            saved
        }
        Expected::Absent => {
            let mut saved = insert(conn, job, first_version(None), now, expires_at, inline).await?;
            if saved.is_none() {
                match find(conn, &row.task_id).await? {
                    // An expired task gives its id up: it goes, with its events and push
                    // configs, and the new one takes a greater version than it had.
                    Some((_, Some(expired_at), version)) if expired_at <= now => {
                        sqlx::query(sql::DELETE_TASK_PUSH_CONFIGS)
                            .bind(&row.task_id)
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query(DELETE_TASK_EVENTS)
                            .bind(&row.task_id)
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query(sql::DELETE_TASK)
                            .bind(&row.task_id)
                            .execute(&mut *conn)
                            .await?;
                        let version = first_version(Some(version));
                        saved = insert(conn, job, version, now, expires_at, inline).await?;
                    }
                    _ => {}
                }
            }
            if saved.is_none() {
                // Task ids are global: any scope's live task conflicts.
                return Ok(Err(StoreError::Conflict {
                    task_id: TaskId::new(row.task_id.clone()),
                }));
            }
            saved
        }
    };
    let Some((version, last_sequence)) = saved else {
        return Ok(Err(StoreError::Conflict {
            task_id: TaskId::new(row.task_id.clone()),
        }));
    };
    if !inline {
        append_events(conn, &row.task_id, last_sequence - count + 1, &job.events).await?;
    }
    Ok(Ok(Saved {
        version: Version(to_u64(version)),
        last_sequence: to_u64(last_sequence),
    }))
}

/// The lease columns a save writes: this instance until a lease TTL from now while a turn
/// runs, nobody otherwise.
fn lease_of(job: &SaveJob, now: i64) -> (Option<&str>, Option<i64>) {
    if job.row.running {
        (
            Some(&*job.instance_id),
            Some(millis_after(now, job.lease_ttl)),
        )
    } else {
        (None, None)
    }
}

/// `$1` task id: deletes its event log.
const DELETE_TASK_EVENTS: &str =
    "DELETE FROM task_events WHERE task_key = (SELECT task_key FROM tasks WHERE task_id = $1)";

/// `$1` task id, `$2…$4` scope, `$5` expected version, `$6…$10` columns (`$6`, the
/// context, unused: a task keeps its context for life, as A2A ties a task to one, and
/// leaving it out keeps saves off the context index), `$11` number of events, `$12`
/// terminal, `$13` now, `$14` expiry if it becomes terminal now, `$15` lease holder, `$16`
/// lease expiry → new version, last sequence.
const UPDATE_TASK: &str = "UPDATE tasks SET state = $7, sort_millis = $8, \
     sub_millis_nanos = $9, body = $10, version = version + 1, \
     last_sequence = last_sequence + $11, \
     terminal_at = CASE WHEN $12 THEN COALESCE(terminal_at, $13) ELSE NULL END, \
     expires_at = CASE WHEN $12 THEN \
     (CASE WHEN terminal_at IS NULL THEN $14 ELSE expires_at END) ELSE NULL END, \
     lease_holder = $15, lease_expires_at = $16 \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 AND version = $5 \
     AND (expires_at IS NULL OR expires_at > $13) \
     RETURNING version, last_sequence";

/// `$1` task id, `$2…$4` scope, `$5` version, `$6…$10` columns, `$11` number of events,
/// `$12` terminal at, `$13` lease holder, `$14` lease expiry, `$15` expiry → version, last
/// sequence; no row when the id is taken.
const INSERT_TASK: &str = "INSERT INTO tasks (task_id, tenant, has_owner, owner, version, \
     context_id, state, sort_millis, sub_millis_nanos, body, last_sequence, terminal_at, \
     lease_holder, lease_expires_at, expires_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) \
     ON CONFLICT (task_id) DO NOTHING RETURNING version, last_sequence";

/// Creates the task, with its events when `inline`; `None` when the id is taken.
async fn insert(
    conn: &mut SqliteConnection,
    job: &SaveJob,
    version: i64,
    now: i64,
    expires_at: Option<i64>,
    inline: bool,
) -> Result<Option<(i64, i64)>, sqlx::Error> {
    let (scope, row) = (&job.scope, &job.row);
    let lease = lease_of(job, now);
    let statement = with_events(INSERT_TASK, 16, if inline { &job.events } else { &[] });
    let mut query = sqlx::query_as(&statement)
        .bind(&row.task_id)
        .bind(&scope.tenant)
        .bind(scope.has_owner)
        .bind(&scope.owner)
        .bind(version)
        .bind(&row.context_id)
        .bind(row.state)
        .bind(row.sort_millis)
        .bind(row.sub_millis_nanos)
        .bind(&row.body)
        .bind(to_i64(job.events.len()))
        .bind(row.terminal.then_some(now))
        .bind(lease.0)
        .bind(lease.1)
        .bind(expires_at.filter(|_| row.terminal));
    if inline {
        for body in &job.events {
            query = query.bind(body.as_str());
        }
    }
    Ok(query.fetch_all(&mut *conn).await?.into_iter().next())
}

/// `statement` (an `UPDATE` or `INSERT` of the task, `$1` its id and `$11` its number of
/// events, returning its last sequence number) followed by the `INSERT` of `events` as
/// `$first…`, numbered up to that last sequence number. The events go in only when the
/// task statement changed a row (`changes()`), so a refused save appends nothing.
fn with_events(statement: &str, first: usize, events: &[String]) -> String {
    if events.is_empty() {
        return statement.to_owned();
    }
    let mut sql = format!(
        "{statement}; INSERT INTO task_events (task_key, sequence, body) \
         SELECT task.task_key, task.last_sequence - $11 + event.column1, event.column2 \
         FROM tasks AS task, (VALUES "
    );
    for index in 0..events.len() {
        let separator = if index == 0 { "" } else { ", " };
        let _ = write!(sql, "{separator}({}, ${})", index + 1, first + index);
    }
    sql.push_str(") AS event WHERE task.task_id = $1 AND changes() = 1");
    sql
}

/// The row stored under `task_id`: scope, expiry, version.
async fn find(
    conn: &mut SqliteConnection,
    task_id: &str,
) -> Result<Option<(ScopeKey, Option<i64>, i64)>, sqlx::Error> {
    let row: Option<SqliteRow> = sqlx::query(sql::FIND_TASK)
        .bind(task_id)
        .fetch_optional(&mut *conn)
        .await?;
    row.map(|row| {
        Ok((
            ScopeKey {
                tenant: row.try_get(0)?,
                has_owner: row.try_get(1)?,
                owner: row.try_get(2)?,
            },
            row.try_get(3)?,
            row.try_get(4)?,
        ))
    })
    .transpose()
}

async fn append_events(
    conn: &mut SqliteConnection,
    task_id: &str,
    first: i64,
    events: &[String],
) -> Result<(), sqlx::Error> {
    let mut sequence = first;
    for chunk in events.chunks(EVENTS_PER_INSERT) {
        let mut statement = String::from(
            "INSERT INTO task_events (task_key, sequence, body) \
             SELECT (SELECT task_key FROM tasks WHERE task_id = $1), column1, column2 \
             FROM (VALUES ",
        );
        for index in 0..chunk.len() {
            let separator = if index == 0 { "" } else { ", " };
            let _ = write!(
                statement,
                "{separator}(${}, ${})",
                2 * index + 2,
                2 * index + 3
            );
        }
        statement.push(')');
        let mut query = sqlx::query(&statement).bind(task_id);
        for body in chunk {
            query = query.bind(sequence).bind(body.as_str());
            sequence += 1;
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

/// `$1` now, `$2` instance, `$3` claimed until, `$4` limit → the claimed webhooks
/// ([`ClaimRow`]), the soonest due first.
const CLAIM_DELIVERIES: &str = concat!(
    "UPDATE push_configs SET claimed_by = $2, claimed_until = $3 \
     WHERE rowid IN (SELECT c.rowid ",
    sql::claimable!(),
    " ORDER BY c.next_attempt_at LIMIT $4) \
     RETURNING tenant, has_owner, owner, task_id, body, delivered_sequence, attempts"
);

/// `$1` now → a row when some webhook is due.
const ANY_DUE: &str = concat!("SELECT 1 ", sql::claimable!(), " LIMIT 1");

/// [`sql::LOAD_EVENTS`] for SQLite, whose events are keyed by the task's `task_key`.
const LOAD_EVENTS: &str = "SELECT e.sequence, e.body FROM tasks t \
     LEFT JOIN task_events e ON e.task_key = t.task_key AND e.sequence > $5 \
     WHERE t.task_id = $1 AND t.tenant = $2 AND t.has_owner = $3 AND t.owner = $4 \
     AND (t.expires_at IS NULL OR t.expires_at > $6) \
     ORDER BY e.sequence LIMIT $7";

async fn delete_expired(conn: &mut SqliteConnection, now: i64) -> Result<u64, sqlx::Error> {
    let doomed: Vec<(i64, String)> =
        sqlx::query_as("SELECT task_key, task_id FROM tasks WHERE expires_at <= $1 LIMIT $2")
            .bind(now)
            .bind(CLEANUP_BATCH)
            .fetch_all(&mut *conn)
            .await?;
    if doomed.is_empty() {
        return Ok(0);
    }
    let (keys, ids): (Vec<i64>, Vec<String>) = doomed.into_iter().unzip();
    let encode = |error| sqlx::Error::Encode(Box::new(error));
    let (keys, ids) = (
        serde_json::to_string(&keys).map_err(encode)?,
        serde_json::to_string(&ids).map_err(encode)?,
    );
    let statements = [
        (
            "DELETE FROM push_configs WHERE task_id IN (SELECT value FROM json_each($1))",
            &ids,
        ),
        (
            "DELETE FROM task_events WHERE task_key IN (SELECT value FROM json_each($1))",
            &keys,
        ),
        (
            "DELETE FROM tasks WHERE task_key IN (SELECT value FROM json_each($1))",
            &keys,
        ),
    ];
    let mut deleted = 0;
    for (statement, list) in statements {
        deleted = sqlx::query(statement)
            .bind(list)
            .execute(&mut *conn)
            .await?
            .rows_affected();
    }
    // The tasks, the last statement's.
    Ok(deleted)
}

async fn claim_expired(
    conn: &mut SqliteConnection,
    holder: &str,
    ttl: Duration,
    limit: usize,
) -> Result<Vec<ExpiredLease>, sqlx::Error> {
    let now = now_millis();
    let rows: Vec<(String, String, bool, String, String)> = sqlx::query_as(
        "SELECT task_id, tenant, has_owner, owner, lease_holder FROM tasks \
         WHERE lease_expires_at <= $1 AND terminal_at IS NULL \
         ORDER BY lease_expires_at, task_id LIMIT $2",
    )
    .bind(now)
    .bind(to_i64(limit))
    .fetch_all(&mut *conn)
    .await?;
    let mut claimed = Vec::with_capacity(rows.len());
    for (task_id, tenant, has_owner, owner, previous) in rows {
        sqlx::query("UPDATE tasks SET lease_holder = $1, lease_expires_at = $2 WHERE task_id = $3")
            .bind(holder)
            .bind(millis_after(now, ttl))
            .bind(&task_id)
            .execute(&mut *conn)
            .await?;
        claimed.push(ExpiredLease {
            scope: ScopeKey {
                tenant,
                has_owner,
                owner,
            }
            .into_scope(),
            task_id: TaskId::new(task_id),
            holder: previous,
        });
    }
    Ok(claimed)
}
