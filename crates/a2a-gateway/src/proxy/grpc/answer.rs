//! A gRPC agent's answer in the client's binding: one JSON-RPC response or HTTP+JSON body,
//! or a stream of SSE events shaped as the gateway's relay shapes an agent's own stream.

use std::convert::Infallible;

use a2a_types::A2aError;
use a2a_types::error::RestStatusProfile;
use a2a_types::jsonrpc::{JsonRpcError, JsonRpcResponse};
use axum::Json;
use axum::response::{IntoResponse as _, Response};
use bytes::Bytes;
use futures::{Stream, StreamExt as _};
use http::StatusCode;
use http::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;
use tokio::sync::OwnedSemaphorePermit;

use super::super::state::Proxy;
use super::super::stream::{self, Framing};
use super::super::versions::Translation;
use super::invoke::{Answer, Events, Failure};
use crate::metrics::Outcome;

/// The client's response to `answer`, in the envelope of `framing`. A stream holds the
/// agent's concurrency `permit` until it ends or the client leaves.
///
/// # Errors
/// The gateway's own failure, which the caller answers in its binding.
pub(crate) fn respond(
    proxy: &Proxy,
    agent_id: &str,
    framing: Framing,
    answer: Result<Answer, Failure>,
    permit: OwnedSemaphorePermit,
    translation: Option<Translation>,
) -> Result<(Response, Outcome), super::super::error::GatewayError> {
    match answer {
        Ok(Answer::Unary(value)) => {
            let value = match translation {
                Some(translation) => translation.result(agent_id, value, false)?,
                None => value,
            };
            Ok((single(&framing, value), Outcome::Success))
        }
        Ok(Answer::Stream(events)) => {
            let held = (permit, proxy.metrics.stream_opened(agent_id));
            let mut headers = HeaderMap::new();
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
            let events = match translation {
                None => events,
                Some(translation) => {
                    let owner = agent_id.to_owned();
                    events
                        .map(move |element| {
                            element.and_then(|value| {
                                translation
                                    .result(&owner, value, true)
                                    .map_err(Failure::Gateway)
                            })
                        })
                        .boxed()
                }
            };
            let events = sse(events, framing.clone(), translation);
            let response =
                stream::relayed_response(events, headers, agent_id, framing, &proxy.config, held);
            Ok((response, Outcome::Success))
        }
        Err(Failure::Agent(error)) => Ok((
            agent_error(&framing, &error, translation.as_ref()),
            Outcome::AgentError,
        )),
        Err(Failure::Gateway(error)) => Err(error),
    }
}

/// The agent's error as JSON-RPC writes it for the caller: in v1.0, or in v0.3 through
/// `translation`.
fn jsonrpc_error(error: &A2aError, translation: Option<&Translation>) -> JsonRpcError {
    match translation {
        Some(translation) => translation.error(error),
        None => error.to_jsonrpc_error(),
    }
}

/// One response document: the JSON-RPC result at HTTP 200, or the bare HTTP+JSON body.
fn single(framing: &Framing, value: Value) -> Response {
    match framing {
        Framing::JsonRpc(id) => Json(JsonRpcResponse::success(id.clone(), value)).into_response(),
        Framing::HttpJson => Json(value).into_response(),
    }
}

/// The agent's own error: a JSON-RPC error at HTTP 200, or a `google.rpc.Status` body with
/// the error's HTTP status.
fn agent_error(framing: &Framing, error: &A2aError, translation: Option<&Translation>) -> Response {
    match framing {
        Framing::JsonRpc(id) => Json(JsonRpcResponse::error(
            id.clone(),
            jsonrpc_error(error, translation),
        ))
        .into_response(),
        Framing::HttpJson => {
            let profile = RestStatusProfile::Spec;
            let status = StatusCode::from_u16(error.kind().http_status(profile))
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            (status, Json(error.to_status_body(profile))).into_response()
        }
    }
}

/// `events` as SSE bytes: each element a `data:` event (a JSON-RPC response whose result
/// is the `StreamResponse`, or the bare `StreamResponse`); the agent's error as an
/// `event: error` frame, as an A2A server ends a stream; the gateway's as its `task.error`
/// frame. The stream ends after either.
fn sse(
    events: Events,
    framing: Framing,
    translation: Option<Translation>,
) -> impl Stream<Item = Result<Bytes, Infallible>> {
    events.map(move |element| {
        Ok(match element {
            Ok(value) => event(None, &document(&framing, value)),
            Err(Failure::Agent(error)) => {
                let body = match &framing {
                    Framing::JsonRpc(id) => serde_json::to_value(JsonRpcResponse::error(
                        id.clone(),
                        jsonrpc_error(&error, translation.as_ref()),
                    ))
                    .unwrap_or_else(|failure| {
                        // Never expected: the document holds only strings and numbers.
                        tracing::error!(error = %failure, "stream error could not be written");
                        Value::Null
                    }),
                    Framing::HttpJson => error.to_status_body(RestStatusProfile::Spec),
                };
                event(Some("error"), &body)
            }
            Err(Failure::Gateway(error)) => stream::error_frame(&framing, &error),
        })
    })
}

fn document(framing: &Framing, value: Value) -> Value {
    match framing {
        Framing::JsonRpc(id) => {
            let response = JsonRpcResponse::success(id.clone(), value);
            serde_json::to_value(response).unwrap_or_else(|failure| {
                tracing::error!(error = %failure, "stream event could not be written");
                Value::Null
            })
        }
        Framing::HttpJson => value,
    }
}

/// One SSE event; JSON text holds no line breaks, so one `data:` line carries it.
fn event(name: Option<&str>, data: &Value) -> Bytes {
    match name {
        Some(name) => Bytes::from(format!("event: {name}\ndata: {data}\n\n")),
        None => Bytes::from(format!("data: {data}\n\n")),
    }
}
