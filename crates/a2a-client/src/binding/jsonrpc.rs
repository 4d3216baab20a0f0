//! The JSON-RPC 2.0 binding (spec §5.1): every call is a POST of one request object to the
//! interface URL; streams are SSE whose events are complete JSON-RPC responses.

use a2a_types::jsonrpc::{JsonRpcPayload, JsonRpcRequest, JsonRpcResponse, Method, RequestId};
use a2a_types::{A2aError, StreamResponse};
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{APPLICATION_JSON, EVENT_STREAM, Prepared, decode_value};
use crate::ClientError;
use crate::sse::SseEvent;

pub(super) fn prepare(
    url: &url::Url,
    method: Method,
    params: Value,
    request_id: u64,
    streaming: bool,
) -> Result<Prepared, ClientError> {
    let request = JsonRpcRequest::new(RequestId::from(request_id), method.as_str(), Some(params));
    let body = serde_json::to_vec(&request).map_err(|error| {
        ClientError::config(format!("the {method} request cannot be encoded: {error}"))
    })?;
    Ok(Prepared {
        method: http::Method::POST,
        url: url.clone(),
        body: Some(Bytes::from(body)),
        content_type: Some(APPLICATION_JSON),
        accept: if streaming {
            EVENT_STREAM
        } else {
            APPLICATION_JSON
        },
    })
}

/// The result of a JSON-RPC response body, or the agent's error.
pub(super) fn decode<T: DeserializeOwned>(method: Method, body: &[u8]) -> Result<T, ClientError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|_| ClientError::invalid_response(format!("the {method} answer is not JSON")))?;
    let result = result_of(method, value)?;
    decode_value(&format!("{method} result"), result)
}

/// One SSE event: a JSON-RPC response whose result is a `StreamResponse`, or an error that
/// ends the stream.
pub(super) fn decode_event(event: &SseEvent) -> Result<StreamResponse, ClientError> {
    let value: Value = serde_json::from_str(&event.data)
        .map_err(|_| ClientError::invalid_response("a stream event is not JSON"))?;
    let result = result_of(Method::SendStreamingMessage, value)?;
    decode_value("stream event", result)
}

fn result_of(method: Method, value: Value) -> Result<Value, ClientError> {
    let response = JsonRpcResponse::from_value(value).map_err(|error| {
        ClientError::invalid_response(format!(
            "the {method} answer is not a JSON-RPC response: {error}"
        ))
    })?;
    match response.payload {
        JsonRpcPayload::Result(result) => Ok(result),
        JsonRpcPayload::Error(error) => {
            Err(ClientError::Agent(A2aError::from_jsonrpc_error(&error)))
        }
    }
}
