//! `POST /a2a/{agent_id}`: a JSON-RPC request checked, forwarded unchanged to the agent's
//! JSON-RPC URL, and its answer relayed or replaced by the gateway's error.
//!
//! Every request that could be read is answered at HTTP 200 with a JSON-RPC body, except
//! notifications, which get 204 and no body whatever happens, and agent errors that are not
//! JSON-RPC, which are relayed with the agent's own status.

use std::sync::Arc;

use a2a_types::jsonrpc::{
    EnvelopeError, JsonRpcPayload, JsonRpcRequest, JsonRpcResponse, RequestId,
};
use a2a_types::v03;
use axum::Json;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse as _, Response};
use bytes::Bytes;
use http::header::{CONTENT_TYPE, HeaderMap, HeaderValue, WWW_AUTHENTICATE};
use http::{Method, StatusCode};
use tokio::time::Instant;

use super::config::{AuthFailureStatus, ProxyConfig};
use super::envelope::{self, RequestHead, ScannedRequest};
use super::error::GatewayError;
use super::grpc::{self, grpc_url};
use super::limits::read_request;
use super::state::Proxy;
use super::stream::{self, Framing};
use super::upstream::{self, Reply};
use super::versions::{self, Direction, Plan, Translation};
use super::{auth, headers};
use crate::metrics::{Outcome, UNKNOWN_AGENT};
use crate::registry::validate_agent_id;

/// `POST /a2a/{agent_id}`.
pub(crate) async fn handle(
    State(proxy): State<Arc<Proxy>>,
    Path(agent_id): Path<String>,
    request: Request,
) -> Response {
    let started = Instant::now();
    let mut labels = Labels {
        agent_id: UNKNOWN_AGENT.to_owned(),
        method: String::new(),
    };
    let (response, outcome) = forward(&proxy, &agent_id, request, &mut labels).await;
    proxy
        .metrics
        .record_request(&labels.agent_id, &labels.method, outcome, started.elapsed());
    response
}

/// `POST /a2a` and `POST /a2a/`: an empty agent id, an invalid request (-32600).
pub(crate) async fn handle_without_id(state: State<Arc<Proxy>>, request: Request) -> Response {
    handle(state, Path(String::new()), request).await
}

/// The metric labels, learnt as the request is read.
struct Labels {
    agent_id: String,
    method: String,
}

async fn forward(
    proxy: &Proxy,
    agent_id: &str,
    request: Request,
    labels: &mut Labels,
) -> (Response, Outcome) {
    let (parts, body) = request.into_parts();
    // Before the body is read: an unauthenticated caller costs no more than its headers.
    let verifier = proxy.config.token_verifier.as_deref();
    let caller_id = match auth::caller_id(verifier, &parts.headers).await {
        Ok(caller_id) => caller_id,
        Err(error) => return refuse(&proxy.config, RequestId::Null, &error),
    };
    let (body, request) = match read(proxy, agent_id, &parts.headers, body).await {
        Ok(read) => read,
        Err((id, error)) => return refuse(&proxy.config, id, &error),
    };
    labels.method.clone_from(&request.method);
    tracing::Span::current().record("operation", request.method.as_str());
    let answer = call(
        proxy,
        agent_id,
        &parts.headers,
        &caller_id,
        &request,
        body,
        labels,
    )
    .await;
    match (request.id, answer) {
        (None, Ok((_, outcome))) => (StatusCode::NO_CONTENT.into_response(), outcome),
        (None, Err(error)) => (StatusCode::NO_CONTENT.into_response(), error.outcome()),
        (Some(_), Ok(answer)) => answer,
        (Some(id), Err(error)) => refuse(&proxy.config, id, &error),
    }
}

/// The body as sent, and what the proxy reads of the request it holds, checked in order:
/// `Content-Type` and JSON (-32700, id null), the agent id once the request's id is known,
/// then the envelope (-32600, or -32602 for `params`).
async fn read(
    proxy: &Proxy,
    agent_id: &str,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Bytes, RequestHead), (RequestId, GatewayError)> {
    let body = read_request(body, proxy.config.max_request_bytes)
        .await
        .map_err(|error| (RequestId::Null, error))?;
    if !upstream::has_media_type(headers, "application/json") {
        let error = GatewayError::parse("Content-Type must be application/json");
        return Err((RequestId::Null, error));
    }
    let scanned = ScannedRequest::read(&body)
        .ok_or_else(|| (RequestId::Null, GatewayError::parse("invalid JSON")))?;
    let id = scanned.id();
    if let Err(error) = validate_agent_id(agent_id) {
        return Err((id, GatewayError::invalid_request(error.to_string())));
    }
    let request = scanned
        .head()
        .map_err(|error| (id, envelope_error(&error)))?;
    Ok((body, request))
}

