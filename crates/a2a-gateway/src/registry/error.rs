//! [`RegistryError`]: every way a registry call can fail.

use super::record::RecordError;
use super::signature::SignatureError;

/// A registry call failed. The HTTP routes map each variant to a status in one place
/// (`routes.rs`); database detail never reaches a client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The database URL cannot be used.
    #[error("invalid registry database URL {url}: {reason}")]
    InvalidUrl {
        /// The URL, password hidden.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// An option cannot be used.
    #[error("invalid registry option: {what}")]
    InvalidOption {
        /// What is wrong.
        what: String,
    },
    /// The database cannot be reached or opened.
    #[error("cannot connect to the registry database {url}")]
    Connect {
        /// The URL, password hidden.
        url: String,
        /// Why.
        #[source]
        source: sqlx::Error,
    },
    /// Bringing the schema up to date failed.
    #[error("cannot bring the registry database {url} to schema version {version}")]
    Migration {
        /// The URL, password hidden.
        url: String,
        /// The version being applied (0: before any).
        version: i64,
        /// Why.
        #[source]
        source: sqlx::Error,
    },
    /// A newer build laid the database out.
    #[error(
        "the registry database {url} has schema version {found}; this build knows up to {supported}"
    )]
    SchemaTooNew {
        /// The URL, password hidden.
        url: String,
        /// The version found.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// The register body cannot be registered.
    #[error("invalid agent record")]
    InvalidRecord(#[source] RecordError),
    /// The card's signatures do not check (spec §11.5).
    #[error("invalid agent card signature")]
    InvalidSignature(#[source] SignatureError),
    /// The registry holds `max_agents` live agents already.
    #[error("the registry is full: it holds at most {max_agents} agents")]
    Full {
        /// The limit.
        max_agents: usize,
    },
    /// The database failed during a call.
    #[error("the registry database failed")]
    Database(#[source] sqlx::Error),
    /// A stored card is not JSON (the database was changed by hand).
    #[error("the stored card of agent {agent_id} is not JSON")]
    Corrupt {
        /// The agent.
        agent_id: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

impl From<sqlx::Error> for RegistryError {
    fn from(source: sqlx::Error) -> Self {
        Self::Database(source)
    }
}
