//! [`router`]: the proxy's routes and the state they share.

use std::sync::Arc;

use a2a_types::card::WELL_KNOWN_CARD_PATH;
use axum::Router;
use axum::routing::{any, get, post};

use super::error::GatewayError;
use super::grpc::Channels;
use super::limits::ConcurrencyLimits;
use super::upstream::AgentUrls;
use super::{ProxyConfig, card, cors, jsonrpc, rest, stream_get};
use crate::agent::{AgentDirectory, RegisteredAgent};
use crate::metrics::Metrics;

/// The proxy's routes:
///
/// | route | what |
/// |---|---|
/// | `POST /a2a/{agent_id}` | JSON-RPC, forwarded to the agent's JSON-RPC URL |
/// | `GET /a2a/{agent_id}/.well-known/agent-card.json` | the agent's card, pointing at the gateway |
/// | `GET /a2a/{agent_id}/.well-known/signed-agent-card.json` | a signed agent's card as registered |
/// | `GET /a2a/{agent_id}/stream` | the agent's event stream, opened at its own URL without a body ([`stream_get`](super::stream_get)) |
/// | any `/a2a/{agent_id}/{*path}` | HTTP+JSON, forwarded to the agent's REST base URL + `path` |
/// | `GET /.well-known/agent-card.json` | the gateway's own card |
///
/// `GET /a2a/{agent_id}` answers 405. CORS headers are added for
/// [`ProxyConfig::trusted_origins`]. The proxy records its series through `metrics`
/// ([`crate::metrics`]); `/metrics` is served by [`Gateway`](crate::Gateway).
pub fn router(
    directory: Arc<dyn AgentDirectory>,
    config: ProxyConfig,
    metrics: Arc<Metrics>,
) -> Router {
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
    let trusted_origins = config.trusted_origins.clone();
    let grpc = Channels::new(config.agent_tls_skip_verify);
    let proxy = Arc::new(Proxy {
        directory,
        limits: ConcurrencyLimits::new(config.max_concurrency_per_agent),
        config,
        metrics,
        client,
        agent_urls: AgentUrls::default(),
        grpc,
    });
    let routes = Router::new()
        .route("/a2a", post(jsonrpc::handle_without_id))
        .route("/a2a/", post(jsonrpc::handle_without_id))
        .route("/a2a/{agent_id}", post(jsonrpc::handle))
        .route(
            &format!("/a2a/{{agent_id}}{WELL_KNOWN_CARD_PATH}"),
            get(card::agent_card),
        )
        .route(
            &format!("/a2a/{{agent_id}}{}", card::SIGNED_CARD_PATH),
            get(card::signed_agent_card),
        )
        .route("/a2a/{agent_id}/stream", get(stream_get::handle))
        .route("/a2a/{agent_id}/{*path}", any(rest::handle))
        .route(WELL_KNOWN_CARD_PATH, get(card::platform_card))
        .with_state(proxy)
        .layer(axum::middleware::from_fn(super::trace::span));
    cors::apply(routes, &trusted_origins)
}

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