/// The gateway's error for a request whose envelope is refused: -32602 for `params`,
/// -32600 for anything else.
fn envelope_error(error: &EnvelopeError) -> GatewayError {
    match error {
        EnvelopeError::InvalidMember {
            member: "params", ..
        } => GatewayError::InvalidParams {
            reason: error.to_string(),
        },
        // A foreign non-exhaustive enum: every other envelope fault is an invalid request.
        _ => GatewayError::invalid_request(error.to_string()),
    }
}

/// Routes `request` to the agent and turns its answer into the client's response.
async fn call(
    proxy: &Proxy,
    agent_id: &str,
    client_headers: &HeaderMap,
    caller_id: &str,
    request: &RequestHead,
    body: Bytes,
    labels: &mut Labels,
) -> Result<(Response, Outcome), GatewayError> {
    let agent = proxy.find(agent_id).await?;
    labels.agent_id.clone_from(&agent.agent_id);
    let Some(url) = agent.jsonrpc_url.as_deref() else {
        // An agent without JSON-RPC may still be reached: the gateway translates to gRPC,
        // which needs the whole request.
        let url = grpc_url(&agent.card).ok_or_else(|| GatewayError::MethodNotFound {
            reason: format!("agent {agent_id} has no JSON-RPC or gRPC interface"),
        })?;
        let mut request = whole_request(&body)?;
        // A v0.3 caller's request is translated to the v1.0 one gRPC carries.
        let translation = v03::Method::parse(&request.method)
            .map(|method| Translation::new(Direction::ToV1, method));
        if let Some(translation) = &translation {
            request = translation.translated_request(request)?;
        }
        // Boxed: a gRPC call's future is ten times the size of the rest of a call's, and
        // every call's future is moved (copied) as axum passes the handler's along; those
        // copies were a tenth of the gateway's instructions per call.
        return Box::pin(grpc::jsonrpc::call(
            proxy,
            agent_id,
            url,
            client_headers,
            caller_id,
            &request,
            translation,
        ))
        .await;
    };
    let (url, translation) = match versions::plan(&request.method, url, || agent.spoken())? {
        Plan::Pass(url) => (url, None),
        Plan::ToV1 { url, method } => (url, Some(Translation::new(Direction::ToV1, method))),
        Plan::ToV03 { url, method } => (url, Some(Translation::new(Direction::ToV03, method))),
    };
    let body = match &translation {
        None => body,
        Some(translation) => translation.request(whole_request(&body)?)?,
    };
    let permit = proxy.limits.acquire(agent_id)?;
    let client = proxy.client()?;
    let mut headers = headers::to_agent(client_headers, caller_id);
    if let Some(translation) = &translation {
        translation.set_version_header(&mut headers);
    }
    let outgoing = match proxy.agent_urls.get(url) {
        Some(url) => {
            let mut outgoing = reqwest::Request::new(Method::POST, url);
            *outgoing.headers_mut() = headers;
            *outgoing.body_mut() = Some(body.into());
            reqwest::RequestBuilder::from_parts(client.clone(), outgoing)
        }
        // The builder refuses what cannot be called, and moves credentials in the URL to
        // an `Authorization` header, as it always did.
        None => client.post(url).headers(headers).body(body),
    };
    let deadline = upstream::deadline(request.deadline_params.as_ref(), &proxy.config);
    let reply = upstream::call(
        outgoing,
        agent_id,
        deadline,
        proxy.config.max_response_bytes,
    )
    .await?;
    match (reply, translation) {
        (Reply::Stream(response), None) => {
            let framing = Framing::JsonRpc(request.id.clone().unwrap_or(RequestId::Null));
            let held = (permit, proxy.metrics.stream_opened(agent_id));
            let response = stream::response(response, agent_id, framing, &proxy.config, held);
            Ok((response, Outcome::Success))
        }
        (Reply::Stream(response), Some(translation)) => {
            let id = request.id.clone().unwrap_or(RequestId::Null);
            let framing = Framing::JsonRpc(id.clone());
            let held = (permit, proxy.metrics.stream_opened(agent_id));
            let owner = agent_id.to_owned();
            let map = Box::new(move |block: &[u8]| translation.events(&owner, &id, block));
            let response =
                stream::mapped_response(response, agent_id, framing, &proxy.config, held, map);
            Ok((response, Outcome::Success))
        }
        (
            Reply::Complete {
                status,
                headers,
                body,
            },
            None,
        ) => relay(
            agent_id,
            request.id.as_ref(),
            status,
            &headers,
            body,
            proxy.config.legacy_codes,
        ),
        (
            Reply::Complete {
                status,
                mut headers,
                body,
            },
            Some(translation),
        ) => {
            // The agent's version is not the caller's.
            headers.remove(headers::VERSION_HEADER);
            let body = translation.answer(agent_id, &body)?.unwrap_or(body);
            relay(
                agent_id,
                request.id.as_ref(),
                status,
                &headers,
                body,
                proxy.config.legacy_codes,
            )
        }
    }
}

