//! A JSON-RPC request to an agent that only speaks gRPC: the method and `params` read into
//! the rpc's request, the call made, and the answer written back as JSON-RPC.

use a2a_types::jsonrpc::{JsonRpcRequest, RequestId};
use axum::response::Response;
use http::header::HeaderMap;

use super::super::error::GatewayError;
use super::super::state::Proxy;
use super::super::stream::Framing;
use super::super::versions::Translation;
use super::super::{headers, upstream};
use super::answer::respond;
use super::invoke::{Target, invoke};
use super::operation::Operation;
use crate::metrics::Outcome;

/// Calls `agent_id` at its gRPC interface `url` for `request` (a v1.0 request; with
/// `translation`, one translated from a v0.3 caller's, whose answer is translated back).
///
/// # Errors
/// The gateway's own error: [`GatewayError::MethodNotFound`] for a name that is not an
/// A2A v1.0 method, [`GatewayError::InvalidParams`], the concurrency limit, and the call's
/// failures (see [`invoke`]).
pub(crate) async fn call(
    proxy: &Proxy,
    agent_id: &str,
    url: &str,
    client_headers: &HeaderMap,
    caller_id: &str,
    request: &JsonRpcRequest,
    translation: Option<Translation>,
) -> Result<(Response, Outcome), GatewayError> {
    let method = request
        .a2a_method()
        .ok_or_else(|| GatewayError::MethodNotFound {
            reason: format!(
                "{:?} is not an A2A v1.0 method, and agent {agent_id} speaks only gRPC",
                request.method
            ),
        })?;
    let operation = Operation::from_params(method, request.params.as_ref())?;
    let permit = proxy.limits.acquire(agent_id)?;
    let target = Target {
        channel: proxy.grpc.channel(agent_id, url)?,
        agent_id,
        headers: headers::to_agent(client_headers, caller_id),
        deadline: upstream::deadline(request.params.as_ref(), &proxy.config),
        max_response_bytes: proxy.config.max_response_bytes,
    };
    let answer = invoke(operation, target).await;
    let framing = Framing::JsonRpc(request.id.clone().unwrap_or(RequestId::Null));
    respond(proxy, agent_id, framing, answer, permit, translation)
}
