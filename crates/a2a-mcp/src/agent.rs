//! The agents behind the tools: where each is, and the client that reaches it.

use std::fmt;
use std::sync::Arc;

use a2a_client::{A2aClient, A2aClientBuilder, ClientError};
use a2a_types::AgentCard;

use crate::credentials::{AgentCredentials, CredentialsError, CredentialsFile};

/// Where an agent is: a URL given on the command line, or an agent of a gateway's registry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// The agent's base URL (its card at `/.well-known/agent-card.json`) or its card's URL.
    pub url: String,
    /// The agent's id in the gateway's registry, for a gateway's agent.
    pub gateway_id: Option<String>,
}

impl Target {
    /// An agent at `url`.
    pub fn url(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            gateway_id: None,
        }
    }

    /// The agent `agent_id` of the gateway at `gateway` (reached at `GATEWAY/a2a/ID`).
    pub fn gateway_agent(gateway: &str, agent_id: impl Into<String>) -> Self {
        let agent_id = agent_id.into();
        Self {
            url: format!("{}/a2a/{agent_id}", gateway.trim_end_matches('/')),
            gateway_id: Some(agent_id),
        }
    }

    /// The names a credentials file may know this agent by, most specific first.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.url.as_str()).chain(self.gateway_id.as_deref())
    }
}

/// An agent reached: its card, read when it was reached, and the client for its calls.
#[derive(Debug, Clone)]
pub struct Agent {
    /// Where it is.
    pub target: Target,
    /// The client, bound to the card's interface.
    pub client: A2aClient,
    /// The card.
    pub card: AgentCard,
}

/// Makes the clients of the agents: the command's connection settings, with each agent's
/// credentials.
#[derive(Clone)]
pub struct Connector {
    base: Arc<dyn Fn() -> A2aClientBuilder + Send + Sync>,
    default: AgentCredentials,
    file: CredentialsFile,
}

impl fmt::Debug for Connector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connector")
            .field("default", &self.default)
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

impl Default for Connector {
    fn default() -> Self {
        Self::new(A2aClient::builder)
    }
}

impl Connector {
    /// Clients made by `base` (headers, TLS, timeouts, binding), with no credentials.
    pub fn new(base: impl Fn() -> A2aClientBuilder + Send + Sync + 'static) -> Self {
        Self {
            base: Arc::new(base),
            default: AgentCredentials::default(),
            file: CredentialsFile::default(),
        }
    }

    /// The credentials of the agents the file does not name.
    #[must_use]
    pub fn credentials(mut self, default: AgentCredentials) -> Self {
        self.default = default;
        self
    }

    /// Per-agent credentials.
    #[must_use]
    pub fn credentials_file(mut self, file: CredentialsFile) -> Self {
        self.file = file;
        self
    }

    /// The credentials `target` is called with.
    fn credentials_of(&self, target: &Target) -> &AgentCredentials {
        self.file.for_agent(target.keys()).unwrap_or(&self.default)
    }

    /// Fetches the card of `target` and builds its client.
    ///
    /// # Errors
    /// The card cannot be fetched or used, or the agent's credentials are ambiguous.
    pub async fn connect(&self, target: &Target) -> Result<Agent, ConnectError> {
        let mut builder = (self.base)();
        if let Some(credentials) = self.credentials_of(target).to_client()? {
            builder = builder.credentials(credentials);
        }
        let client = builder.discover(&target.url).await?;
        let card = client.card().cloned().ok_or(ConnectError::NoCard)?;
        Ok(Agent {
            target: target.clone(),
            client,
            card,
        })
    }
}

/// Why an agent cannot be reached.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// Its card cannot be fetched, or names no interface the client speaks.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// Its credentials cannot be used.
    #[error(transparent)]
    Credentials(#[from] CredentialsError),
    /// The client was built without a card.
    #[error("the agent's card was not read")]
    NoCard,
}
