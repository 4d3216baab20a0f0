//! [`Shared`]: the statements both backends run alike, written once.
//!
//! Most statements are the same text on SQLite and PostgreSQL ([`sql`]), bind the same
//! values and map their rows the same way ([`rows`](crate::rows)). What differs is how a
//! backend reaches a connection: SQLite reads from its reader pool and writes through its
//! writer task, PostgreSQL does both on its pool. So each function takes the executor (or
//! the connection, for several statements) the backend hands it. Reads answer with the
//! store's errors; writes answer with sqlx's, for the backend to wrap (the SQLite writer
//! retries a batch on them).
//!
//! The `where` clause of the `impl` is what the statements bind and decode; both databases
//! meet it, so a backend names its database once: `Shared<sqlx::Sqlite>`.

use std::marker::PhantomData;
use std::time::Duration;

use a2a_run::store::StoredRun;
use a2a_server::TaskEvent;
use a2a_server::store::{Expected, StoreError, StoredTask, TaskPage, TaskQuery, Version};
use a2a_types::{TaskId, TaskPushNotificationConfig};
use sqlx::query::{Query, QueryAs, QueryScalar};
use sqlx::{
    ColumnIndex, Database, Decode, Encode, Executor, FromRow, IntoArguments, Transaction, Type,
};

use crate::error::backend;
use crate::list::{ListSql, Param};
use crate::rows::{
    ClaimRow, ProgressColumns, RunRow, SaveColumns, ScopeKey, decode_config, decode_run,
    decode_stored, events_from_rows, first_version, millis_after, now_millis, push_limit, to_i64,
    to_u64,
};
use crate::sql;

/// `query` (a `Query`, `QueryAs` or `QueryScalar`: sqlx has no trait over their `bind`) with
/// `$1` the task id and `$2…$4` the scope bound, as every statement on one task takes them.
macro_rules! bind_scope {
    ($query:expr, $task_id:expr, $scope:expr) => {
        $query
            .bind($task_id)
            .bind($scope.tenant.as_str())
            .bind($scope.has_owner)
            .bind($scope.owner.as_str())
    };
}

/// The shared statements of the database `DB`; never built, only named.
#[derive(Debug)]
pub(crate) struct Shared<DB>(PhantomData<DB>);

/// How many rows a statement changed: each database's result type says it, with no trait
/// over them in sqlx.
pub(crate) trait Affected {
    /// The number of rows changed.
    fn rows(&self) -> u64;
}

impl Affected for sqlx::sqlite::SqliteQueryResult {
    fn rows(&self) -> u64 {
        self.rows_affected()
    }
}

impl Affected for sqlx::postgres::PgQueryResult {
    fn rows(&self) -> u64 {
        self.rows_affected()
    }
}

