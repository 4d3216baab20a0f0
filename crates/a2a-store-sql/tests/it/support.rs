//! Databases for the tests: a SQLite file in a temporary folder, or a PostgreSQL schema of
//! its own (`a2a_test_…`, dropped when the test ends, even by a panic).
//!
//! PostgreSQL comes from `A2A_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/test`). When it cannot be reached, the PostgreSQL
//! tests print a notice and pass, unless `CI=true`: then they fail.

use std::path::{Path, PathBuf};
use std::time::Duration;

use a2a_store_sql::{SqlStore, SqlStoreOptions};
use a2a_test_support::postgres::Schema;
use a2a_types::{
    ContextId, PushConfigId, Task, TaskId, TaskPushNotificationConfig, TaskState, TaskStatus,
    Timestamp,
};
use sqlx::{Connection, SqliteConnection};
use tempfile::TempDir;

/// Where the stores of one test keep their data.
pub(crate) enum Database {
    Sqlite { dir: TempDir, file: PathBuf },
    Postgres(Schema),
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
        Schema::reachable("a2a_test_").await.map(Self::Postgres)
    }

    /// Another SQLite file in the same folder, for a store of its own.
    pub(crate) fn sqlite_url_of(&self, name: &str) -> String {
        match self {
            Self::Sqlite { dir, .. } => sqlite_url(&dir.path().join(format!("{name}.db"))),
            Self::Postgres(_) => self.url(),
        }
    }

    pub(crate) fn url(&self) -> String {
        match self {
            Self::Sqlite { file, .. } => sqlite_url(file),
            Self::Postgres(schema) => schema.url().to_owned(),
        }
    }

    /// `options` pointed at this database's schema (PostgreSQL).
    pub(crate) fn options(&self, options: SqlStoreOptions) -> SqlStoreOptions {
        match self {
            Self::Sqlite { .. } => options,
            Self::Postgres(schema) => options.postgres_schema(schema.name()),
        }
    }

    /// A store over this database with default options (but quick cleanup).
    pub(crate) async fn store(&self) -> SqlStore {
        self.store_with(SqlStoreOptions::new()).await
    }

    /// A store whose terminal tasks expire after `ttl`, cleaned up every `cleanup_interval`
    /// (never, for zero).
    pub(crate) async fn store_expiring(
        &self,
        ttl: Duration,
        cleanup_interval: Duration,
    ) -> SqlStore {
        let options = SqlStoreOptions::new()
            .completed_task_ttl(ttl)
            .cleanup_interval(cleanup_interval);
        self.store_with(options).await
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
        let done = match self {
            Self::Sqlite { file, .. } => sqlx::raw_sql(sql)
                .execute(&mut sqlite(file).await)
                .await
                .map(drop),
            Self::Postgres(schema) => sqlx::raw_sql(sql)
                .execute(&mut schema.connect().await)
                .await
                .map(drop),
        };
        done.expect(sql);
    }

    /// `SELECT COUNT(*)` of `table`, outside any store.
    pub(crate) async fn count(&self, table: &str) -> i64 {
        let sql = format!("SELECT COUNT(*) FROM {table}");
        let counted = match self {
            Self::Sqlite { file, .. } => {
                sqlx::query_scalar(&sql)
                    .fetch_one(&mut sqlite(file).await)
                    .await
            }
            Self::Postgres(schema) => {
                sqlx::query_scalar(&sql)
                    .fetch_one(&mut schema.connect().await)
                    .await
            }
        };
        counted.expect("count")
    }

    /// Drops the PostgreSQL schema; stores over it should be dropped first.
    pub(crate) async fn finish(self) {
        if let Self::Postgres(schema) = self {
            schema.finish().await;
        }
    }
}

fn sqlite_url(file: &Path) -> String {
    format!("sqlite://{}", file.display())
}

async fn sqlite(file: &Path) -> SqliteConnection {
    SqliteConnection::connect(&sqlite_url(file))
        .await
        .expect("open the SQLite file")
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

/// Push config `id` of `task_id`, posting to `https://example.com/{id}`.
pub(crate) fn hook(task_id: &TaskId, id: &str) -> TaskPushNotificationConfig {
    let mut config = TaskPushNotificationConfig::new(format!("https://example.com/{id}"));
    config.id = Some(PushConfigId::new(id));
    config.task_id = Some(task_id.clone());
    config
}
