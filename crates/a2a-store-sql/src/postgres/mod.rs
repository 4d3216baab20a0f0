//! The PostgreSQL backend: a connection pool, one statement per save, and LISTEN/NOTIFY
//! for cluster signals ([`listener`]).

mod listener;

use std::sync::Arc;
use std::time::Duration;

use a2a_server::TaskEvent;
use a2a_server::cluster::{ClusterSignal, ExpiredLease};
use a2a_server::store::{
    ClaimedWebhook, DeliveryProgress, Expected, Saved, StoreError, StoredTask, TaskPage, TaskQuery,
    Version,
};
use a2a_types::{TaskId, TaskPushNotificationConfig};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions, PgRow};
use sqlx::{ConnectOptions, Connection, PgConnection, PgPool, Row};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::error::{SqlStoreError, backend, json};
use crate::list::{ListSql, Param};
use crate::options::SqlStoreOptions;
use crate::rows::{
    ClaimRow, Expiry, ScopeKey, TaskRow, claimed_webhooks, decode_stored, events_from_rows,
    first_version, millis_after, now_millis, progress_columns, push_limit, to_i64, to_u64,
    version_refusal,
};
use crate::{schema, sql};

/// Expired tasks deleted per cleanup statement.
const CLEANUP_BATCH: i64 = 500;

/// How often a create retries when the id it wants belongs to an expired task that
/// another instance is replacing at the same moment.
const CREATE_ATTEMPTS: usize = 3;

/// A PostgreSQL database (one schema of it).
#[derive(Debug, Clone)]
pub(crate) struct Postgres {
    pool: PgPool,
    expiry: Expiry,
    /// The NOTIFY channel of this schema.
    channel: String,
    /// The lease holder this instance writes.
    instance_id: Arc<str>,
    lease_ttl: Duration,
}

impl Postgres {
    /// Connects, creates the schema when missing, brings it up to date, and starts
    /// listening for other instances' signals, which go to `signals`.
    pub(crate) async fn open(
        options: PgConnectOptions,
        settings: &SqlStoreOptions,
        url: &str,
        instance_id: &str,
        signals: broadcast::Sender<ClusterSignal>,
        shutdown: CancellationToken,
    ) -> Result<Self, SqlStoreError> {
        let connect_failed = |source| SqlStoreError::Connect {
            url: url.to_owned(),
            source,
        };
        let schema = settings.postgres_schema.as_deref();
        let mut options = options.disable_statement_logging();
        // Set at connection start-up, so every pooled connection (and the listener's) has
        // them without a round trip of its own.
        if let Some(schema) = schema {
            options = options.options([("search_path", format!("\"{schema}\""))]);
        }
        if !settings.postgres_synchronous_commit {
            options = options.options([("synchronous_commit", "off")]);
        }
        let pool = PgPoolOptions::new()
            .max_connections(settings.max_connections.max(1))
            .min_connections(settings.min_connections)
            .acquire_timeout(settings.acquire_timeout)
            .connect_with(options.clone())
            .await
            .map_err(connect_failed)?;
        let migrated = match pool.acquire().await {
            Ok(mut conn) => schema::migrate_postgres(&mut conn, schema, url).await,
            Err(error) => Err(connect_failed(error)),
        };
        if let Err(error) = migrated {
            pool.close().await;
            return Err(error);
        }
        let channel = channel_name(schema);
        // The listener has a pool of its own: its connection is held for good, and must
        // not count against the pool the store's calls use.
        let listener_pool = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(settings.acquire_timeout)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_lazy_with(options);
        listener::start(
            listener_pool,
            channel.clone(),
            instance_id.to_owned(),
            signals,
            shutdown,
        )
        .await
        .map_err(connect_failed)?;
        Ok(Self {
            pool,
            expiry: Expiry::new(settings.completed_task_ttl),
            channel,
            instance_id: instance_id.into(),
            lease_ttl: settings.lease_ttl,
        })
    }

    pub(crate) async fn close(&self) {
        self.pool.close().await;
    }

    /// The secret `name`, `offer` kept as it when none was stored yet.
    pub(crate) async fn shared_secret(
        &self,
        name: &str,
        offer: Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        sqlx::query(sql::OFFER_SECRET)
            .bind(name)
            .bind(offer)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        sqlx::query_scalar(sql::READ_SECRET)
            .bind(name)
            .fetch_one(&self.pool)
            .await
            .map_err(backend)
    }

