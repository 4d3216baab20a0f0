//! [`SqlStoreError`]: why a [`SqlStore`](crate::SqlStore) could not start.
//!
//! Once a store runs, its calls fail with the server's
//! [`StoreError`](a2a_server::store::StoreError), whose `Backend` variant chains the sqlx
//! error; this type is only about opening the database.

use a2a_server::store::StoreError;

/// Why [`SqlStore::connect`](crate::SqlStore::connect) failed.
///
/// Display texts name the database by its URL with any password replaced by `***`, so they
/// are safe to log; the sqlx cause is chained as the source, never formatted in.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SqlStoreError {
    /// The URL is not one this crate understands.
    #[error("invalid database url {url}: {reason}")]
    InvalidUrl {
        /// The URL, password hidden.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An option has a value the store cannot use.
    #[error("invalid store option: {what}")]
    InvalidOption {
        /// Which option, and why.
        what: String,
    },
    /// The database could not be reached or opened.
    #[error("could not connect to the database at {url}")]
    Connect {
        /// The URL, password hidden.
        url: String,
        /// The cause.
        #[source]
        source: sqlx::Error,
    },
    /// The database holds a schema written by a newer version of this crate; this version
    /// refuses to touch it rather than misread it.
    #[error(
        "the database at {url} has schema version {found}, newer than version {supported} \
         that this build knows; upgrade the server"
    )]
    SchemaTooNew {
        /// The URL, password hidden.
        url: String,
        /// The version stored in the database.
        found: i64,
        /// The newest version this build knows.
        supported: i64,
    },
    /// Applying a schema migration failed.
    #[error("could not migrate the database at {url} to schema version {version}")]
    Migration {
        /// The URL, password hidden.
        url: String,
        /// The version being applied.
        version: i64,
        /// The cause.
        #[source]
        source: sqlx::Error,
    },
}

/// A sqlx failure during a store call: chained, never shown to clients. A database that
/// cannot take the call for now (see [`transient`]) is [`StoreError::Unavailable`].
pub(crate) fn backend(error: sqlx::Error) -> StoreError {
    if transient(&error) {
        StoreError::Unavailable(Box::new(error))
    } else {
        StoreError::Backend(Box::new(error))
    }
}

/// As [`backend`], for a failure the SQLite writer shares among the jobs of a batch.
pub(crate) fn shared_backend(error: std::sync::Arc<sqlx::Error>) -> StoreError {
    if transient(&error) {
        StoreError::Unavailable(Box::new(error))
    } else {
        StoreError::Backend(Box::new(error))
    }
}

/// Whether a failure says the database cannot take calls for now, so a retry later may
/// succeed: no connection (refused, reset, cut in the middle of a message, timed out
/// waiting for one, the pool closing),
/// the database shutting down or out of resources (PostgreSQL's SQLSTATE classes 08 and
/// 53, and 57P01–57P03), or SQLite busy, locked, out of space or failing to read or write
/// its file (primary result codes 5, 6, 13 and 10).
pub(crate) fn transient(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(error) => {
            let Some(code) = error.code() else {
                return false;
            };
            if error
                .try_downcast_ref::<sqlx::sqlite::SqliteError>()
                .is_some()
            {
                // SQLite's extended result codes keep the primary code in the low byte.
                code.parse::<u32>()
                    .is_ok_and(|code| matches!(code & 0xff, 5 | 6 | 10 | 13))
            } else {
                code.starts_with("08") || code.starts_with("53") || code.starts_with("57P0")
            }
        }
        _ => false,
    }
}

/// A JSON failure during a store call.
pub(crate) fn json(error: serde_json::Error) -> StoreError {
    StoreError::Backend(Box::new(error))
}
