//! [`router`]: the proxy's routes.

use std::sync::Arc;

use a2a_types::card::WELL_KNOWN_CARD_PATH;
use axum::Router;
use axum::routing::{any, get, post};

use super::state::Proxy;
use super::{ProxyConfig, card, cors, jsonrpc, rest, stream_get};
use crate::agent::AgentDirectory;
use crate::metrics::Metrics;

/// The proxy's routes:
///
/// | route | what |
/// |---|---|
/// | `POST /a2a/{agent_id}` | JSON-RPC, forwarded to the agent's JSON-RPC URL |
/// | `GET /a2a/{agent_id}/.well-known/agent-card.json` | the agent's card, pointing at the gateway |
/// | `GET /a2a/{agent_id}/.well-known/signed-agent-card.json` | a signed agent's card as registered |
/// | `GET /a2a/{agent_id}/stream` | the agent's event stream, opened at its own URL without a body (`stream_get`) |
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
    let trusted_origins = config.trusted_origins.clone();
    let proxy = Arc::new(Proxy::new(directory, config, metrics));
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
