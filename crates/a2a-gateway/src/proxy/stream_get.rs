//! `GET /a2a/{agent_id}/stream`: an agent's event stream opened without a body, as
//! KubeMQ's gateway offers beside `message/stream`.
//!
//! The request goes to the agent's own URL (a KubeMQ record's `url`, an A2A card's JSON-RPC
//! interface) as a `GET` with `Accept: text/event-stream`, its query and its `X-*` headers
//! kept and the caller id added; it is not an HTTP+JSON path, so it never reaches the REST
//! interface as `/stream`. The answer is relayed event by event like every stream of the
//! gateway: keepalives, the idle timeout, a final `task.error` frame, the per-agent
//! concurrency limit and the active-stream gauge. The gateway's own errors are JSON-RPC
//! error bodies (id `null`) at HTTP 200, as on `POST /a2a/{agent_id}`.

use std::sync::Arc;

use a2a_types::jsonrpc::{JsonRpcResponse, RequestId};
use axum::Json;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse as _, Response};
use http::StatusCode;
use http::header::{ACCEPT, HeaderValue, WWW_AUTHENTICATE};
use tokio::time::Instant;

use super::config::AuthFailureStatus;
use super::error::GatewayError;
use super::state::Proxy;
use super::stream::{self, Framing};
use super::upstream::{self, Reply};
use super::{auth, headers};
use crate::metrics::{Outcome, UNKNOWN_AGENT};
use crate::registry::validate_agent_id;

/// The `method` label of these streams: a stream of the agent's, as `message/stream` is.
const METHOD_LABEL: &str = "message/stream";

/// `GET /a2a/{agent_id}/stream`.
pub(crate) async fn handle(
    State(proxy): State<Arc<Proxy>>,
    Path(agent_id): Path<String>,
    request: Request,
) -> Response {
    let started = Instant::now();
    let mut label = UNKNOWN_AGENT.to_owned();
    let (response, outcome) = match open(&proxy, &agent_id, request, &mut label).await {
        Ok(answer) => answer,
        Err(error) => (refusal(&proxy, &error), error.outcome()),
    };
    proxy
        .metrics
        .record_request(&label, METHOD_LABEL, outcome, started.elapsed());
    response
}

async fn open(
    proxy: &Proxy,
    agent_id: &str,
    request: Request,
    label: &mut String,
) -> Result<(Response, Outcome), GatewayError> {
    let (parts, _) = request.into_parts();
    let verifier = proxy.config.token_verifier.as_deref();
    let caller_id = auth::caller_id(verifier, &parts.headers).await?;
    validate_agent_id(agent_id)
        .map_err(|error| GatewayError::invalid_request(error.to_string()))?;
    let agent = proxy.find(agent_id).await?;
    label.clone_from(&agent.agent_id);
    let base = agent
        .jsonrpc_url
        .as_deref()
        .ok_or_else(|| GatewayError::MethodNotFound {
            reason: format!("agent {agent_id} has no URL a stream can be opened at"),
        })?;
    let mut url = base.to_owned();
    if let Some(query) = parts.uri.query() {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(query);
    }
    let permit = proxy.limits.acquire(agent_id)?;
    let mut to_agent = headers::to_agent(&parts.headers, &caller_id);
    to_agent.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
    let outgoing = proxy.client()?.get(url).headers(to_agent);
    let reply = upstream::call(
        outgoing,
        agent_id,
        upstream::deadline(None, &proxy.config),
        proxy.config.max_response_bytes,
    )
    .await?;
    Ok(match reply {
        Reply::Stream(response) => {
            let held = (permit, proxy.metrics.stream_opened(agent_id));
            let framing = Framing::JsonRpc(RequestId::Null);
            let response = stream::response(response, agent_id, framing, &proxy.config, held);
            (response, Outcome::Success)
        }
        // An agent that does not stream here says so in its own words.
        Reply::Complete {
            status,
            headers: agent_headers,
            body,
        } => {
            let mut response = Response::new(Body::from(body));
            *response.status_mut() = status;
            *response.headers_mut() = headers::to_client(&agent_headers);
            (response, Outcome::AgentError)
        }
    })
}

/// The gateway's own error as a JSON-RPC error (id `null`) at HTTP 200, or at 401 with
/// `WWW-Authenticate` for a failed authentication when the configuration says so.
fn refusal(proxy: &Proxy, error: &GatewayError) -> Response {
    let body = JsonRpcResponse::error(
        RequestId::Null,
        error.to_jsonrpc_error_with(proxy.config.legacy_codes),
    );
    let unauthorized = matches!(error, GatewayError::Unauthenticated { .. })
        && proxy.config.auth_failure_status == AuthFailureStatus::Unauthorized;
    if unauthorized {
        let mut response = (StatusCode::UNAUTHORIZED, Json(body)).into_response();
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        response
    } else {
        (StatusCode::OK, Json(body)).into_response()
    }
}
