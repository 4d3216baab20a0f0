//! The state every proxy route shares: the agent directory, the clients for agents, the limits.

use std::sync::Arc;

use super::config::ProxyConfig;
use super::error::GatewayError;
use super::grpc::Channels;
use super::limits::ConcurrencyLimits;
use super::upstream::AgentUrls;
use crate::agent::{AgentDirectory, RegisteredAgent};
use crate::metrics::Metrics;

/// What every route shares.
#[derive(Debug)]
pub(crate) struct Proxy {
    pub(crate) directory: Arc<dyn AgentDirectory>,
    pub(crate) config: ProxyConfig,
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) limits: ConcurrencyLimits,
    /// `None` when it could not be built; the cause was logged once.
    client: Option<reqwest::Client>,
    /// The agents' JSON-RPC URLs, parsed.
    pub(crate) agent_urls: AgentUrls,
    /// The channels to agents reached over gRPC.
    pub(crate) grpc: Channels,
}

impl Proxy {
    /// The state of [`router`](super::router) over `directory`, with the HTTP client and
    /// the gRPC channels for calls to agents.
    pub(crate) fn new(
        directory: Arc<dyn AgentDirectory>,
        config: ProxyConfig,
        metrics: Arc<Metrics>,
    ) -> Self {
        let client = reqwest::Client::builder()
            // A redirect could send the call, with the caller's headers, anywhere.
            .redirect(reqwest::redirect::Policy::none())
            .danger_accept_invalid_certs(config.agent_tls_skip_verify)
            .build()
            .inspect_err(|error| {
                tracing::error!(error = %error, "the proxy's HTTP client cannot be built; every call will fail");
            })
            .ok();
        if config.agent_tls_skip_verify {
            tracing::warn!("TLS certificates of agents are not verified (AgentTLSSkipVerify)");
        }
        let grpc = Channels::new(config.agent_tls_skip_verify);
        Self {
            directory,
            limits: ConcurrencyLimits::new(config.max_concurrency_per_agent),
            config,
            metrics,
            client,
            agent_urls: AgentUrls::default(),
            grpc,
        }
    }

    /// The live agent registered as `agent_id`.
    ///
    /// # Errors
    /// [`GatewayError::AgentNotFound`] when there is none (expired and deregistered agents
    /// included); [`GatewayError::Internal`] when the registry cannot be read.
    pub(crate) async fn find(&self, agent_id: &str) -> Result<Arc<RegisteredAgent>, GatewayError> {
        match self.directory.find(agent_id).await {
            Ok(Some(agent)) => Ok(agent),
            Ok(None) => Err(GatewayError::AgentNotFound {
                agent_id: agent_id.to_owned(),
            }),
            Err(error) => {
                tracing::error!(agent_id, error = %error, "agent registry read failed");
                Err(GatewayError::Internal)
            }
        }
    }

    /// The HTTP client for calls to agents.
    ///
    /// # Errors
    /// [`GatewayError::Internal`] when it could not be built.
    pub(crate) fn client(&self) -> Result<&reqwest::Client, GatewayError> {
        self.client.as_ref().ok_or(GatewayError::Internal)
    }
}