impl<DB> Shared<DB>
where
    DB: Database,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    usize: ColumnIndex<DB::Row>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    for<'q> &'q [u8]: Encode<'q, DB> + Type<DB>,
    for<'q> bool: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> i32: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<i64>: Encode<'q, DB> + Type<DB>,
    for<'r> String: Decode<'r, DB> + Type<DB>,
    for<'r> Vec<u8>: Decode<'r, DB> + Type<DB>,
    DB::QueryResult: Affected,
{
    /// `SELECT 1` on `reads`: the database answers.
    pub(crate) async fn ping<'c, E>(reads: E) -> Result<(), StoreError>
    where
        E: Executor<'c, Database = DB>,
    {
        sqlx::query("SELECT 1")
            .execute(reads)
            .await
            .map_err(backend)?;
        Ok(())
    }

    /// The scope of the live task `id`, whoever owns it.
    pub(crate) async fn locate<'c, E>(reads: E, id: &TaskId) -> Result<Option<ScopeKey>, StoreError>
    where
        E: Executor<'c, Database = DB>,
    {
        let row: Option<(String, bool, String)> = sqlx::query_as(sql::LOCATE_TASK)
            .bind(id.as_str())
            .bind(now_millis())
            .fetch_optional(reads)
            .await
            .map_err(backend)?;
        Ok(row.map(ScopeKey::from_columns))
    }

    pub(crate) async fn load<'c, E>(
        reads: E,
        scope: &ScopeKey,
        id: &TaskId,
    ) -> Result<Option<StoredTask>, StoreError>
    where
        E: Executor<'c, Database = DB>,
    {
        let row: Option<(String, i64, i64)> = Self::scoped_as(sql::LOAD_TASK, id.as_str(), scope)
            .bind(now_millis())
            .fetch_optional(reads)
            .await
            .map_err(backend)?;
        row.map(|(body, version, last_sequence)| decode_stored(&body, version, last_sequence))
            .transpose()
    }

    /// The events of `id` after `after`, by `statement`: [`sql::LOAD_EVENTS`] in the
    /// database's keys.
    pub(crate) async fn events<'c, E>(
        reads: E,
        statement: &str,
        scope: &ScopeKey,
        id: &TaskId,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<TaskEvent>>, StoreError>
    where
        E: Executor<'c, Database = DB>,
    {
        let rows: Vec<(Option<i64>, Option<String>)> =
            Self::scoped_as(statement, id.as_str(), scope)
                .bind(to_i64(after))
                .bind(now_millis())
                .bind(to_i64(limit.max(1)))
                .fetch_all(reads)
                .await
                .map_err(backend)?;
        events_from_rows(rows, limit)
    }

    /// Counts the tasks `query` finds in `scope` and reads its page in `tx`, a read
    /// transaction the backend opened so that both see the same tasks, then commits it.
    pub(crate) async fn list(
        mut tx: Transaction<'_, DB>,
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
        let total = count.fetch_one(&mut *tx).await.map_err(backend)?;
        let rows = page.fetch_all(&mut *tx).await.map_err(backend)?;
        let page = list.into_page(total, rows)?;
        tx.commit().await.map_err(backend)?;
        Ok(page)
    }

    /// The row stored under `task_id`: scope, expiry, version.
    pub(crate) async fn find<'c, E>(
        executor: E,
        task_id: &str,
    ) -> Result<Option<(ScopeKey, Option<i64>, i64)>, sqlx::Error>
    where
        E: Executor<'c, Database = DB>,
    {
        let row: Option<(String, bool, String, Option<i64>, i64)> = sqlx::query_as(sql::FIND_TASK)
            .bind(task_id)
            .fetch_optional(executor)
            .await?;
        Ok(row.map(|(tenant, has_owner, owner, expires_at, version)| {
            (
                ScopeKey::from_columns((tenant, has_owner, owner)),
                expires_at,
                version,
            )
        }))
    }

    /// The update of a save, `statement`, with [`SaveColumns`] bound: `$1…$11`, then `$12`
    /// whether the task is terminal, `$13` now, `$14` its expiry should it become terminal
    /// now, `$15` lease holder, `$16` lease expiry.
    pub(crate) fn bind_update<'q, O>(
        statement: &'q str,
        save: &SaveColumns<'q>,
    ) -> QueryAs<'q, DB, O, DB::Arguments<'q>>
    where
        O: for<'r> FromRow<'r, DB::Row>,
    {
        Self::bind_columns(statement, save)
            .bind(save.row.terminal)
            .bind(save.now)
            .bind(save.expires_at)
            .bind(save.lease.0)
            .bind(save.lease.1)
    }

    /// The insert of a create, `statement`, with [`SaveColumns`] bound: `$1…$11`, then
    /// `$12` terminal at (now, when the task is terminal), `$13` lease holder, `$14` lease
    /// expiry, `$15` expiry (when the task is terminal).
    pub(crate) fn bind_insert<'q, O>(
        statement: &'q str,
        save: &SaveColumns<'q>,
    ) -> QueryAs<'q, DB, O, DB::Arguments<'q>>
    where
        O: for<'r> FromRow<'r, DB::Row>,
    {
        let terminal = save.row.terminal;
        Self::bind_columns(statement, save)
            .bind(terminal.then_some(save.now))
            .bind(save.lease.0)
            .bind(save.lease.1)
            .bind(save.expires_at.filter(|_| terminal))
    }

    /// `statement` with `$1…$11` of a save bound: task id, scope, version, the row's
    /// columns, number of events.
    fn bind_columns<'q, O>(
        statement: &'q str,
        save: &SaveColumns<'q>,
    ) -> QueryAs<'q, DB, O, DB::Arguments<'q>>
    where
        O: for<'r> FromRow<'r, DB::Row>,
    {
        let row = save.row;
        Self::scoped_as(statement, row.task_id.as_str(), save.scope)
            .bind(save.version)
            .bind(row.context_id.as_str())
            .bind(row.state)
            .bind(row.sort_millis)
            .bind(row.sub_millis_nanos)
            .bind(row.body.as_str())
            .bind(save.events)
    }

    /// The secret `name`, `offer` kept as it when none was stored yet.
    pub(crate) async fn shared_secret(
        conn: &mut DB::Connection,
        name: &str,
        offer: &[u8],
    ) -> Result<Vec<u8>, sqlx::Error> {
        sqlx::query(sql::OFFER_SECRET)
            .bind(name)
            .bind(offer)
            .execute(&mut *conn)
            .await?;
        sqlx::query_scalar(sql::READ_SECRET)
            .bind(name)
            .fetch_one(&mut *conn)
            .await
    }

    /// Stores a push config, refused when it is new and the task holds `max_per_task`
    /// already. The caller keeps other saves for the task out until it commits.
    pub(crate) async fn save_push_config(
        conn: &mut DB::Connection,
        scope: &ScopeKey,
        task_id: &str,
        config_id: &str,
        body: &str,
        max_per_task: usize,
        deliver_after: i64,
    ) -> Result<Result<(), StoreError>, sqlx::Error> {
        let (held, same_id): (i64, i64) = Self::scoped_as(sql::COUNT_PUSH_CONFIGS, task_id, scope)
            .bind(config_id)
            .fetch_one(&mut *conn)
            .await?;
        if same_id == 0 && usize::try_from(held).unwrap_or(usize::MAX) >= max_per_task {
            return Ok(Err(push_limit(task_id, max_per_task)));
        }
        Self::scoped(sql::UPSERT_PUSH_CONFIG, task_id, scope)
            .bind(config_id)
            .bind(body)
            .bind(deliver_after)
            .execute(&mut *conn)
            .await?;
        Ok(Ok(()))
    }

    pub(crate) async fn get_push_config<'c, E>(
        reads: E,
        scope: &ScopeKey,
        task_id: &TaskId,
        config_id: &str,
    ) -> Result<Option<TaskPushNotificationConfig>, StoreError>
    where
        E: Executor<'c, Database = DB>,
    {
        let body: Option<String> =
            Self::scoped_scalar(sql::GET_PUSH_CONFIG, task_id.as_str(), scope)
                .bind(config_id)
                .fetch_optional(reads)
                .await
                .map_err(backend)?;
        body.as_deref().map(decode_config).transpose()
    }

    pub(crate) async fn list_push_configs<'c, E>(
        reads: E,
        scope: &ScopeKey,
        task_id: &TaskId,
    ) -> Result<Vec<TaskPushNotificationConfig>, StoreError>
    where
        E: Executor<'c, Database = DB>,
    {
        let bodies: Vec<String> =
            Self::scoped_scalar(sql::LIST_PUSH_CONFIGS, task_id.as_str(), scope)
                .fetch_all(reads)
                .await
                .map_err(backend)?;
        bodies.iter().map(|body| decode_config(body)).collect()
    }

    /// Deletes a push config; true when there was one.
    pub(crate) async fn delete_push_config<'c, E>(
        executor: E,
        scope: &ScopeKey,
        task_id: &str,
        config_id: &str,
    ) -> Result<bool, sqlx::Error>
    where
        E: Executor<'c, Database = DB>,
    {
        let done = Self::scoped(sql::DELETE_PUSH_CONFIG, task_id, scope)
            .bind(config_id)
            .execute(executor)
            .await?;
        Ok(done.rows() > 0)
    }

    /// Claims due webhooks for `instance` by `statement`, the database's claim, which binds
    /// `$1` now, `$2` instance, `$3` claimed until and `$4` the most to claim.
    pub(crate) async fn claim_deliveries<'c, E>(
        executor: E,
        statement: &str,
        now: i64,
        instance: &str,
        until: i64,
        limit: i64,
    ) -> Result<Vec<ClaimRow>, sqlx::Error>
    where
        E: Executor<'c, Database = DB>,
    {
        sqlx::query_as(statement)
            .bind(now)
            .bind(instance)
            .bind(until)
            .bind(limit)
            .fetch_all(executor)
            .await
    }

    /// Records a delivery's progress while `instance` holds the claim; false when it does
    /// not (or the config is gone).
    pub(crate) async fn record_delivery<'c, E>(
        executor: E,
        scope: &ScopeKey,
        task_id: &str,
        config_id: &str,
        instance: &str,
        progress: &ProgressColumns,
    ) -> Result<bool, sqlx::Error>
    where
        E: Executor<'c, Database = DB>,
    {
        let (delivered, attempts, next_attempt_at, claimed_by, claimed_until) = progress;
        let done = Self::scoped(sql::RECORD_DELIVERY, task_id, scope)
            .bind(config_id)
            .bind(*delivered)
            .bind(*attempts)
            .bind(*next_attempt_at)
            .bind(claimed_by.as_deref())
            .bind(*claimed_until)
            .bind(instance)
            .execute(executor)
            .await?;
        Ok(done.rows() > 0)
    }

    /// Takes (or renews) the turn lease of a task for `holder`, for `ttl`; false when
    /// another holder's lease on it is live.
    pub(crate) async fn acquire_lease(
        conn: &mut DB::Connection,
        scope: &ScopeKey,
        task_id: &str,
        holder: &str,
        ttl: Duration,
    ) -> Result<bool, sqlx::Error> {
        let now = now_millis();
        let taken = Self::scoped(sql::ACQUIRE_LEASE, task_id, scope)
            .bind(holder)
            .bind(millis_after(now, ttl))
            .bind(now)
            .execute(&mut *conn)
            .await?;
        if taken.rows() > 0 {
            return Ok(true);
        }
        // Nothing changed: another instance's live lease, or no such task (for which there
        // is nothing to hold).
        let leased = Self::scoped(sql::LEASED_TO_ANOTHER, task_id, scope)
            .bind(holder)
            .bind(now)
            .fetch_optional(&mut *conn)
            .await?;
        Ok(leased.is_none())
    }

    pub(crate) async fn release_lease<'c, E>(
        executor: E,
        task_id: &str,
        holder: &str,
    ) -> Result<(), sqlx::Error>
    where
        E: Executor<'c, Database = DB>,
    {
        sqlx::query(sql::RELEASE_LEASE)
            .bind(task_id)
            .bind(holder)
            .execute(executor)
            .await?;
        Ok(())
    }

    /// The run of task `id` in `scope`.
    pub(crate) async fn load_run<'c, E>(
        reads: E,
        scope: &ScopeKey,
        id: &TaskId,
    ) -> Result<Option<StoredRun>, StoreError>
    where
        E: Executor<'c, Database = DB>,
    {
        let row: Option<(String, i64)> = Self::scoped_as(sql::LOAD_RUN, id.as_str(), scope)
            .fetch_optional(reads)
            .await
            .map_err(backend)?;
        row.map(|(state, version)| decode_run(&state, version))
            .transpose()
    }

    /// Saves a run if the stored one is as `expected`: an update naming the version, or an
    /// insert that no run of the task (in any scope) may precede. A refused update is a
    /// conflict when the run is there in `scope`, not found otherwise.
    pub(crate) async fn save_run(
        conn: &mut DB::Connection,
        scope: &ScopeKey,
        row: &RunRow,
        expected: Expected,
    ) -> Result<Result<Version, StoreError>, sqlx::Error> {
        let now = now_millis();
        let task_id = row.task_id.as_str();
        let (statement, version) = match expected {
            Expected::Version(Version(version)) => (sql::UPDATE_RUN, to_i64(version)),
            Expected::Absent => (sql::INSERT_RUN, first_version(None)),
        };
        let saved: Option<i64> = Self::scoped_scalar(statement, task_id, scope)
            .bind(version)
            .bind(row.status.as_str())
            .bind(row.state.as_str())
            .bind(now)
            .fetch_all(&mut *conn)
            .await?
            .into_iter()
            .next();
        if let Some(version) = saved {
            return Ok(Ok(Version(to_u64(version))));
        }
        let refused = TaskId::new(task_id);
        if expected == Expected::Absent {
            return Ok(Err(StoreError::Conflict { task_id: refused }));
        }
        Ok(Err(
            if Self::run_exists(&mut *conn, scope, task_id).await? {
                StoreError::Conflict { task_id: refused }
            } else {
                StoreError::NotFound { task_id: refused }
            },
        ))
    }

    /// Whether `task_id` has a run in `scope`.
    pub(crate) async fn run_exists<'c, E>(
        executor: E,
        scope: &ScopeKey,
        task_id: &str,
    ) -> Result<bool, sqlx::Error>
    where
        E: Executor<'c, Database = DB>,
    {
        let found = Self::scoped(sql::FIND_RUN, task_id, scope)
            .fetch_optional(executor)
            .await?;
        Ok(found.is_some())
    }

    /// Deletes the run of `task_id` in `scope`; true when there was one.
    pub(crate) async fn delete_run<'c, E>(
        executor: E,
        scope: &ScopeKey,
        task_id: &str,
    ) -> Result<bool, sqlx::Error>
    where
        E: Executor<'c, Database = DB>,
    {
        let done = Self::scoped(sql::DELETE_RUN, task_id, scope)
            .execute(executor)
            .await?;
        Ok(done.rows() > 0)
    }

    /// `statement` with `$1` a task id and `$2…$4` a scope bound, as every statement on one
    /// task takes them.
    fn scoped<'q>(
        statement: &'q str,
        task_id: &'q str,
        scope: &'q ScopeKey,
    ) -> Query<'q, DB, DB::Arguments<'q>> {
        bind_scope!(sqlx::query(statement), task_id, scope)
    }

    /// [`scoped`](Self::scoped), returning rows of `O`.
    fn scoped_as<'q, O>(
        statement: &'q str,
        task_id: &'q str,
        scope: &'q ScopeKey,
    ) -> QueryAs<'q, DB, O, DB::Arguments<'q>>
    where
        O: for<'r> FromRow<'r, DB::Row>,
    {
        bind_scope!(sqlx::query_as(statement), task_id, scope)
    }

    /// [`scoped`](Self::scoped), returning one column of `O`.
    fn scoped_scalar<'q, O>(
        statement: &'q str,
        task_id: &'q str,
        scope: &'q ScopeKey,
    ) -> QueryScalar<'q, DB, O, DB::Arguments<'q>>
    where
        (O,): for<'r> FromRow<'r, DB::Row>,
    {
        bind_scope!(sqlx::query_scalar(statement), task_id, scope)
    }
}
