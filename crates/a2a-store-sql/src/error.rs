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

/// A sqlx failure during a store call: chained, never shown to clients.
pub(crate) fn backend(error: sqlx::Error) -> StoreError {
    StoreError::Backend(Box::new(error))
}

/// A JSON failure during a store call.
pub(crate) fn json(error: serde_json::Error) -> StoreError {
    StoreError::Backend(Box::new(error))
}
