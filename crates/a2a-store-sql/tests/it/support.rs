//! Databases for the tests: a SQLite file in a temporary folder, or a PostgreSQL schema of
//! its own (`a2a_test_<uuid>`, dropped when the test ends, even by a panic).
//!
//! PostgreSQL comes from `A2A_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/test`). When it cannot be reached, the PostgreSQL
//! tests print a notice and pass, unless `CI=true`: then they fail.

use std::path::PathBuf;

use a2a_store_sql::{SqlStore, SqlStoreOptions};
use a2a_types::{ContextId, Task, TaskId, TaskState, TaskStatus, Timestamp};
use sqlx::{Connection, PgConnection, SqliteConnection};
use tempfile::TempDir;

/// Where the stores of one test keep their data.
pub(crate) enum Database {
    Sqlite { dir: TempDir, file: PathBuf },
    Postgres { url: String, schema: String },
}

impl Database {
    /// A SQLite file, not created yet, in a fresh temporary folder.
    pub(crate) fn sqlite() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let file = dir.path().join("tasks.db");
        Self::Sqlite { dir, file }
    }

    /// A new schema of the test PostgreSQL database; `None` (after a notice) when there is
    /// no database to test against outside CI.
    pub(crate) async fn postgres() -> Option<Self> {
        let url = a2a_test_support::postgres::reachable().await?;
        let schema = format!("a2a_test_{}", uuid::Uuid::new_v4().simple());
        Some(Self::Postgres { url, schema })
    }

    /// Another SQLite file in the same folder, for a store of its own.
    pub(crate) fn sqlite_url_of(&self, name: &str) -> String {
        match self {
            Self::Sqlite { dir, .. } => {
                format!(
                    "sqlite://{}",
                    dir.path().join(format!("{name}.db")).display()
                )
            }
            Self::Postgres { .. } => self.url(),
        }
    }

    pub(crate) fn url(&self) -> String {
        match self {
            Self::Sqlite { file, .. } => format!("sqlite://{}", file.display()),
            Self::Postgres { url, .. } => url.clone(),
        }
    }

    /// `options` pointed at this database's schema (PostgreSQL).
    pub(crate) fn options(&self, options: SqlStoreOptions) -> SqlStoreOptions {
        match self {
            Self::Sqlite { .. } => options,
            Self::Postgres { schema, .. } => options.postgres_schema(schema.clone()),
        }
    }

    /// A store over this database with default options (but quick cleanup).
    pub(crate) async fn store(&self) -> SqlStore {
        self.store_with(SqlStoreOptions::new()).await
    }

    pub(crate) async fn store_with(&self, options: SqlStoreOptions) -> SqlStore {
        let options = self.options(options);
        match SqlStore::connect(&self.url(), options).await {
            Ok(store) => store,
            Err(error) => panic!("connecting to {}: {error:?}", self.url()),
        }
    }

    /// Runs one statement outside any store.
    pub(crate) async fn execute(&self, sql: &str) {
        match self {
            Self::Sqlite { file, .. } => {
                let mut conn = SqliteConnection::connect(&format!("sqlite://{}", file.display()))
                    .await
                    .expect("open the SQLite file");
                sqlx::raw_sql(sql).execute(&mut conn).await.expect(sql);
            }
            Self::Postgres { url, schema } => {
                let mut conn = PgConnection::connect(url).await.expect("connect");
                sqlx::raw_sql(&format!("SET search_path TO \"{schema}\""))
                    .execute(&mut conn)
                    .await
                    .expect("search_path");
                sqlx::raw_sql(sql).execute(&mut conn).await.expect(sql);
            }
        }
    }

    /// `SELECT COUNT(*)` of `table`, outside any store.
    pub(crate) async fn count(&self, table: &str) -> i64 {
        let sql = format!("SELECT COUNT(*) FROM {table}");
        match self {
            Self::Sqlite { file, .. } => {
                let mut conn = SqliteConnection::connect(&format!("sqlite://{}", file.display()))
                    .await
                    .expect("open the SQLite file");
                sqlx::query_scalar(&sql)
                    .fetch_one(&mut conn)
                    .await
                    .expect("count")
            }
            Self::Postgres { url, schema } => {
                let mut conn = PgConnection::connect(url).await.expect("connect");
                sqlx::raw_sql(&format!("SET search_path TO \"{schema}\""))
                    .execute(&mut conn)
                    .await
                    .expect("search_path");
                sqlx::query_scalar(&sql)
                    .fetch_one(&mut conn)
                    .await
                    .expect("count")
            }
        }
    }
}

impl Database {
    /// Drops the PostgreSQL schema; stores over it should be dropped first.
    pub(crate) async fn finish(mut self) {
        if let Self::Postgres { url, schema } = &mut self {
            let result = drop_schema(url, schema).await;
            if let Err(error) = result {
                panic!("could not drop test schema {schema}: {error}");
            }
            // Done: nothing left for `Drop`.
            schema.clear();
        }
    }
}

async fn drop_schema(url: &str, schema: &str) -> Result<(), sqlx::Error> {
    let mut conn = PgConnection::connect(url).await?;
    // A store dropped a moment ago may still be rolling back a transaction on its way out.
    sqlx::raw_sql("SET lock_timeout = '10s'")
        .execute(&mut conn)
        .await?;
    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
        .execute(&mut conn)
        .await?;
    conn.close().await
}

/// The fallback for a test that did not get to [`Database::finish`] (it panicked).
impl Drop for Database {
    fn drop(&mut self) {
        let Self::Postgres { url, schema } = self else {
            return;
        };
        if schema.is_empty() {
            return;
        }
        let (url, schema) = (url.clone(), schema.clone());
        // A runtime of its own on a thread of its own: Drop cannot await, and the test's
        // runtime may be the single-threaded kind. The lock timeout bounds the wait for
        // connections that the blocked runtime cannot close.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime
                .block_on(drop_schema(&url, &schema))
                .map_err(std::io::Error::other)
        })
        .join();
        if let Ok(Err(error)) = dropped {
            eprintln!("could not drop a test schema: {error}");
        }
    }
}

/// Runs `test` on a SQLite file and, when there is one, a PostgreSQL schema.
pub(crate) async fn on_both<F>(test: F)
where
    F: AsyncFn(&Database),
{
    let database = Database::sqlite();
    test(&database).await;
    database.finish().await;
    if let Some(database) = Database::postgres().await {
        test(&database).await;
        database.finish().await;
    }
}

pub(crate) fn task(id: &str, state: TaskState) -> Task {
    Task {
        id: TaskId::new(id),
        context_id: ContextId::new("context"),
        status: TaskStatus {
            state,
            message: None,
            // Milliseconds, as the wire has them, so that a stored copy compares equal.
            timestamp: Some(Timestamp::parse(&Timestamp::now().to_string()).expect("RFC 3339")),
        },
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    }
}

/// A unique task id for one test.
pub(crate) fn unique(name: &str) -> String {
    format!("{name}-{}", uuid::Uuid::new_v4().simple())
}