    pub(crate) async fn locate(&self, id: &TaskId) -> Result<Option<ScopeKey>, StoreError> {
        let row: Option<(String, bool, String)> = sqlx::query_as(sql::LOCATE_TASK)
            .bind(id.as_str())
            .bind(now_millis())
            .fetch_optional(&self.pool)
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
            .fetch_optional(&self.pool)
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
        let now = now_millis();
        let expires_at = self.expiry.expires_at(now);
        let task_id = || TaskId::new(row.task_id.clone());
        let lease = self.lease_of(&row, now);
        match expected {
            Expected::Version(Version(version)) => {
                let saved: Option<(i64, i64)> = sqlx::query_as(UPDATE_TASK)
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
                    .bind(to_i64(events.len()))
                    .bind(row.terminal)
                    .bind(now)
                    .bind(expires_at)
                    .bind(lease.0)
                    .bind(lease.1)
                    .bind(&events)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(backend)?;
                match saved {
                    Some(saved) => Ok(to_saved(saved)),
                    None => {
                        let found = find(&self.pool, &row.task_id).await?;
                        Err(version_refusal(
                            &row.task_id,
                            found.map(|(stored, expires_at, _)| (stored, expires_at)),
                            &scope,
                            now,
                        ))
                    }
                }
            }
            Expected::Absent => {
                for _ in 0..CREATE_ATTEMPTS {
                    let mut conn = self.pool.acquire().await.map_err(backend)?;
                    let create = Create {
                        scope: &scope,
                        row: &row,
                        events: &events,
                        version: first_version(None),
                        now,
                        expires_at: expires_at.filter(|_| row.terminal),
                        lease,
                    };
                    if let Some(saved) = insert(&mut conn, &create).await? {
                        return Ok(to_saved(saved));
                    }
                    match find(&mut *conn, &row.task_id).await? {
                        // An expired task gives its id up: it goes, with its events and
                        // push configs, and the new one takes a greater version.
                        Some((_, Some(expired_at), version)) if expired_at <= now => {
                            let create = Create {
                                version: first_version(Some(version)),
                                ..create
                            };
                            let replaced = replace_expired(&mut conn, &create).await?;
                            if let Some(saved) = replaced {
                                return Ok(to_saved(saved));
                            }
                        }
                        // Task ids are global: any scope's live task conflicts.
                        Some(_) => return Err(StoreError::Conflict { task_id: task_id() }),
                        // Gone between the two statements: try again.
                        None => {}
                    }
                }
                Err(StoreError::Conflict { task_id: task_id() })
            }
        }
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
        // REPEATABLE READ: the count and the page see the same tasks.
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        let mut tx = conn
            .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .await
            .map_err(backend)?;
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
        let rows: Vec<(Option<i64>, Option<String>)> = sqlx::query_as(sql::LOAD_EVENTS)
            .bind(id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .bind(to_i64(after))
            .bind(now_millis())
            .bind(to_i64(limit.max(1)))
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        events_from_rows(rows, limit)
    }

    pub(crate) async fn save_push_config(
        &self,
        scope: &ScopeKey,
        task_id: &TaskId,
        config: &TaskPushNotificationConfig,
        max_per_task: usize,
        deliver_after: u64,
    ) -> Result<(), StoreError> {
        let body = serde_json::to_string(config).map_err(json)?;
        let config_id = crate::rows::config_key(config);
        let mut tx = self.pool.begin().await.map_err(backend)?;
        // Saves for one task take turns, so that two new configs cannot both pass the
        // count. The lock ends with the transaction.
        sqlx::query("SELECT pg_advisory_xact_lock(6369889, hashtext($1))")
            .bind(task_id.as_str())
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        let (held, same_id): (i64, i64) = sqlx::query_as(sql::COUNT_PUSH_CONFIGS)
            .bind(task_id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .bind(&config_id)
            .fetch_one(&mut *tx)
            .await
            .map_err(backend)?;
        if same_id == 0 && usize::try_from(held).unwrap_or(usize::MAX) >= max_per_task {
            return Err(push_limit(task_id.as_str(), max_per_task));
        }
        sqlx::query(sql::UPSERT_PUSH_CONFIG)
            .bind(task_id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .bind(&config_id)
            .bind(&body)
            .bind(to_i64(deliver_after))
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        tx.commit().await.map_err(backend)
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
            .fetch_optional(&self.pool)
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
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        bodies
            .iter()
            .map(|body| serde_json::from_str(body).map_err(json))
            .collect()
    }

    pub(crate) async fn delete_push_config(
        &self,
        scope: &ScopeKey,
        task_id: &TaskId,
        config_id: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(sql::DELETE_PUSH_CONFIG)
            .bind(task_id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .bind(config_id)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        Ok(done.rows_affected() > 0)
    }

    /// Claims due webhooks in one statement. `SKIP LOCKED`: instances claiming at once
    /// split the due webhooks between them instead of waiting for each other; a webhook
    /// another one claimed meanwhile fails the re-check of the claim condition on its new
    /// row, so none is handed out twice.
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
        let rows: Vec<ClaimRow> = sqlx::query_as(CLAIM_DELIVERIES)
            .bind(to_i64(now_ms))
            .bind(instance)
            .bind(to_i64(claim_until_ms))
            .bind(to_i64(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        Ok(claimed_webhooks(rows))
    }

    pub(crate) async fn record_delivery(
        &self,
        scope: &ScopeKey,
        task_id: &TaskId,
        config_id: &str,
        instance: &str,
        progress: DeliveryProgress,
    ) -> Result<bool, StoreError> {
        let (delivered, attempts, next_attempt_at, claimed_by, claimed_until) =
            progress_columns(&progress, instance);
        let done = sqlx::query(sql::RECORD_DELIVERY)
            .bind(task_id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .bind(config_id)
            .bind(delivered)
            .bind(attempts)
            .bind(next_attempt_at)
            .bind(claimed_by)
            .bind(claimed_until)
            .bind(instance)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        Ok(done.rows_affected() > 0)
    }

    /// Deletes expired tasks, [`CLEANUP_BATCH`] per statement, with their events and push
    /// configs; returns how many. Rows another instance is deleting are skipped.
    pub(crate) async fn delete_expired(&self) -> Result<u64, StoreError> {
        let mut deleted = 0;
        loop {
            let done = sqlx::query(
                "WITH doomed AS (SELECT task_id FROM tasks WHERE expires_at <= $1 \
                 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED), \
                 configs AS (DELETE FROM push_configs \
                 WHERE task_id IN (SELECT task_id FROM doomed)) \
                 DELETE FROM tasks WHERE task_id IN (SELECT task_id FROM doomed)",
            )
            .bind(now_millis())
            .bind(CLEANUP_BATCH)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
            deleted += done.rows_affected();
            if done.rows_affected() < to_u64(CLEANUP_BATCH) {
                return Ok(deleted);
            }
        }
    }

    /// The lease columns a save writes: this instance until a lease TTL from now while a
    /// turn runs, nobody otherwise.
    fn lease_of(&self, row: &TaskRow, now: i64) -> (Option<&str>, Option<i64>) {
        if row.running {
            (
                Some(&*self.instance_id),
                Some(millis_after(now, self.lease_ttl)),
            )
        } else {
            (None, None)
        }
    }

    pub(crate) async fn acquire_lease(
        &self,
        scope: &ScopeKey,
        task_id: &TaskId,
    ) -> Result<bool, StoreError> {
        let now = now_millis();
        let taken = sqlx::query(sql::ACQUIRE_LEASE)
            .bind(task_id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .bind(&*self.instance_id)
            .bind(millis_after(now, self.lease_ttl))
            .bind(now)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        if taken.rows_affected() > 0 {
            return Ok(true);
        }
        // Nothing changed: another instance's live lease, or no such task (for which there
        // is nothing to hold).
        let leased = sqlx::query(sql::LEASED_TO_ANOTHER)
            .bind(task_id.as_str())
            .bind(&scope.tenant)
            .bind(scope.has_owner)
            .bind(&scope.owner)
            .bind(&*self.instance_id)
            .bind(now)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)?;
        Ok(leased.is_none())
    }

    pub(crate) async fn renew_leases(&self, task_ids: &[TaskId]) -> Result<(), StoreError> {
        if task_ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<&str> = task_ids.iter().map(TaskId::as_str).collect();
        sqlx::query(
            "UPDATE tasks SET lease_expires_at = $1 \
             WHERE lease_holder = $2 AND task_id = ANY($3)",
        )
        .bind(millis_after(now_millis(), self.lease_ttl))
        .bind(&*self.instance_id)
        .bind(&ids)
        .execute(&self.pool)
        .await
        .map_err(backend)?;
        Ok(())
    }

    pub(crate) async fn release_lease(&self, task_id: &TaskId) -> Result<(), StoreError> {
        sqlx::query(sql::RELEASE_LEASE)
            .bind(task_id.as_str())
            .bind(&*self.instance_id)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        Ok(())
    }

    pub(crate) async fn claim_expired_leases(
        &self,
        limit: usize,
    ) -> Result<Vec<ExpiredLease>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let now = now_millis();
        // SKIP LOCKED: two instances claiming at once split the expired leases between
        // them instead of waiting for each other, and none is claimed twice.
        let rows: Vec<(String, String, bool, String, String)> = sqlx::query_as(
            "WITH expired AS (SELECT task_id, lease_holder FROM tasks \
             WHERE lease_expires_at <= $1 AND terminal_at IS NULL \
             ORDER BY lease_expires_at, task_id LIMIT $2 FOR UPDATE SKIP LOCKED) \
             UPDATE tasks AS task SET lease_holder = $3, lease_expires_at = $4 FROM expired \
             WHERE task.task_id = expired.task_id \
             RETURNING task.task_id, task.tenant, task.has_owner, task.owner, \
             expired.lease_holder",
        )
        .bind(now)
        .bind(to_i64(limit))
        .bind(&*self.instance_id)
        .bind(millis_after(now, self.lease_ttl))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        Ok(rows
            .into_iter()
            .map(
                |(task_id, tenant, has_owner, owner, previous)| ExpiredLease {
                    scope: ScopeKey {
                        tenant,
                        has_owner,
                        owner,
                    }
                    .into_scope(),
                    task_id: TaskId::new(task_id),
                    holder: previous,
                },
            )
            .collect())
    }

    /// Sends `payload` to every instance listening on this schema's channel.
    pub(crate) async fn notify(&self, payload: &str) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(&self.channel)
            .bind(payload)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        Ok(())
    }
}

/// The NOTIFY channel of a schema: instances over different schemas never hear each
/// other. Channel names are identifiers of at most 63 bytes; long schema names are
/// shortened and told apart by a hash of the whole name.
pub(crate) fn channel_name(schema: Option<&str>) -> String {
    match schema {
        None => "a2a_signals".to_owned(),
        Some(schema) if schema.len() <= 59 => format!("a2a_{schema}"),
        Some(schema) => {
            // FNV-1a: stable across builds, unlike std's hasher.
            let hash = schema
                .bytes()
                .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                    (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
                });
            format!("a2a_{}_{hash:016x}", &schema[..42])
        }
    }
}

fn to_saved((version, last_sequence): (i64, i64)) -> Saved {
    Saved {
        version: Version(to_u64(version)),
        last_sequence: to_u64(last_sequence),
    }
}

/// The update and the appended events in one statement, so one round trip: `$1` task id,
/// `$2…$4` scope, `$5` expected version, `$6…$10` columns, `$11` number of events, `$12`
/// terminal, `$13` now, `$14` expiry if it becomes terminal now, `$15` lease holder, `$16`
/// lease expiry, `$17` event bodies → new version, last sequence; no row when refused.
const UPDATE_TASK: &str = "WITH saved AS (UPDATE tasks SET context_id = $6, state = $7, \
     sort_millis = $8, sub_millis_nanos = $9, body = $10, version = version + 1, \
     last_sequence = last_sequence + $11, \
     terminal_at = CASE WHEN $12 THEN COALESCE(terminal_at, $13) ELSE NULL END, \
     expires_at = CASE WHEN $12 THEN \
     (CASE WHEN terminal_at IS NULL THEN $14 ELSE expires_at END) ELSE NULL END, \
     lease_holder = $15, lease_expires_at = $16 \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 AND version = $5 \
     AND (expires_at IS NULL OR expires_at > $13) \
     RETURNING version, last_sequence), \
     appended AS (INSERT INTO task_events (task_id, sequence, body) \
     SELECT $1, saved.last_sequence - $11 + event.position, event.body \
     FROM saved, unnest($17::text[]) WITH ORDINALITY AS event (body, position)) \
     SELECT version, last_sequence FROM saved";

/// A create and its events in one statement: `$1` task id, `$2…$4` scope, `$5` version,
/// `$6…$10` columns, `$11` number of events, `$12` terminal at, `$13` lease holder, `$14`
/// lease expiry, `$15` expiry, `$16` event bodies → version, last sequence; no row when the
/// id is taken.
const INSERT_TASK: &str = "WITH saved AS (INSERT INTO tasks (task_id, tenant, has_owner, \
     owner, version, context_id, state, sort_millis, sub_millis_nanos, body, last_sequence, \
     terminal_at, lease_holder, lease_expires_at, expires_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) \
     ON CONFLICT (task_id) DO NOTHING RETURNING version, last_sequence), \
     appended AS (INSERT INTO task_events (task_id, sequence, body) \
     SELECT $1, event.position, event.body \
     FROM saved, unnest($16::text[]) WITH ORDINALITY AS event (body, position)) \
     SELECT version, last_sequence FROM saved";

/// `$1` now, `$2` instance, `$3` claimed until, `$4` limit → the claimed webhooks
/// ([`ClaimRow`]). The candidates are locked in a CTE, which runs once, so that no more
/// than `$4` are claimed (a sub-select under `IN` may be run again by the planner).
const CLAIM_DELIVERIES: &str = concat!(
    "WITH due AS (SELECT c.task_id, c.tenant, c.has_owner, c.owner, c.config_id ",
    sql::claimable!(),
    " ORDER BY c.next_attempt_at LIMIT $4 FOR UPDATE OF c SKIP LOCKED) \
     UPDATE push_configs AS c SET claimed_by = $2, claimed_until = $3 FROM due \
     WHERE c.task_id = due.task_id AND c.tenant = due.tenant \
     AND c.has_owner = due.has_owner AND c.owner = due.owner AND c.config_id = due.config_id \
     RETURNING c.tenant, c.has_owner, c.owner, c.task_id, c.body, c.delivered_sequence, \
     c.attempts"
);

/// A task to create.
struct Create<'a> {
    scope: &'a ScopeKey,
    row: &'a TaskRow,
    events: &'a [String],
    version: i64,
    now: i64,
    expires_at: Option<i64>,
    lease: (Option<&'a str>, Option<i64>),
}

async fn insert(
    conn: &mut PgConnection,
    create: &Create<'_>,
) -> Result<Option<(i64, i64)>, StoreError> {
    let (scope, row) = (create.scope, create.row);
    sqlx::query_as(INSERT_TASK)
        .bind(&row.task_id)
        .bind(&scope.tenant)
        .bind(scope.has_owner)
        .bind(&scope.owner)
        .bind(create.version)
        .bind(&row.context_id)
        .bind(row.state)
        .bind(row.sort_millis)
        .bind(row.sub_millis_nanos)
        .bind(&row.body)
        .bind(to_i64(create.events.len()))
        .bind(row.terminal.then_some(create.now))
        .bind(create.lease.0)
        .bind(create.lease.1)
        .bind(create.expires_at)
        .bind(create.events)
        .fetch_optional(&mut *conn)
        .await
        .map_err(backend)
}

/// Deletes the expired task under the id (if it is still there and still expired) and
/// creates the new one, in one transaction.
async fn replace_expired(
    conn: &mut PgConnection,
    create: &Create<'_>,
) -> Result<Option<(i64, i64)>, StoreError> {
    let task_id = create.row.task_id.as_str();
    let mut tx = conn.begin().await.map_err(backend)?;
    let gone = sqlx::query("DELETE FROM tasks WHERE task_id = $1 AND expires_at <= $2")
        .bind(task_id)
        .bind(create.now)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    if gone.rows_affected() == 0 {
        return Ok(None);
    }
    sqlx::query(sql::DELETE_TASK_PUSH_CONFIGS)
        .bind(task_id)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    let saved = insert(&mut tx, create).await?;
    tx.commit().await.map_err(backend)?;
    Ok(saved)
}

/// The row stored under `task_id`: scope, expiry, version.
async fn find<'e, E>(
    executor: E,
    task_id: &str,
) -> Result<Option<(ScopeKey, Option<i64>, i64)>, StoreError>
where
    E: sqlx::PgExecutor<'e>,
{
    let row: Option<PgRow> = sqlx::query(sql::FIND_TASK)
        .bind(task_id)
        .fetch_optional(executor)
        .await
        .map_err(backend)?;
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
    .map_err(backend)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_names_fit_and_stay_apart() {
        assert_eq!(channel_name(None), "a2a_signals");
        assert_eq!(channel_name(Some("agents")), "a2a_agents");
        let long_a = format!("{}a", "s".repeat(62));
        let long_b = format!("{}b", "s".repeat(62));
        assert!(channel_name(Some(&long_a)).len() <= 63);
        assert_ne!(channel_name(Some(&long_a)), channel_name(Some(&long_b)));
    }
}
