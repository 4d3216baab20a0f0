//! `/a2a/{agent_id}/{*path}`: HTTP+JSON calls forwarded to the agent's REST base URL plus
//! `path` and query, with method and body unchanged, and the answer relayed as it came,
//! streams included.
//!
//! The gateway's own errors are `google.rpc.Status` bodies with the gateway's `ErrorInfo`
//! (its own domain, `executed = "false"`) and the HTTP status of each error.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse as _, Response};
use http::StatusCode;
use http::header::{CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use tokio::time::Instant;

use super::envelope;
use super::error::GatewayError;
use super::grpc::{self, grpc_url};
use super::limits::read_request;
use super::state::Proxy;
use super::stream::{self, Framing};
use super::upstream::{self, Reply};
use super::{auth, headers};
use crate::metrics::{Outcome, REST_METHOD, UNKNOWN_AGENT};
use crate::registry::validate_agent_id;

/// Any method on `/a2a/{agent_id}/{*path}`.
pub(crate) async fn handle(
    State(proxy): State<Arc<Proxy>>,
    Path((agent_id, _path)): Path<(String, String)>,
    request: Request,
) -> Response {
    let started = Instant::now();
    let mut label = UNKNOWN_AGENT.to_owned();
    let (response, outcome) = match forward(&proxy, &agent_id, request, &mut label).await {
        Ok(answer) => answer,
        Err(error) => (status_response(&error), error.outcome()),
    };
    proxy
        .metrics
        .record_request(&label, REST_METHOD, outcome, started.elapsed());
    response
}

/// The gateway's own error as an HTTP+JSON response; a 401 names the scheme it wants
/// (RFC 9110 §11.6.1).
pub(crate) fn status_response(error: &GatewayError) -> Response {
    let (status, _) = error.http_status();
    let mut response = (status, axum::Json(error.to_status_body())).into_response();
    if status == StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

async fn forward(
    proxy: &Proxy,
    agent_id: &str,
    request: Request,
    label: &mut String,
) -> Result<(Response, Outcome), GatewayError> {
    let (parts, body) = request.into_parts();
    let verifier = proxy.config.token_verifier.as_deref();
    let caller_id = auth::caller_id(verifier, &parts.headers).await?;
    validate_agent_id(agent_id)
        .map_err(|error| GatewayError::invalid_request(error.to_string()))?;
    let body = read_request(body, proxy.config.max_request_bytes).await?;
    let agent = proxy.find(agent_id).await?;
    label.clone_from(&agent.agent_id);
    let base = match (agent.rest_url.as_deref(), grpc_url(&agent.card)) {
        (Some(base), _) => base,
        // Without HTTP+JSON, a gRPC interface is called in the route's stead.
        (None, Some(url)) => {
            // Boxed, as on the JSON-RPC route: a gRPC call's future would make every
            // call's large.
            return Box::pin(grpc::rest::call(
                proxy, agent_id, url, &parts, &caller_id, &body,
            ))
            .await;
        }
        // A KubeMQ record has a single `url`, which serves its streams too.
        (None, None) => {
            agent
                .jsonrpc_url
                .as_deref()
                .ok_or_else(|| GatewayError::MethodNotFound {
                    reason: format!("agent {agent_id} has no HTTP+JSON interface"),
                })?
        }
    };
    let url = target_url(base, parts.uri.path(), parts.uri.query());
    let permit = proxy.limits.acquire(agent_id)?;
    let deadline = upstream::deadline(envelope::deadline_params(&body).as_ref(), &proxy.config);
    let outgoing = proxy
        .client()?
        .request(parts.method, url)
        .headers(headers::to_agent(&parts.headers, &caller_id))
        .body(body);
    let reply = upstream::call(
        outgoing,
        agent_id,
        deadline,
        proxy.config.max_response_bytes,
    )
    .await?;
    Ok(match reply {
        Reply::Stream(response) => {
            let held = (permit, proxy.metrics.stream_opened(agent_id));
            let response =
                stream::response(response, agent_id, Framing::HttpJson, &proxy.config, held);
            (response, Outcome::Success)
        }
        Reply::Complete {
            status,
            headers: agent_headers,
            body,
        } => {
            let outcome = if status.is_success() {
                Outcome::Success
            } else {
                Outcome::AgentError
            };
            let mut response = Response::new(Body::from(body));
            *response.status_mut() = status;
            *response.headers_mut() = headers::to_client(&agent_headers);
            if status == StatusCode::OK && !response.headers().contains_key(CONTENT_TYPE) {
                response
                    .headers_mut()
                    .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            }
            (response, outcome)
        }
    })
}

/// `base` + the part of `path` after `/a2a/{agent_id}` + `?query`. The path is taken as
/// received, still percent-encoded, so `tasks/a%2Fb` stays one segment.
fn target_url(base: &str, path: &str, query: Option<&str>) -> String {
    let rest = path
        .strip_prefix("/a2a/")
        .and_then(|after| after.find('/').map(|slash| &after[slash..]))
        .unwrap_or("");
    let mut url = format!("{}{rest}", base.trim_end_matches('/'));
    if let Some(query) = query {
        url.push('?');
        url.push_str(query);
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_keeps_the_path_as_received() {
        let cases = [
            (
                "http://a/rest",
                "/a2a/echo/message:send",
                None,
                "http://a/rest/message:send",
            ),
            (
                "http://a/rest/",
                "/a2a/echo/tasks/a%2Fb",
                None,
                "http://a/rest/tasks/a%2Fb",
            ),
            (
                "http://a",
                "/a2a/echo/tasks",
                Some("pageSize=2"),
                "http://a/tasks?pageSize=2",
            ),
            (
                "http://a/x",
                "/a2a/%65cho/stream",
                None,
                "http://a/x/stream",
            ),
        ];
        for (base, path, query, url) in cases {
            assert_eq!(target_url(base, path, query), url, "{path}");
        }
    }
}
