//! [`Migrations`]: versioned schema migrations for SQLite and PostgreSQL, the runner this
//! crate's store uses at connect and that other stores over sqlx (the gateway's registry)
//! use for their own tables.
//!
//! A database records its schema version in a table of one row. Bringing it up to date
//! applies every migration newer than that version, and records the new one, in one
//! transaction; a database whose version is newer than the migrations know is refused: an
//! older build must not misread or damage tables a newer one laid out.

use sqlx::{
    ColumnIndex, Connection, Database, Decode, Encode, Executor, IntoArguments, PgConnection,
    Postgres, Sqlite, SqliteConnection, Transaction, Type,
};

use crate::shared::Shared;

/// One migration: the schema version it brings the database to, and the SQL that does it
/// (several statements are fine).
pub type Migration = (i64, &'static str);

/// The migrations of one set of tables, for both databases, and where the database records
/// how far it got.
///
/// ```
/// use a2a_store_sql::{MigrationError, Migrations};
///
/// const NOTES: Migrations = Migrations::new(
///     "notes_schema_version",
///     &[(1, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")],
///     &[(1, "CREATE TABLE notes (id BIGSERIAL PRIMARY KEY, body TEXT NOT NULL)")],
/// )
/// .postgres_lock(0x6e6f_7465);
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use sqlx::Connection;
/// let mut conn = sqlx::SqliteConnection::connect("sqlite::memory:").await?;
/// NOTES.migrate_sqlite(&mut conn).await?;
/// // Migrating again finds the database up to date and changes nothing.
/// NOTES.migrate_sqlite(&mut conn).await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migrations {
    version_table: &'static str,
    sqlite: &'static [Migration],
    postgres: &'static [Migration],
    postgres_lock: i64,
}

/// Why [`Migrations::migrate_sqlite`] or [`Migrations::migrate_postgres`] failed. Nothing
/// was changed either way: the transaction was rolled back.
///
/// Exhaustive on purpose, so that a caller maps each case to its own error without a
/// catch-all.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    /// The database holds a schema newer than the migrations know.
    #[error(
        "the database has schema version {found}, newer than version {supported} that this build knows"
    )]
    TooNew {
        /// The version recorded in the database.
        found: i64,
        /// The newest version the migrations know.
        supported: i64,
    },
    /// A statement failed.
    #[error("could not migrate the database to schema version {version}")]
    Failed {
        /// The version being applied; 0 before the first migration (reading the version),
        /// the newest known version for the commit.
        version: i64,
        /// The cause.
        #[source]
        source: sqlx::Error,
    },
}

impl Migrations {
    /// The migrations `sqlite` and `postgres`, each in ascending version order from 1, whose
    /// progress is recorded in the table `version_table` (created when missing).
    ///
    /// `version_table` is written into the statements as it is: a plain SQL identifier
    /// (ASCII letters, digits and `_`), fixed for the life of the databases it serves.
    /// PostgreSQL migrations take turns under the advisory lock key 6369889 ("a2a" in
    /// ASCII) unless [`postgres_lock`](Self::postgres_lock) names another.
    #[must_use]
    pub const fn new(
        version_table: &'static str,
        sqlite: &'static [Migration],
        postgres: &'static [Migration],
    ) -> Self {
        Self {
            version_table,
            sqlite,
            postgres,
            postgres_lock: 6_369_889,
        }
    }

    /// The PostgreSQL advisory lock key under which instances migrating one database at
    /// once take turns. The key is shared by every schema of the database.
    #[must_use]
    pub const fn postgres_lock(mut self, key: i64) -> Self {
        self.postgres_lock = key;
        self
    }

    /// The SQLite migrations, in order.
    #[must_use]
    pub const fn sqlite(&self) -> &'static [Migration] {
        self.sqlite
    }

    /// The PostgreSQL migrations, in order.
    #[must_use]
    pub const fn postgres(&self) -> &'static [Migration] {
        self.postgres
    }

    /// Brings a SQLite database to its newest version, in one transaction begun with
    /// `BEGIN IMMEDIATE`, so that two processes opening one new file do not both migrate
    /// it.
    ///
    /// # Errors
    /// [`MigrationError::TooNew`] when the database records a newer version than the SQLite
    /// migrations reach, [`MigrationError::Failed`] when a statement fails.
    pub async fn migrate_sqlite(&self, conn: &mut SqliteConnection) -> Result<(), MigrationError> {
        // IMMEDIATE: take the write lock before reading the version.
        let tx = conn
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(failed(0))?;
        Shared::<Sqlite>::migrate(tx, self.version_table, self.sqlite).await
    }

    /// Brings a PostgreSQL database to its newest version, in one transaction that first
    /// takes the advisory lock (instances starting together take turns) and, when `schema`
    /// names one, creates that schema when missing. `conn` must have its `search_path` set
    /// to that schema.
    ///
    /// # Errors
    /// [`MigrationError::TooNew`] when the database records a newer version than the
    /// PostgreSQL migrations reach, [`MigrationError::Failed`] when a statement fails.
    pub async fn migrate_postgres(
        &self,
        conn: &mut PgConnection,
        schema: Option<&str>,
    ) -> Result<(), MigrationError> {
        let mut tx = conn.begin().await.map_err(failed(0))?;
        // The lock ends with the transaction.
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(self.postgres_lock)
            .execute(&mut *tx)
            .await
            .map_err(failed(0))?;
        if let Some(schema) = schema {
            let schema = schema.replace('"', "\"\"");
            sqlx::raw_sql(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\""))
                .execute(&mut *tx)
                .await
                .map_err(failed(0))?;
        }
        Shared::<Postgres>::migrate(tx, self.version_table, self.postgres).await
    }
}

