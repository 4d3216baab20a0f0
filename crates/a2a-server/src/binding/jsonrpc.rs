//! The JSON-RPC 2.0 binding (spec §5.1): one POST endpoint, one request object per body, the
//! eleven methods by their v1.0 names. A name that is none of them but a v0.3 method, from a
//! caller that names no 1.x version, goes to the v0.3 edge (`v03`).

use std::borrow::Cow;

use a2a_types::jsonrpc::{JSONRPC_VERSION, JsonRpcRequest, Method, RequestId};
use a2a_types::{A2aError, ErrorKind, SubscribeToTaskRequest};
use axum::extract::Request;
use axum::response::Response;
use http::StatusCode;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::call::{self, resolve_tenant};
use super::dispatch::{Outcome, Params};
use super::state::Bindings;
use super::{Endpoint, body, media, response, sse, v03};
use crate::handler::{CallContext, EventStream};

/// What a method produced: the `result` member, or the events of a streaming method; or a
/// v0.3 method, answered by the v0.3 edge with the params it came with.
enum Answer<'a> {
    Result(Box<Outcome>),
    Stream(EventStream),
    V03(a2a_types::v03::Method, Option<Params<'a>>),
}

/// A request's id (`None` when it has none), method name and params.
type Parts<'a> = (Option<RequestId>, Cow<'a, str>, Option<Params<'a>>);

/// The envelope of a well-formed request, read without building a JSON tree: the members
/// borrowed from the body, the params left as text for the operation to decode once.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    /// Present (even as `null`) or not.
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
}

/// A member that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

impl<'a> Envelope<'a> {
    /// The parts of `body` when it is a well-formed request whose params (if any) are an
    /// object or `null`; `None` for anything else, which [`tree_envelope`] then reads and
    /// answers as before, so both readings refuse exactly the same requests.
    fn read(body: &'a [u8]) -> Option<Parts<'a>> {
        let envelope: Envelope<'a> = serde_json::from_slice(body).ok()?;
        if envelope.jsonrpc != JSONRPC_VERSION {
            return None;
        }
        let id = match envelope.id {
            None => None,
            Some(raw) => Some(RequestId::from_value(
                serde_json::from_str(raw.get()).ok()?,
            )?),
        };
        let params = match envelope.params {
            None => None,
            Some(raw) if raw.get() == "null" => None,
            Some(raw) if raw.get().starts_with('{') => Some(Params::Text(raw.get())),
            Some(_) => return None,
        };
        Some((id, envelope.method, params))
    }
}

/// The parts of a body read as a JSON tree, or the error that refuses it with the id to
/// answer it under.
fn tree_envelope(body: &[u8]) -> Result<Parts<'static>, (RequestId, A2aError)> {
    let Ok(document) = serde_json::from_slice::<Value>(body) else {
        return Err((RequestId::Null, A2aError::parse_error()));
    };
    // The id is echoed even when the envelope around it is invalid (JSON-RPC 2.0 §5).
    let id = RequestId::of_request(&document);
    match JsonRpcRequest::from_value(document) {
        Ok(request) => Ok((
            request.id,
            Cow::Owned(request.method),
            request.params.map(Params::Tree),
        )),
        Err(error) => {
            let error = A2aError::invalid_request(format!("Invalid request: {error}"));
            Err((id, error))
        }
    }
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
    let (id, method, params) = match Envelope::read(&bytes) {
        Some(envelope) => envelope,
        None => match tree_envelope(&bytes) {
            Ok(envelope) => envelope,
            Err((id, error)) => return response::jsonrpc_error(id, &error),
        },
    };
    // A2A defines no notifications: a request without an `id` is answered like any other,
    // its result or error under `id: null` (as the official SDKs answer, on 1.0 and 0.3
    // alike), so a client that forgot the id sees why its call failed instead of silence.
    let id = id.unwrap_or(RequestId::Null);
    let query = crate::percent::query_pairs(parts.uri.query().unwrap_or_default());
    let mut call = call::call_context(
        &parts.headers,
        &parts.extensions,
        &query,
        bindings.handler.credential_names(),
    );
    let outcome = match execute(bindings, endpoint, &method, params, &mut call).await {
        Ok(Answer::V03(method, params)) => {
            return v03::serve_jsonrpc(bindings, endpoint, id, method, params, call).await;
        }
        outcome => outcome,
    };
    let answer = match outcome {
        Ok(Answer::Result(result)) => response::jsonrpc_success(id, &*result),
        // Every frame of the stream is a response to this request, so each carries its id.
        Ok(Answer::Stream(events)) => {
            sse::response(events, sse::Framing::JsonRpc(id), bindings.sse_keepalive)
        }
        // Answered above.
        Ok(Answer::V03(..)) => return response::empty(StatusCode::INTERNAL_SERVER_ERROR),
        Err(error) => return response::jsonrpc_error(id, &error),
    };
    response::with_extensions(answer, &call.activated_extensions)
}

/// Runs the method. A streaming method answers with its events once the first one is known,
/// so an error before it is a plain JSON-RPC error response.
async fn execute<'a>(
    bindings: &Bindings,
    endpoint: &Endpoint,
    name: &str,
    params: Option<Params<'a>>,
    call: &mut CallContext,
) -> Result<Answer<'a>, A2aError> {
    let Some(method) = Method::from_name(name) else {
        // Only once the 1.0 lookup failed: a v0.3 method name, from a v0.3 caller.
        if let Some(legacy) = a2a_types::v03::Method::parse_or_alias(name)
            && v03::speaks_v03(&bindings.handler, call.version.as_deref())
        {
            crate::access::note_operation(legacy.as_str());
            crate::trace::note_binding("JSONRPC v0.3");
            return Ok(Answer::V03(legacy, params));
        }
        return Err(unknown_method(name, call));
    };
    crate::access::note_operation(method.as_str());
    crate::trace::note_binding("JSONRPC");
    // The version decides how params are read, so it is checked before them.
    bindings.handler.negotiate(call)?;
    let params = match params {
        None => Params::Tree(Value::Object(Map::new())),
        Some(Params::Tree(params @ Value::Object(_))) => Params::Tree(params),
        Some(Params::Tree(_)) => {
            return Err(A2aError::invalid_params("params must be a JSON object"));
        }
        Some(text @ Params::Text(_)) => text,
    };
    call.tenant = resolve_tenant(None, &params.tenant(), &endpoint.tenant);
    let handler = &bindings.handler;
    match method {
        // `returnImmediately` is ignored on a stream (spec §2.1); only HTTP+JSON refuses it.
        Method::SendStreamingMessage => {
            let request = params.decode_message(handler)?;
            let events = handler.send_streaming_message(call, request).await?;
            Ok(Answer::Stream(events))
        }
        Method::SubscribeToTask => {
            let request: SubscribeToTaskRequest = params.decode()?;
            let task_id = request.id.clone();
            let events = handler.subscribe_to_task(call, request).await?;
            crate::access::note_task(&task_id);
            Ok(Answer::Stream(events))
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
            .run_unary(call, method, params)
            .await
            .map(|outcome| Answer::Result(Box::new(outcome))),
    }
}

/// MethodNotFound, except for the v0.3 names: those are a 0.3 client talking to a server that
/// speaks only 1.x, which is VersionNotSupported.
fn unknown_method(name: &str, call: &CallContext) -> A2aError {
    let v1_name =
        a2a_types::v03::Method::parse_or_alias(name).map(|legacy| legacy.to_v1().as_str());
    match v1_name {
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
