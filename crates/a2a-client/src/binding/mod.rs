//! The two HTTP bindings: how each operation becomes a request (JSON-RPC envelope, or REST
//! verb, path, query and body) and how answers and SSE events become results or errors.

mod jsonrpc;
mod rest;

use a2a_types::jsonrpc::Method;
use a2a_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTasksRequest, ProtocolBinding, SendMessageRequest, StreamResponse, SubscribeToTaskRequest,
    TaskPushNotificationConfig,
};
use bytes::Bytes;
use http::header::HeaderName;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ClientError;
use crate::sse::SseEvent;

/// `A2A-Version`: `1.0`, sent on every request.
pub(crate) const A2A_VERSION: HeaderName = HeaderName::from_static("a2a-version");
/// `A2A-Extensions`: the extensions asked for (spec §6).
pub(crate) const A2A_EXTENSIONS: HeaderName = HeaderName::from_static("a2a-extensions");
/// `Last-Event-ID`: where a re-subscription resumes.
pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// `application/json`: JSON-RPC bodies (spec §4.1).
pub(crate) const APPLICATION_JSON: &str = "application/json";
/// `application/a2a+json`: HTTP+JSON bodies (spec §4.1, v1.0.1).
pub(crate) const APPLICATION_A2A_JSON: &str = "application/a2a+json";
/// What REST calls accept.
const REST_ACCEPT: &str = "application/a2a+json, application/json";
/// What streaming calls accept.
pub(crate) const EVENT_STREAM: &str = "text/event-stream";

/// A binding this client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Binding {
    JsonRpc,
    HttpJson,
}

impl Binding {
    /// The binding for a card's binding name; `None` for gRPC and custom bindings.
    pub(crate) fn from_protocol(binding: &ProtocolBinding) -> Option<Self> {
        match binding {
            ProtocolBinding::JsonRpc => Some(Self::JsonRpc),
            ProtocolBinding::HttpJson => Some(Self::HttpJson),
            ProtocolBinding::Grpc | ProtocolBinding::Other(_) => None,
        }
    }

    pub(crate) fn protocol(self) -> ProtocolBinding {
        match self {
            Self::JsonRpc => ProtocolBinding::JsonRpc,
            Self::HttpJson => ProtocolBinding::HttpJson,
        }
    }
}

/// Where and how the client talks: the binding, the interface URL and its tenant.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub(crate) binding: Binding,
    pub(crate) url: url::Url,
    pub(crate) tenant: String,
}

/// One operation with its request.
#[derive(Debug, Clone)]
pub(crate) enum Call {
    SendMessage(SendMessageRequest),
    SendStreamingMessage(SendMessageRequest),
    GetTask(GetTaskRequest),
    ListTasks(ListTasksRequest),
    CancelTask(CancelTaskRequest),
    SubscribeToTask(SubscribeToTaskRequest),
    CreatePushConfig(TaskPushNotificationConfig),
    GetPushConfig(GetTaskPushNotificationConfigRequest),
    ListPushConfigs(ListTaskPushNotificationConfigsRequest),
    DeletePushConfig(DeleteTaskPushNotificationConfigRequest),
    GetExtendedAgentCard(GetExtendedAgentCardRequest),
}

impl Call {
    pub(crate) fn method(&self) -> Method {
        match self {
            Self::SendMessage(_) => Method::SendMessage,
            Self::SendStreamingMessage(_) => Method::SendStreamingMessage,
            Self::GetTask(_) => Method::GetTask,
            Self::ListTasks(_) => Method::ListTasks,
            Self::CancelTask(_) => Method::CancelTask,
            Self::SubscribeToTask(_) => Method::SubscribeToTask,
            Self::CreatePushConfig(_) => Method::CreateTaskPushNotificationConfig,
            Self::GetPushConfig(_) => Method::GetTaskPushNotificationConfig,
            Self::ListPushConfigs(_) => Method::ListTaskPushNotificationConfigs,
            Self::DeletePushConfig(_) => Method::DeleteTaskPushNotificationConfig,
            Self::GetExtendedAgentCard(_) => Method::GetExtendedAgentCard,
        }
    }

    /// Whether repeating the call cannot change the outcome (retries are safe).
    pub(crate) fn is_idempotent(&self) -> bool {
        match self.method() {
            Method::GetTask
            | Method::ListTasks
            | Method::GetTaskPushNotificationConfig
            | Method::ListTaskPushNotificationConfigs
            | Method::DeleteTaskPushNotificationConfig
            | Method::GetExtendedAgentCard => true,
            Method::SendMessage
            | Method::SendStreamingMessage
            | Method::CancelTask
            | Method::SubscribeToTask
            | Method::CreateTaskPushNotificationConfig => false,
        }
    }

