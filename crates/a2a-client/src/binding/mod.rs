//! The three bindings: how each operation becomes a request (JSON-RPC envelope, REST verb,
//! path, query and body, or a gRPC call) and how answers and events become results or
//! errors; and which of a card's interfaces to use. [`v03`] speaks the two HTTP bindings to
//! A2A v0.3 agents.

mod answer;
mod call;
mod choice;
mod endpoint;
pub(crate) mod grpc;
mod jsonrpc;
mod kubemq;
mod rest;
mod v03;

use a2a_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTasksRequest, SendMessageRequest, SubscribeToTaskRequest, TaskPushNotificationConfig,
};
use bytes::Bytes;
use http::header::HeaderName;

pub(crate) use self::answer::{decode_value, error_from_answer};
pub(crate) use self::choice::pick_interface;
pub(crate) use self::grpc::Reply;

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
    Grpc,
}

/// Where and how the client talks: the binding, the interface URL, its tenant and the
/// protocol version. A gRPC interface's `host:port` is kept as an `http://` or `https://`
/// URL of that address.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub(crate) binding: Binding,
    pub(crate) url: url::Url,
    pub(crate) tenant: String,
    pub(crate) version: crate::ProtocolVersion,
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

/// An HTTP request for one call, before headers and credentials.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub(crate) method: http::Method,
    pub(crate) url: url::Url,
    pub(crate) body: Option<Bytes>,
    pub(crate) content_type: Option<&'static str>,
    pub(crate) accept: &'static str,
}