/// The whole request in `body`, which [`read`] found valid.
///
/// # Errors
/// The envelope's fault, as [`read`] reports it (it has already passed these checks).
fn whole_request(body: &[u8]) -> Result<JsonRpcRequest, GatewayError> {
    let value = serde_json::from_slice(body).map_err(|_| GatewayError::parse("invalid JSON"))?;
    JsonRpcRequest::from_value(value).map_err(|error| envelope_error(&error))
}

/// Whether `answered` is the id of a reply to a request of id `asked`: the same id (numbers
/// compared by value, as an agent may write `1.0` back as `1`), or `null` on an error, which
/// an agent may send when it could not read the id (JSON-RPC 2.0 §5).
fn answers(asked: &RequestId, answered: &RequestId, payload: &JsonRpcPayload) -> bool {
    match (asked, answered) {
        (_, RequestId::Null) => matches!(payload, JsonRpcPayload::Error(_)),
        (RequestId::Number(asked), RequestId::Number(answered)) => {
            asked == answered || asked.as_f64().is_some_and(|a| answered.as_f64() == Some(a))
        }
        (RequestId::String(asked), RequestId::String(answered)) => asked == answered,
        (RequestId::String(_) | RequestId::Number(_) | RequestId::Null, _) => false,
    }
}

/// The agent's whole answer as the client gets it: a JSON-RPC response byte for
/// byte at HTTP 200, whether result or the agent's own error; any other error body with
/// the agent's status; anything else, or a reply with another request's id, is -32004.
/// With `legacy_codes`, a 500 whose body is not JSON-RPC is the gateway's
/// `agent unavailable: 500` (-32603) instead of being relayed.
fn relay(
    agent_id: &str,
    asked: Option<&RequestId>,
    status: StatusCode,
    agent_headers: &HeaderMap,
    body: Bytes,
    legacy_codes: bool,
) -> Result<(Response, Outcome), GatewayError> {
    if !(status.is_success() || status.is_client_error() || status.is_server_error()) {
        return Err(GatewayError::invalid_response(
            agent_id,
            format!("HTTP {status}"),
        ));
    }
    let answer = envelope::response_head(&body);
    let mut client_headers = headers::to_client(agent_headers);
    let (status, outcome) = match answer {
        // A reply to another request is not an answer to this one (-32004): relaying it
        // would hand the caller someone else's result.
        Some(answer) if asked.is_some_and(|asked| !answers(asked, &answer.id, &answer.payload)) => {
            return Err(GatewayError::invalid_response(
                agent_id,
                format!("the reply's id {} is not the request's", answer.id),
            ));
        }
        Some(answer) => {
            client_headers
                .entry(CONTENT_TYPE)
                .or_insert(HeaderValue::from_static("application/json"));
            let outcome = match answer.payload {
                JsonRpcPayload::Result(_) => Outcome::Success,
                JsonRpcPayload::Error(_) => Outcome::AgentError,
            };
            (StatusCode::OK, outcome)
        }
        None if status.is_success() => {
            return Err(GatewayError::invalid_response(
                agent_id,
                "the body is not a JSON-RPC response",
            ));
        }
        None if legacy_codes && status == StatusCode::INTERNAL_SERVER_ERROR => {
            tracing::warn!(agent_id, status = status.as_u16(), "agent failed");
            return Err(GatewayError::Unavailable {
                agent_id: agent_id.to_owned(),
                status: status.as_u16(),
            });
        }
        None => (status, Outcome::AgentError),
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = client_headers;
    Ok((response, outcome))
}

/// The gateway's own error, at HTTP 200; an authentication failure at HTTP 401 with
/// `WWW-Authenticate` when `config` says so. The code is the legacy one with
/// [`ProxyConfig::legacy_codes`].
fn refuse(config: &ProxyConfig, id: RequestId, error: &GatewayError) -> (Response, Outcome) {
    let body = JsonRpcResponse::error(id, error.to_jsonrpc_error_with(config.legacy_codes));
    let unauthorized = matches!(error, GatewayError::Unauthenticated { .. })
        && config.auth_failure_status == AuthFailureStatus::Unauthorized;
    let mut response = if unauthorized {
        (StatusCode::UNAUTHORIZED, Json(body)).into_response()
    } else {
        (StatusCode::OK, Json(body)).into_response()
    };
    if unauthorized {
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    (response, error.outcome())
}
