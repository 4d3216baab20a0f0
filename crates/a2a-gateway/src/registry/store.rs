//! Where registrations live: SQLite or PostgreSQL through sqlx, with the schema migrated
//! at connect.
//!
//! Every time is milliseconds since the Unix epoch, computed by the registry (never by the
//! database), so that one clock decides expiry on both backends. Registering takes the
//! write lock first (SQLite `BEGIN IMMEDIATE`; a PostgreSQL advisory lock when the registry
//! has a size limit), so the count of live agents cannot change between the check and the
//! insert.

use std::str::FromStr as _;
use std::time::Duration;

use a2a_store_sql::{MigrationError, Migrations};
use sqlx::pool::{PoolConnection, PoolOptions};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::{Connection, Database, PgPool, Pool, SqlitePool};

use super::error::RegistryError;
use super::options::RegistryOptions;

/// The registry's tables, migrated by a2a-store-sql's runner. The version is recorded in
/// `a2a_gateway_schema_version`, apart from the task store's, so that both can share one
/// database. PostgreSQL instances migrating at once take turns under the advisory lock key
/// "a2am" (in ASCII), shared by every schema of the database.
const MIGRATIONS: Migrations = Migrations::new(
    "a2a_gateway_schema_version",
    &[(1, include_str!("../../migrations/sqlite/0001_agents.sql"))],
    &[(1, include_str!("../../migrations/postgres/0001_agents.sql"))],
)
.postgres_lock(0x6132_616d);

/// The advisory lock key ("a2ag" in ASCII) registrations take turns under, shared by every
/// schema of a database.
const REGISTER_LOCK: i64 = 0x6132_6167;

/// How long SQLite waits for another process's write lock.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const COLUMNS: &str = "agent_id, name, jsonrpc_url, rest_url, card, registered_at, last_seen";

const COUNT_OTHERS: &str =
    "SELECT COUNT(*) FROM gateway_agents WHERE last_seen > $1 AND agent_id <> $2";

// An agent expired but not yet cleaned up registers afresh: a new registered_at (only a live
// agent keeps its own). last_seen never goes back if clocks disagree.
const UPSERT: &str = "INSERT INTO gateway_agents \
     (agent_id, name, jsonrpc_url, rest_url, card, registered_at, last_seen) \
     VALUES ($1, $2, $3, $4, $5, $6, $6) \
     ON CONFLICT (agent_id) DO UPDATE SET \
     name = excluded.name, jsonrpc_url = excluded.jsonrpc_url, \
     rest_url = excluded.rest_url, card = excluded.card, \
     registered_at = CASE WHEN gateway_agents.last_seen > $7 \
         THEN gateway_agents.registered_at ELSE excluded.registered_at END, \
     last_seen = CASE WHEN gateway_agents.last_seen > excluded.last_seen \
         THEN gateway_agents.last_seen ELSE excluded.last_seen END \
     RETURNING registered_at, last_seen";

const TOUCH: &str = "UPDATE gateway_agents \
     SET last_seen = CASE WHEN last_seen > $2 THEN last_seen ELSE $2 END \
     WHERE agent_id = $1 AND last_seen > $3 RETURNING last_seen";

const DELETE: &str = "DELETE FROM gateway_agents WHERE agent_id = $1 RETURNING last_seen";

const DELETE_EXPIRED: &str = "DELETE FROM gateway_agents WHERE last_seen <= $1";

/// One row of `gateway_agents`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoredAgent {
    pub(crate) agent_id: String,
    pub(crate) name: String,
    pub(crate) jsonrpc_url: Option<String>,
    pub(crate) rest_url: Option<String>,
    /// JSON text.
    pub(crate) card: String,
    pub(crate) registered_at: i64,
    pub(crate) last_seen: i64,
}

/// The outcome of a registration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Saved {
    /// Stored; the times now on record.
    Agent { registered_at: i64, last_seen: i64 },
    /// Refused: the registry holds `max_agents` other live agents.
    Full,
}

