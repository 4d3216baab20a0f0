//! The store's tables: its versioned migrations, embedded in the binary and applied at
//! connect by the crate's [`Migrations`] runner.
//!
//! The database records its schema version in `a2a_schema_version` (one row); a database
//! whose version is newer than this build knows is refused.

use crate::error::SqlStoreError;
use crate::migrations::{MigrationError, Migrations};

/// The store's migrations. PostgreSQL instances starting together take turns under the
/// runner's default advisory lock key ("a2a" in ASCII), shared by every schema of the
/// database.
pub(crate) const TASKS: Migrations = Migrations::new(
    "a2a_schema_version",
    &[
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
        (
            4,
            include_str!("../migrations/sqlite/0004_task_events_without_foreign_key.sql"),
        ),
        (5, include_str!("../migrations/sqlite/0005_runs.sql")),
        (6, include_str!("../migrations/sqlite/0006_send_keys.sql")),
    ],
    &[
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
        (
            4,
            include_str!("../migrations/postgres/0004_task_events_without_foreign_key.sql"),
        ),
        (5, include_str!("../migrations/postgres/0005_runs.sql")),
        (6, include_str!("../migrations/postgres/0006_send_keys.sql")),
    ],
);

/// A migration failure as the store reports it, naming the database by `url` (password
/// hidden).
pub(crate) fn store_error(error: MigrationError, url: &str) -> SqlStoreError {
    match error {
        MigrationError::TooNew { found, supported } => SqlStoreError::SchemaTooNew {
            url: url.to_owned(),
            found,
            supported,
        },
        MigrationError::Failed { version, source } => SqlStoreError::Migration {
            url: url.to_owned(),
            version,
            source,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The newest schema version this build knows.
    const SCHEMA_VERSION: i64 = 6;

    #[test]
    fn each_backend_has_one_migration_per_version_up_to_the_newest() {
        for migrations in [TASKS.sqlite(), TASKS.postgres()] {
            let versions: Vec<i64> = migrations.iter().map(|(version, _)| *version).collect();
            let expected: Vec<i64> = (1..=SCHEMA_VERSION).collect();
            assert_eq!(versions, expected);
        }
    }
}
