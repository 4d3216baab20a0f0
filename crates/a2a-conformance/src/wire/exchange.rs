//! The values of the wire.
//!
//! What every binding's wire takes and gives: the operations, the options of a call, an
//! exchange (request and answer) and a stream as read, and an error answer decoded.

use std::time::Duration;

use serde_json::Value;

/// The eleven operations of A2A v1.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    SendMessage,
    SendStreamingMessage,
    GetTask,
    ListTasks,
    CancelTask,
    SubscribeToTask,
    CreatePushConfig,
    GetPushConfig,
    ListPushConfigs,
    DeletePushConfig,
    GetExtendedAgentCard,
}

impl Op {
    /// The JSON-RPC method name (the gRPC rpc name).
    pub(crate) fn method(self) -> &'static str {
        match self {
            Self::SendMessage => "SendMessage",
            Self::SendStreamingMessage => "SendStreamingMessage",
            Self::GetTask => "GetTask",
            Self::ListTasks => "ListTasks",
            Self::CancelTask => "CancelTask",
            Self::SubscribeToTask => "SubscribeToTask",
            Self::CreatePushConfig => "CreateTaskPushNotificationConfig",
            Self::GetPushConfig => "GetTaskPushNotificationConfig",
            Self::ListPushConfigs => "ListTaskPushNotificationConfigs",
            Self::DeletePushConfig => "DeleteTaskPushNotificationConfig",
            Self::GetExtendedAgentCard => "GetExtendedAgentCard",
        }
    }
}

/// How one call is made: the `A2A-Version` sent (none at all when `None`), the extensions
/// asked for, and how long to wait.
#[derive(Debug, Clone)]
pub(crate) struct CallOptions {
    pub(crate) version: Option<String>,
    pub(crate) extensions: Option<String>,
    pub(crate) timeout: Duration,
    /// A JSON-RPC body sent as it is instead of the envelope the binding builds; the
    /// HTTP bindings only.
    pub(crate) raw_body: Option<String>,
}

/// How the agent (or the network) refused a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ErrorCode {
    /// A JSON-RPC error object's `code`.
    JsonRpc(i64),
    /// An HTTP+JSON error status.
    Http(u16),
    /// A gRPC status.
    Grpc(tonic::Code),
    /// No A2A answer at all: the connection failed, or the answer was not one the binding
    /// defines.
    Broken(String),
    /// The request cannot be written on this binding (e.g. an invalid value protobuf cannot
    /// carry).
    Inexpressible(String),
}

/// An error answer, decoded.
#[derive(Debug, Clone)]
pub(crate) struct WireError {
    pub(crate) code: ErrorCode,
    /// The `google.rpc.ErrorInfo` reason, when one was sent.
    pub(crate) reason: Option<String>,
    /// Its domain.
    pub(crate) domain: Option<String>,
    /// True when some detail object lacks an `@type` (JSON bindings).
    pub(crate) untyped_details: bool,
}

impl WireError {
    pub(crate) fn broken(why: impl Into<String>) -> Self {
        Self {
            code: ErrorCode::Broken(why.into()),
            reason: None,
            domain: None,
            untyped_details: false,
        }
    }

    /// How the error reads in a report: `JSON-RPC error -32001 (TASK_NOT_FOUND)`.
    pub(crate) fn describe(&self) -> String {
        let code = match &self.code {
            ErrorCode::JsonRpc(code) => format!("JSON-RPC error {code}"),
            ErrorCode::Http(status) => format!("HTTP {status}"),
            ErrorCode::Grpc(code) => format!("gRPC {}", a2a_grpc::status::code_name(*code)),
            ErrorCode::Broken(why) => format!("no A2A answer: {why}"),
            ErrorCode::Inexpressible(why) => format!("not sent: {why}"),
        };
        match &self.reason {
            Some(reason) => format!("{code} (reason {reason})"),
            None => code,
        }
    }
}

/// One request and its answer, as the report shows them.
#[derive(Debug, Clone)]
pub(crate) struct Exchange {
    /// The request: verb and path or method, and body.
    pub(crate) sent: String,
    /// The answer as received (status line and body).
    pub(crate) received: String,
    /// The result (JSON-RPC `result`, HTTP+JSON body, gRPC message as ProtoJSON) or error.
    pub(crate) result: Result<Value, WireError>,
}

/// A stream as read: its events in order, how it ended.
#[derive(Debug, Clone, Default)]
pub(crate) struct StreamRecord {
    pub(crate) sent: String,
    /// The error answered instead of a stream.
    pub(crate) refused: Option<WireError>,
    /// The raw answer, for the report (the first frames).
    pub(crate) received: String,
    /// Each event's `StreamResponse`, in order.
    pub(crate) events: Vec<Value>,
    /// The SSE `id:` of each event that had one.
    pub(crate) event_ids: Vec<String>,
    /// The response's content type (HTTP bindings).
    pub(crate) content_type: Option<String>,
    /// True when the agent ended the stream; false when the reader gave up waiting.
    pub(crate) closed: bool,
    /// True when the stream stayed open past the grace period after a final event.
    pub(crate) open_after_final: bool,
    /// An error sent inside the stream.
    pub(crate) error_event: Option<WireError>,
    /// Frames that break the binding's framing (not JSON, JSON-RPC id mismatch, …).
    pub(crate) framing: Vec<String>,
}

impl StreamRecord {
    pub(crate) fn refused(sent: String, received: String, error: WireError) -> Self {
        Self {
            sent,
            received,
            refused: Some(error),
            ..Self::default()
        }
    }

    /// The request and answer as an [`Exchange`], for outcomes.
    pub(crate) fn exchange(&self) -> Exchange {
        Exchange {
            sent: self.sent.clone(),
            received: self.received.clone(),
            result: self.refused.clone().map_or(Ok(Value::Null), Err),
        }
    }
}

/// How long a stream may stay open after its final event before the reader calls it open
/// for good.
pub(crate) const FINAL_GRACE: Duration = Duration::from_secs(3);
