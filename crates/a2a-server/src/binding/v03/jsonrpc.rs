//! v0.3 JSON-RPC on the 1.0 JSON-RPC endpoint: the v0.3 method names, answered with v0.3
//! results, v0.3 stream elements (each `data:` a JSON-RPC response) and v0.3 error codes.

use a2a_types::A2aError;
use a2a_types::jsonrpc::{JsonRpcResponse, RequestId};
use a2a_types::v03::{self, Method};
use axum::response::Response;
use http::StatusCode;
use serde_json::Value;

use super::super::dispatch::Params;
use super::super::state::Bindings;
use super::super::{Endpoint, response, sse};
use super::run::{Answer, run};
use crate::handler::CallContext;

/// Answers one v0.3 request under `id` (`null` for a request that had none).
pub(in crate::binding) async fn serve(
    bindings: &Bindings,
    endpoint: &Endpoint,
    id: RequestId,
    method: Method,
    params: Option<Params<'_>>,
    mut call: CallContext,
) -> Response {
    let params = match params {
        None => Ok(Value::Null),
        Some(Params::Tree(value)) => Ok(value),
        Some(Params::Text(text)) => {
            serde_json::from_str::<Value>(text).map_err(|_| A2aError::parse_error())
        }
    };
    // v0.3 requests name no tenant: the interface's.
    call.tenant.clone_from(&endpoint.tenant);
    let outcome = match params {
        Ok(params) => run(&bindings.handler, method, params, &mut call).await,
        Err(error) => Err(error),
    };
    let answer = match outcome {
        Ok(Answer::Result(result)) => response::jsonrpc_success(id, &result),
        Ok(Answer::Stream(events)) => {
            sse::response(events, sse::Framing::JsonRpcV03(id), bindings.sse_keepalive)
        }
        Err(error) => return error_response(id, &error),
    };
    response::with_extensions(answer, &call.activated_extensions)
}

/// A v0.3 JSON-RPC error response: the v0.3 code, the 1.0 details in `data`, the HTTP
/// status the 1.0 binding gives the same error.
pub(super) fn error_response(id: RequestId, error: &A2aError) -> Response {
    let status = StatusCode::from_u16(error.kind().jsonrpc_http_status())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let document = JsonRpcResponse::error(id, v03::JsonRpcError::from(error).into());
    match serde_json::to_vec(&document) {
        Ok(body) => response::bytes(status, super::super::media::APPLICATION_JSON, body),
        Err(failure) => {
            tracing::error!(error = %failure, "JSON-RPC error could not be serialised");
            response::empty(StatusCode::INTERNAL_SERVER_ERROR)
        }
    }
}
