//! Versioned schema migrations, embedded in the binary and applied at connect.
//!
//! The database records its schema version in `a2a_schema_version` (one row). `connect`
//! applies every migration newer than it, in one transaction, and refuses a database whose
//! version is newer than this build knows: an older server must not misread or damage
//! tables a newer one laid out.

use sqlx::{Connection, PgConnection, SqliteConnection};

use crate::error::SqlStoreError;

/// The newest schema version this build knows.
pub(crate) const SCHEMA_VERSION: i64 = 3;

/// One migration: the version it brings the schema to, and its SQL.
type Migration = (i64, &'static str);

const SQLITE: &[Migration] = &[
    (
        1,
        include_str!("../migrations/sqlite/0001_tasks_events_push_configs.sql"),
    ),
    (
        2,
        include_str!("../migrations/sqlite/0002_push_delivery_state.sql"),
    ),
    (
        3,
        include_str!("../migrations/sqlite/0003_shared_secrets.sql"),
    ),
];

const POSTGRES: &[Migration] = &[
    (
        1,
        include_str!("../migrations/postgres/0001_tasks_events_push_configs.sql"),
    ),
    (
        2,
        include_str!("../migrations/postgres/0002_push_delivery_state.sql"),
    ),
    (
        3,
        include_str!("../migrations/postgres/0003_shared_secrets.sql"),
    ),
];

const VERSION_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS a2a_schema_version (version BIGINT NOT NULL)";
const READ_VERSION: &str = "SELECT MAX(version) FROM a2a_schema_version";
const CLEAR_VERSION: &str = "DELETE FROM a2a_schema_version";
const WRITE_VERSION: &str = "INSERT INTO a2a_schema_version (version) VALUES ($1)";

/// Brings a SQLite database to [`SCHEMA_VERSION`].
pub(crate) async fn migrate_sqlite(
    conn: &mut SqliteConnection,
    url: &str,
) -> Result<(), SqlStoreError> {
    let failed = |version: i64| {
        move |source| SqlStoreError::Migration {
            url: url.to_owned(),
            version,
            source,
        }
    };
    // IMMEDIATE: take the write lock before reading the version, so that two processes
    // opening one new file do not both migrate it.
    let mut tx = conn
        .begin_with("BEGIN IMMEDIATE")
        .await
        .map_err(failed(0))?;
    sqlx::raw_sql(VERSION_TABLE)
        .execute(&mut *tx)
        .await
        .map_err(failed(0))?;
    let found: Option<i64> = sqlx::query_scalar(READ_VERSION)
        .fetch_one(&mut *tx)
        .await
        .map_err(failed(0))?;
    let found = match check(found, url) {
        Ok(found) => found,
        Err(error) => {
            let _ = tx.rollback().await;
            return Err(error);
        }
    };
    for &(version, sql) in SQLITE.iter().filter(|(version, _)| *version > found) {
        sqlx::raw_sql(sql)
            .execute(&mut *tx)
            .await
            .map_err(failed(version))?;
        record_sqlite(&mut tx, version)
            .await
            .map_err(failed(version))?;
    }
    tx.commit().await.map_err(failed(SCHEMA_VERSION))
}

/// Brings a PostgreSQL schema to [`SCHEMA_VERSION`], creating the schema first when
/// `schema` names one. `conn` must have its `search_path` set to that schema.
pub(crate) async fn migrate_postgres(
    conn: &mut PgConnection,
    schema: Option<&str>,
    url: &str,
) -> Result<(), SqlStoreError> {
    let failed = |version: i64| {
        move |source| SqlStoreError::Migration {
            url: url.to_owned(),
            version,
            source,
        }
    };
    let mut tx = conn.begin().await.map_err(failed(0))?;
    // Instances starting together take turns; the lock ends with the transaction. The
    // key is arbitrary but fixed ("a2a" in ASCII), shared by every schema of the database.
    sqlx::query("SELECT pg_advisory_xact_lock(6369889)")
        .execute(&mut *tx)
        .await
        .map_err(failed(0))?;
    if let Some(schema) = schema {
        // The name was checked to be a plain identifier (options validation).
        sqlx::raw_sql(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\""))
            .execute(&mut *tx)
            .await
            .map_err(failed(0))?;
    }
    sqlx::raw_sql(VERSION_TABLE)
        .execute(&mut *tx)
        .await
        .map_err(failed(0))?;
    let found: Option<i64> = sqlx::query_scalar(READ_VERSION)
        .fetch_one(&mut *tx)
        .await
        .map_err(failed(0))?;
    let found = match check(found, url) {
        Ok(found) => found,
        Err(error) => {
            // Now, not when the pool gets to it: the transaction holds locks.
            let _ = tx.rollback().await;
            return Err(error);
        }
    };
    for &(version, sql) in POSTGRES.iter().filter(|(version, _)| *version > found) {
        sqlx::raw_sql(sql)
            .execute(&mut *tx)
            .await
            .map_err(failed(version))?;
        record_postgres(&mut tx, version)
            .await
            .map_err(failed(version))?;
    }
    tx.commit().await.map_err(failed(SCHEMA_VERSION))
}

/// The version found, or 0 for a new database; an error when it is newer than this build.
fn check(found: Option<i64>, url: &str) -> Result<i64, SqlStoreError> {
    let found = found.unwrap_or(0);
    if found > SCHEMA_VERSION {
        return Err(SqlStoreError::SchemaTooNew {
            url: url.to_owned(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(found)
}

/// Writes the schema version. One statement per call: PostgreSQL prepares each statement
/// on its own and refuses several in one.
async fn record_sqlite(conn: &mut SqliteConnection, version: i64) -> Result<(), sqlx::Error> {
    sqlx::query(CLEAR_VERSION).execute(&mut *conn).await?;
    sqlx::query(WRITE_VERSION)
        .bind(version)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Writes the schema version.
async fn record_postgres(conn: &mut PgConnection, version: i64) -> Result<(), sqlx::Error> {
    sqlx::query(CLEAR_VERSION).execute(&mut *conn).await?;
    sqlx::query(WRITE_VERSION)
        .bind(version)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backend_has_one_migration_per_version_up_to_the_newest() {
        for migrations in [SQLITE, POSTGRES] {
            let versions: Vec<i64> = migrations.iter().map(|(version, _)| *version).collect();
            let expected: Vec<i64> = (1..=SCHEMA_VERSION).collect();
            assert_eq!(versions, expected);
        }
    }
}
