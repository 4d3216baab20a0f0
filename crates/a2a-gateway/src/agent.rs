//! [`RegisteredAgent`]: an agent as the registry knows it, and [`AgentDirectory`], how the
//! proxy finds one. The registry implements the directory; the proxy only reads it.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::proxy::spoken::{Spoken, SpokenOnce};

/// A registered, live agent (not expired, not deregistered).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RegisteredAgent {
    /// The id clients use in `/a2a/{agent_id}`: lowercase letters, digits and hyphens, at
    /// least two characters.
    pub agent_id: String,
    /// The agent's name.
    pub name: String,
    /// Where JSON-RPC calls go: the agent's JSON-RPC interface URL, or the KubeMQ record's
    /// `url`.
    pub jsonrpc_url: Option<String>,
    /// The base URL of the agent's HTTP+JSON interface, when its card names one.
    pub rest_url: Option<String>,
    /// The registered document as given: an A2A v1.0 agent card or a KubeMQ record.
    pub card: Value,
    /// When the agent first registered (kept across re-registrations).
    pub registered_at: DateTime<Utc>,
    /// The last registration or heartbeat.
    pub last_seen: DateTime<Utc>,
    /// The protocol versions the card declares, worked out on first use.
    pub(crate) spoken: SpokenOnce,
}

impl RegisteredAgent {
    /// An agent record, for registry implementations and tests.
    #[must_use]
    pub fn new(agent_id: impl Into<String>, name: impl Into<String>, card: Value) -> Self {
        let now = Utc::now();
        Self {
            agent_id: agent_id.into(),
            name: name.into(),
            jsonrpc_url: None,
            rest_url: None,
            card,
            registered_at: now,
            last_seen: now,
            spoken: SpokenOnce::default(),
        }
    }

    /// The JSON-RPC URLs per protocol version that the card declares.
    pub(crate) fn spoken(&self) -> &Spoken {
        self.spoken.get(&self.card)
    }
}

/// Finds live agents by id.
#[async_trait::async_trait]
pub trait AgentDirectory: Send + Sync + std::fmt::Debug + 'static {
    /// The agent registered under `agent_id`, unless it expired or was deregistered. Shared,
    /// as the proxy asks once per call and implementations may keep it.
    ///
    /// # Errors
    /// [`DirectoryError`] when the registry cannot be read.
    async fn find(&self, agent_id: &str) -> Result<Option<Arc<RegisteredAgent>>, DirectoryError>;
}

/// The registry could not be read.
#[derive(Debug, thiserror::Error)]
#[error("the agent registry cannot be read")]
pub struct DirectoryError(#[source] pub Box<dyn std::error::Error + Send + Sync>);