/// The version found, or 0 for a new database; refused when newer than `supported`.
pub(crate) fn check(found: Option<i64>, supported: i64) -> Result<i64, MigrationError> {
    let found = found.unwrap_or(0);
    if found > supported {
        return Err(MigrationError::TooNew { found, supported });
    }
    Ok(found)
}

/// The newest version of `migrations`; 0 for none.
pub(crate) fn newest(migrations: &[Migration]) -> i64 {
    migrations.last().map_or(0, |(version, _)| *version)
}

pub(crate) fn failed(version: i64) -> impl FnOnce(sqlx::Error) -> MigrationError {
    move |source| MigrationError::Failed { version, source }
}

// The steps run the same SQL on both databases, so they are written once, over either.
impl<DB> Shared<DB>
where
    DB: Database,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    usize: ColumnIndex<DB::Row>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
{
    /// Applies the `migrations` newer than the version recorded in `table` in `tx`, which
    /// the caller began (and locked as its database needs), records the newest and commits.
    pub(crate) async fn migrate(
        mut tx: Transaction<'_, DB>,
        table: &str,
        migrations: &[Migration],
    ) -> Result<(), MigrationError> {
        let supported = newest(migrations);
        let found = Self::read_version(&mut tx, table)
            .await
            .map_err(failed(0))?;
        let found = match check(found, supported) {
            Ok(found) => found,
            Err(error) => {
                // Now, not when the pool gets to it: the transaction holds locks.
                let _ = tx.rollback().await;
                return Err(error);
            }
        };
        for &(version, sql) in migrations.iter().filter(|(version, _)| *version > found) {
            sqlx::raw_sql(sql)
                .execute(&mut *tx)
                .await
                .map_err(failed(version))?;
            Self::write_version(&mut tx, table, version)
                .await
                .map_err(failed(version))?;
        }
        tx.commit().await.map_err(failed(supported))
    }

    /// Creates the table `table` of a schema version when missing, and reads the version
    /// recorded in it (`None` in a new database).
    async fn read_version(
        conn: &mut DB::Connection,
        table: &str,
    ) -> Result<Option<i64>, sqlx::Error> {
        sqlx::raw_sql(&format!(
            "CREATE TABLE IF NOT EXISTS {table} (version BIGINT NOT NULL)"
        ))
        .execute(&mut *conn)
        .await?;
        sqlx::query_scalar(&format!("SELECT MAX(version) FROM {table}"))
            .fetch_one(&mut *conn)
            .await
    }

    /// Records `version` in `table`. One statement per call: PostgreSQL prepares each
    /// statement on its own and refuses several in one.
    async fn write_version(
        conn: &mut DB::Connection,
        table: &str,
        version: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(&format!("DELETE FROM {table}"))
            .execute(&mut *conn)
            .await?;
        sqlx::query(&format!("INSERT INTO {table} (version) VALUES ($1)"))
            .bind(version)
            .execute(&mut *conn)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTES: Migrations = Migrations::new(
        "notes_schema_version",
        &[
            (1, "CREATE TABLE notes (id INTEGER PRIMARY KEY)"),
            (2, "ALTER TABLE notes ADD COLUMN body TEXT"),
        ],
        &[],
    );

    async fn version(conn: &mut SqliteConnection) -> Vec<i64> {
        sqlx::query_scalar("SELECT version FROM notes_schema_version")
            .fetch_all(conn)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn migrating_records_the_newest_version_once_and_refuses_a_newer_one() {
        let mut conn = SqliteConnection::connect("sqlite::memory:").await.unwrap();
        NOTES.migrate_sqlite(&mut conn).await.unwrap();
        NOTES.migrate_sqlite(&mut conn).await.unwrap();
        assert_eq!(version(&mut conn).await, [2]);

        sqlx::query("UPDATE notes_schema_version SET version = 3")
            .execute(&mut conn)
            .await
            .unwrap();
        match NOTES.migrate_sqlite(&mut conn).await {
            Err(MigrationError::TooNew { found, supported }) => {
                assert_eq!((found, supported), (3, 2));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(version(&mut conn).await, [3]);
    }

    #[tokio::test]
    async fn a_failing_migration_changes_nothing() {
        const BROKEN: Migrations = Migrations::new(
            "broken_schema_version",
            &[(1, "CREATE TABLE kept_out (id INTEGER)"), (2, "NOT SQL")],
            &[],
        );
        let mut conn = SqliteConnection::connect("sqlite::memory:").await.unwrap();
        match BROKEN.migrate_sqlite(&mut conn).await {
            Err(MigrationError::Failed { version: 2, .. }) => {}
            other => panic!("{other:?}"),
        }
        let tables: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('kept_out', 'broken_schema_version')",
        )
        .fetch_one(&mut conn)
        .await
        .unwrap();
        assert_eq!(tables, 0);
    }
}
