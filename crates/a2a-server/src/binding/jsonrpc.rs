//! The JSON-RPC 2.0 binding (spec §5.1): one POST endpoint, one request object per body, the
//! eleven methods by their v1.0 names.

use a2a_types::jsonrpc::{JsonRpcRequest, Method, RequestId, v0_3};
use a2a_types::{A2aError, ErrorKind, SendMessageRequest, SubscribeToTaskRequest};
use axum::extract::Request;
use axum::response::Response;
use http::StatusCode;
use serde_json::{Map, Value};

use super::call::{self, resolve_tenant};
use super::decode::{decode, decode_object};
use super::routes::Bindings;
use super::{Endpoint, body, media, response, sse};
use crate::handler::{CallContext, EventStream};

/// What a method produced: the `result` member, or the events of a streaming method.
enum Answer {
    Result(Value),
    Stream(EventStream),
}

/// Serves one request to a JSON-RPC endpoint.
pub(super) async fn serve(bindings: &Bindings, endpoint: &Endpoint, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if parts.method != http::Method::POST {
        let error = A2aError::invalid_request("JSON-RPC requests must be sent with POST");
        let response = response::jsonrpc_error_with_status(
            RequestId::Null,
            &error,
            StatusCode::METHOD_NOT_ALLOWED,
        );
        return response::with_allow(response, &[http::Method::POST]);
    }
    if let Err(error) = media::check_request_type(&parts.headers) {
        return response::jsonrpc_error(RequestId::Null, &error);
    }
    let bytes = match body::read_limited(body, &parts.headers, bindings.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(error) => return response::jsonrpc_error(RequestId::Null, &error),
    };
    let Ok(document) = serde_json::from_slice::<Value>(&bytes) else {
        return response::jsonrpc_error(RequestId::Null, &A2aError::parse_error());
    };
    // The id is echoed even when the envelope around it is invalid (JSON-RPC 2.0 §5).
    let id = RequestId::of_request(&document);
    let request = match JsonRpcRequest::from_value(document) {
        Ok(request) => request,
        Err(error) => {
            let error = A2aError::invalid_request(format!("Invalid request: {error}"));
            return response::jsonrpc_error(id, &error);
        }
    };
    let query = crate::percent::query_pairs(parts.uri.query().unwrap_or_default());
    let mut call = call::call_context(&parts.headers, &parts.extensions, &query);
    let JsonRpcRequest {
        id, method, params, ..
    } = request;
    let outcome = execute(bindings, endpoint, &method, params, &mut call).await;
    let Some(id) = id else {
        // A notification is executed but never answered (JSON-RPC 2.0 §4.1); a streamed
        // turn goes on without a reader, like any stream whose client left.
        if let Err(error) = outcome {
            tracing::debug!(method = %method, error = %error, "notification failed");
        }
        return response::empty(StatusCode::NO_CONTENT);
    };
    let answer = match outcome {
        Ok(Answer::Result(result)) => response::jsonrpc_success(id, result),
        // Every frame of the stream is a response to this request, so each carries its id.
        Ok(Answer::Stream(events)) => {
            sse::response(events, sse::Framing::JsonRpc(id), bindings.sse_keepalive)
        }
        Err(error) => return response::jsonrpc_error(id, &error),
    };
    response::with_extensions(answer, &call.activated_extensions)
}

/// Runs the method. A streaming method answers with its events once the first one is known,
/// so an error before it is a plain JSON-RPC error response.
async fn execute(
    bindings: &Bindings,
    endpoint: &Endpoint,
    name: &str,
    params: Option<Value>,
    call: &mut CallContext,
) -> Result<Answer, A2aError> {
    let Some(method) = Method::from_name(name) else {
        return Err(unknown_method(name, call));
    };
    // The version decides how params are read, so it is checked before them.
    bindings.handler.negotiate(call)?;
    let params = match params {
        None => Map::new(),
        Some(Value::Object(params)) => params,
        Some(_) => return Err(A2aError::invalid_params("params must be a JSON object")),
    };
    let request_tenant = params
        .get("tenant")
        .and_then(Value::as_str)
        .unwrap_or_default();
    call.tenant = resolve_tenant(None, request_tenant, &endpoint.tenant);
    let handler = &bindings.handler;
    match method {
        // `returnImmediately` is ignored on a stream (spec §2.1); only HTTP+JSON refuses it.
        Method::SendStreamingMessage => {
            let request: SendMessageRequest =
                decode(handler.lenient_message_id(Value::Object(params)))?;
            let events = handler.send_streaming_message(call, request).await?;
            Ok(Answer::Stream(events))
        }
        Method::SubscribeToTask => {
            let request: SubscribeToTaskRequest = decode_object(params)?;
            Ok(Answer::Stream(
                handler.subscribe_to_task(call, request).await?,
            ))
        }
        Method::SendMessage
        | Method::GetTask
        | Method::ListTasks
        | Method::CancelTask
        | Method::CreateTaskPushNotificationConfig
        | Method::GetTaskPushNotificationConfig
        | Method::ListTaskPushNotificationConfigs
        | Method::DeleteTaskPushNotificationConfig
        | Method::GetExtendedAgentCard => handler
            .dispatch(call, method, Value::Object(params))
            .await
            .map(Answer::Result),
    }
}

/// MethodNotFound, except for the v0.3 names: those are a 0.3 client talking to a server that
/// speaks only 1.x, which is VersionNotSupported.
fn unknown_method(name: &str, call: &CallContext) -> A2aError {
    match v0_3::to_v1_name(name) {
        Some(v1_name) => A2aError::new(
            ErrorKind::VersionNotSupported,
            format!(
                "{name} is an A2A 0.3 method; this server speaks A2A 1.x (method {v1_name} with A2A-Version: 1.0)"
            ),
        )
        .with_metadata("version", call.version.as_deref().unwrap_or("0.3")),
        None => A2aError::method_not_found(name),
    }
}