/// The database of a registry.
#[derive(Debug, Clone)]
pub(crate) enum Store {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$pool` bound to whichever pool `$store` holds: the statements are
/// the same text on both backends.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match $store {
            Store::Sqlite($pool) => $body,
            Store::Postgres($pool) => $body,
        }
    };
}

/// The body of a registration inside its transaction `$tx`: the size check (when `$limit`
/// is not 0), the upsert, the commit.
macro_rules! count_and_upsert {
    ($tx:ident, $agent:ident, $cutoff:ident, $limit:ident) => {{
        if $limit > 0 {
            let others: i64 = sqlx::query_scalar(COUNT_OTHERS)
                .bind($cutoff)
                .bind(&$agent.agent_id)
                .fetch_one(&mut *$tx)
                .await?;
            if others >= $limit {
                return Ok(Saved::Full);
            }
        }
        let (registered_at, last_seen): (i64, i64) = sqlx::query_as(UPSERT)
            .bind(&$agent.agent_id)
            .bind(&$agent.name)
            .bind(&$agent.jsonrpc_url)
            .bind(&$agent.rest_url)
            .bind(&$agent.card)
            .bind($agent.last_seen)
            .bind($cutoff)
            .fetch_one(&mut *$tx)
            .await?;
        $tx.commit().await?;
        Ok(Saved::Agent {
            registered_at,
            last_seen,
        })
    }};
}

impl Store {
    /// Opens the database `url` names and brings its schema up to date.
    pub(crate) async fn open(
        url: &str,
        shown_url: &str,
        options: &RegistryOptions,
    ) -> Result<Self, RegistryError> {
        let invalid = |reason: &str| RegistryError::InvalidUrl {
            url: shown_url.to_owned(),
            reason: reason.to_owned(),
        };
        match url.split_once(':').map(|(scheme, _)| scheme) {
            Some("sqlite") => {
                let connect = SqliteConnectOptions::from_str(url)
                    .map_err(|_| invalid("not a SQLite URL"))?
                    .create_if_missing(true)
                    .busy_timeout(SQLITE_BUSY_TIMEOUT);
                // One connection, never closed: an in-memory database lives as long as its
                // connection, and SQLite has one writer anyway.
                let pool_options = SqlitePoolOptions::new()
                    .max_connections(1)
                    .min_connections(1)
                    .idle_timeout(None)
                    .max_lifetime(None)
                    // A file or memory connection does not drop like a socket: a ping
                    // before every query would only add a round trip to its thread.
                    .test_before_acquire(false)
                    .acquire_timeout(options.acquire_timeout);
                let (pool, mut conn) = open_pool(pool_options, connect, shown_url).await?;
                MIGRATIONS
                    .migrate_sqlite(&mut conn)
                    .await
                    .map_err(|error| migration_error(error, shown_url))?;
                Ok(Self::Sqlite(pool))
            }
            Some("postgres" | "postgresql") => {
                let mut connect =
                    PgConnectOptions::from_str(url).map_err(|_| invalid("not a PostgreSQL URL"))?;
                if let Some(schema) = &options.postgres_schema {
                    connect = connect.options([("search_path", format!("\"{schema}\""))]);
                }
                let pool_options = PgPoolOptions::new()
                    .max_connections(options.max_connections.max(1))
                    .acquire_timeout(options.acquire_timeout);
                let (pool, mut conn) = open_pool(pool_options, connect, shown_url).await?;
                // The schema name was checked to be a plain identifier (RegistryOptions
                // validation).
                MIGRATIONS
                    .migrate_postgres(&mut conn, options.postgres_schema.as_deref())
                    .await
                    .map_err(|error| migration_error(error, shown_url))?;
                Ok(Self::Postgres(pool))
            }
            _ => Err(invalid(
                "expected sqlite://PATH, sqlite::memory:, postgres://… or postgresql://…",
            )),
        }
    }

    /// Registers `agent` (its `last_seen` is now), unless `max_agents` (0 = no limit)
    /// other agents are live.
    pub(crate) async fn save(
        &self,
        agent: &StoredAgent,
        cutoff: i64,
        max_agents: usize,
    ) -> Result<Saved, sqlx::Error> {
        let limit = i64::try_from(max_agents).unwrap_or(i64::MAX);
        match self {
            Self::Sqlite(pool) => {
                let mut conn = pool.acquire().await?;
                let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
                count_and_upsert!(tx, agent, cutoff, limit)
            }
            Self::Postgres(pool) => {
                let mut tx = pool.begin().await?;
                if limit > 0 {
                    sqlx::query("SELECT pg_advisory_xact_lock($1)")
                        .bind(REGISTER_LOCK)
                        .execute(&mut *tx)
                        .await?;
                }
                count_and_upsert!(tx, agent, cutoff, limit)
            }
        }
    }

    /// The agent `agent_id` when it is live (seen after `cutoff`).
    pub(crate) async fn get(
        &self,
        agent_id: &str,
        cutoff: i64,
    ) -> Result<Option<StoredAgent>, sqlx::Error> {
        let sql =
            format!("SELECT {COLUMNS} FROM gateway_agents WHERE agent_id = $1 AND last_seen > $2");
        on_pool!(self, pool => {
            let row = sqlx::query(&sql)
                .bind(agent_id)
                .bind(cutoff)
                .fetch_optional(pool)
                .await?;
            row.as_ref().map(decode).transpose()
        })
    }

    /// Every live agent, by id.
    pub(crate) async fn list(&self, cutoff: i64) -> Result<Vec<StoredAgent>, sqlx::Error> {
        let sql =
            format!("SELECT {COLUMNS} FROM gateway_agents WHERE last_seen > $1 ORDER BY agent_id");
        on_pool!(self, pool => {
            let rows = sqlx::query(&sql).bind(cutoff).fetch_all(pool).await?;
            rows.iter().map(decode).collect()
        })
    }

    /// `SELECT 1`: the database answers.
    pub(crate) async fn ping(&self) -> Result<(), sqlx::Error> {
        on_pool!(self, pool => {
            sqlx::query("SELECT 1").execute(pool).await.map(|_| ())
        })
    }

    /// How many agents are live.
    pub(crate) async fn count(&self, cutoff: i64) -> Result<i64, sqlx::Error> {
        on_pool!(self, pool => {
            sqlx::query_scalar("SELECT COUNT(*) FROM gateway_agents WHERE last_seen > $1")
                .bind(cutoff)
                .fetch_one(pool)
                .await
        })
    }

    /// Moves a live agent's `last_seen` to `now`; its new `last_seen`, or `None` when it is
    /// not live.
    pub(crate) async fn touch(
        &self,
        agent_id: &str,
        now: i64,
        cutoff: i64,
    ) -> Result<Option<i64>, sqlx::Error> {
        on_pool!(self, pool => {
            sqlx::query_scalar(TOUCH)
                .bind(agent_id)
                .bind(now)
                .bind(cutoff)
                .fetch_optional(pool)
                .await
        })
    }

    /// Deletes the agent; true when it was live.
    pub(crate) async fn delete(&self, agent_id: &str, cutoff: i64) -> Result<bool, sqlx::Error> {
        let last_seen: Option<i64> = on_pool!(self, pool => {
            sqlx::query_scalar(DELETE).bind(agent_id).fetch_optional(pool).await?
        });
        Ok(last_seen.is_some_and(|last_seen| last_seen > cutoff))
    }

    /// Deletes every agent not seen after `cutoff`; how many went.
    pub(crate) async fn delete_expired(&self, cutoff: i64) -> Result<u64, sqlx::Error> {
        on_pool!(self, pool => {
            Ok(sqlx::query(DELETE_EXPIRED)
                .bind(cutoff)
                .execute(pool)
                .await?
                .rows_affected())
        })
    }

    /// Closes the connections, waiting for calls in flight.
    pub(crate) async fn close(&self) {
        on_pool!(self, pool => pool.close().await);
    }
}

fn decode<R>(row: &R) -> Result<StoredAgent, sqlx::Error>
where
    R: sqlx::Row,
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    String: sqlx::Type<R::Database> + for<'r> sqlx::Decode<'r, R::Database>,
    i64: sqlx::Type<R::Database> + for<'r> sqlx::Decode<'r, R::Database>,
{
    Ok(StoredAgent {
        agent_id: row.try_get("agent_id")?,
        name: row.try_get("name")?,
        jsonrpc_url: row.try_get("jsonrpc_url")?,
        rest_url: row.try_get("rest_url")?,
        card: row.try_get("card")?,
        registered_at: row.try_get("registered_at")?,
        last_seen: row.try_get("last_seen")?,
    })
}

/// A migration failure as the registry reports it, naming the database by `url` (password
/// hidden).
/// Opens a pool of `connect` connections and takes the one the migration runs on.
async fn open_pool<DB: Database>(
    pool: PoolOptions<DB>,
    connect: <DB::Connection as Connection>::Options,
    shown_url: &str,
) -> Result<(Pool<DB>, PoolConnection<DB>), RegistryError> {
    let pool = pool
        .connect_with(connect)
        .await
        .map_err(|source| RegistryError::Connect {
            url: shown_url.to_owned(),
            source,
        })?;
    let conn = pool
        .acquire()
        .await
        .map_err(migration_failed(shown_url, 0))?;
    Ok((pool, conn))
}

fn migration_error(error: MigrationError, url: &str) -> RegistryError {
    match error {
        MigrationError::TooNew { found, supported } => RegistryError::SchemaTooNew {
            url: url.to_owned(),
            found,
            supported,
        },
        MigrationError::Failed { version, source } => migration_failed(url, version)(source),
    }
}

/// The failure of a statement of the migration to `version`.
fn migration_failed(url: &str, version: i64) -> impl FnOnce(sqlx::Error) -> RegistryError {
    move |source| RegistryError::Migration {
        url: url.to_owned(),
        version,
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_schema_version_is_recorded_where_earlier_builds_recorded_it() {
        let store = Store::open(
            "sqlite::memory:",
            "sqlite::memory:",
            &RegistryOptions::new(),
        )
        .await
        .unwrap();
        let Store::Sqlite(pool) = &store else {
            panic!("a SQLite URL opens SQLite");
        };
        let version: i64 = sqlx::query_scalar("SELECT version FROM a2a_gateway_schema_version")
            .fetch_one(pool)
            .await
            .unwrap();
        assert_eq!(version, 1);

        sqlx::query("UPDATE a2a_gateway_schema_version SET version = 99")
            .execute(pool)
            .await
            .unwrap();
        let mut conn = pool.acquire().await.unwrap();
        let error = MIGRATIONS.migrate_sqlite(&mut conn).await.unwrap_err();
        assert!(
            matches!(
                migration_error(error, "sqlite::memory:"),
                RegistryError::SchemaTooNew {
                    found: 99,
                    supported: 1,
                    ..
                }
            ),
            "a newer schema is refused"
        );
    }
}