    /// The request as ProtoJSON, with the endpoint's tenant when the request names none.
    fn params(&self, tenant: &str) -> Result<Value, ClientError> {
        let value = match self {
            Self::SendMessage(request) | Self::SendStreamingMessage(request) => {
                serde_json::to_value(request)
            }
            Self::GetTask(request) => serde_json::to_value(request),
            Self::ListTasks(request) => serde_json::to_value(request),
            Self::CancelTask(request) => serde_json::to_value(request),
            Self::SubscribeToTask(request) => serde_json::to_value(request),
            Self::CreatePushConfig(request) => serde_json::to_value(request),
            Self::GetPushConfig(request) => serde_json::to_value(request),
            Self::ListPushConfigs(request) => serde_json::to_value(request),
            Self::DeletePushConfig(request) => serde_json::to_value(request),
            Self::GetExtendedAgentCard(request) => serde_json::to_value(request),
        };
        let mut value = value.map_err(|error| {
            ClientError::config(format!(
                "the {} request cannot be encoded: {error}",
                self.method()
            ))
        })?;
        if let Value::Object(object) = &mut value {
            let unset = object
                .get("tenant")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty);
            if unset && !tenant.is_empty() {
                object.insert("tenant".into(), Value::String(tenant.to_owned()));
            }
        }
        Ok(value)
    }
}

/// An HTTP request for one call, before headers and credentials.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub(crate) method: http::Method,
    pub(crate) url: url::Url,
    pub(crate) body: Option<Bytes>,
    pub(crate) content_type: Option<&'static str>,
    pub(crate) accept: &'static str,
}

impl Endpoint {
    /// The HTTP request of `call` on this endpoint.
    pub(crate) fn prepare(&self, call: &Call, request_id: u64) -> Result<Prepared, ClientError> {
        let params = call.params(&self.tenant)?;
        let streaming = call.method().is_streaming();
        match self.binding {
            Binding::JsonRpc => {
                jsonrpc::prepare(&self.url, call.method(), params, request_id, streaming)
            }
            Binding::HttpJson => rest::prepare(&self.url, call, params, streaming),
        }
    }

    /// Decodes a successful (2xx) non-streaming answer.
    pub(crate) fn decode<T: DeserializeOwned>(
        &self,
        method: Method,
        body: &[u8],
    ) -> Result<T, ClientError> {
        match self.binding {
            Binding::JsonRpc => jsonrpc::decode(method, body),
            Binding::HttpJson => rest::decode(method, body),
        }
    }

    /// Decodes one SSE event of a stream.
    pub(crate) fn decode_event(&self, event: &SseEvent) -> Result<StreamResponse, ClientError> {
        match self.binding {
            Binding::JsonRpc => jsonrpc::decode_event(event),
            Binding::HttpJson => rest::decode_event(event),
        }
    }
}

/// The error of a non-2xx answer: an A2A error when the body is one of the A2A error formats
/// (JSON-RPC error, `google.rpc.Status`, RFC 9457 problem, legacy `{"error","message"}`),
/// else a plain HTTP error. A 3xx is an error too: redirects are never followed.
pub(crate) fn error_from_answer(status: u16, location: Option<&str>, body: &[u8]) -> ClientError {
    if (300..400).contains(&status) {
        return ClientError::Redirect {
            status,
            location: location.map(strip_query),
        };
    }
    if is_error_body(body) {
        ClientError::Agent(a2a_types::A2aError::from_http_body(status, body))
    } else {
        ClientError::http(status, body)
    }
}

/// Whether `body` is JSON in one of the A2A error formats.
fn is_error_body(body: &[u8]) -> bool {
    let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    let has = |member: &str| object.contains_key(member);
    let problem =
        (has("type") || has("title")) && (has("status") || has("detail") || has("details"));
    has("error") || has("jsonrpc") || problem
}

fn strip_query(location: &str) -> String {
    location
        .split(['?', '#'])
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Decodes `value` as `T`, naming `what` on failure.
pub(crate) fn decode_value<T: DeserializeOwned>(
    what: &str,
    value: Value,
) -> Result<T, ClientError> {
    a2a_types::json::from_value(value).map_err(|error| ClientError::decode(what, error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_are_recognised_in_every_format() {
        let status = br#"{"error":{"code":404,"status":"NOT_FOUND","message":"no","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
        let problem = br#"{"type":"https://a2a-protocol.org/errors/task-not-cancelable","title":"x","status":409}"#;
        let legacy = br#"{"error":"TaskNotFoundError","message":"gone"}"#;
        for (body, kind) in [
            (&status[..], a2a_types::ErrorKind::TaskNotFound),
            (&problem[..], a2a_types::ErrorKind::TaskNotCancelable),
            (&legacy[..], a2a_types::ErrorKind::TaskNotFound),
        ] {
            let error = error_from_answer(404, None, body);
            assert_eq!(
                error.kind(),
                Some(kind),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        assert!(matches!(
            error_from_answer(502, None, b"Bad Gateway"),
            ClientError::Http { status: 502, .. }
        ));
        assert!(matches!(
            error_from_answer(404, None, br#"{"detail":"Not Found"}"#),
            ClientError::Http { status: 404, .. }
        ));
        assert!(matches!(
            error_from_answer(302, Some("https://x/y?token=1"), b""),
            ClientError::Redirect { status: 302, location: Some(location) } if location == "https://x/y"
        ));
    }
}
