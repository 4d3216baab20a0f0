//! Binding bodies of an [`A2aError`]: the JSON-RPC error object and the HTTP+JSON
//! `google.rpc.Status` envelope (AIP-193), their parsers, and [`A2aError::from_http_body`],
//! which recognises every REST error format a client may meet.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::details::ParsedDetails;
use super::problem::MAX_ECHOED_BODY_CHARS;
use super::{A2aError, ErrorKind, LegacyErrorBody, ProblemDetails, RestStatusProfile};

/// The `error` member of a JSON-RPC response. Build one from an [`A2aError`] with
/// [`A2aError::to_jsonrpc_error`]; read one back with [`A2aError::from_jsonrpc_error`].
///
/// It sits here, beside the other error bodies, so that the error catalogue needs nothing
/// from the JSON-RPC envelope; the `jsonrpc` module re-exports it under its old path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcError {
    /// The error code (see [`ErrorKind::jsonrpc_code`]).
    pub code: i32,
    /// The caller-safe message.
    #[serde(default)]
    pub message: String,
    /// In v1.0 an array of `@type` detail objects; free-form in v0.3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// The HTTP+JSON error body: `{"error": {"code", "status", "message", "details"}}`.
///
/// Members other than `error` (some servers add RFC 9457 `type`/`title`/`status` alongside it,
/// as older spec examples do) are kept in `extra` so the body round-trips.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcStatusBody {
    /// The `google.rpc.Status` itself.
    pub error: RpcStatus,
    /// Other top-level members, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `google.rpc.Status` as the HTTP+JSON binding spells it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcStatus {
    /// The HTTP status number (not the numeric gRPC code); `0` when absent.
    #[serde(default)]
    pub code: u16,
    /// The canonical gRPC status name, e.g. `NOT_FOUND`.
    #[serde(default)]
    pub status: String,
    /// The caller-safe message.
    #[serde(default)]
    pub message: String,
    /// `Any` details, each with an `@type`; unknown types are kept as raw JSON.
    #[serde(default)]
    pub details: Vec<Value>,
    /// Other members, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl RpcStatusBody {
    /// The body as a JSON value. Built by hand because it cannot fail, unlike
    /// `serde_json::to_value`; the result is what `Serialize` produces.
    pub fn to_value(&self) -> Value {
        let mut status = Map::new();
        status.insert("code".into(), self.error.code.into());
        status.insert("status".into(), self.error.status.clone().into());
        status.insert("message".into(), self.error.message.clone().into());
        status.insert("details".into(), Value::Array(self.error.details.clone()));
        status.extend(self.error.extra.clone());
        let mut body = Map::new();
        body.insert("error".into(), Value::Object(status));
        body.extend(self.extra.clone());
        Value::Object(body)
    }
}

impl A2aError {
    /// The JSON-RPC error object: the kind's code, the message, and `data` = `[ErrorInfo]`
    /// plus a `BadRequest` when there are field violations. ErrorInfo is always present, for
    /// generic errors too (spec 1.0.0 requires it, 1.0.1 only recommends it).
    pub fn to_jsonrpc_error(&self) -> JsonRpcError {
        JsonRpcError {
            code: self.kind().jsonrpc_code(),
            message: self.message().to_owned(),
            data: Some(Value::Array(self.details_json())),
        }
    }

    /// Recovers an error from a JSON-RPC error object.
    ///
    /// The kind comes from the code, refined by the `ErrorInfo` reason where the code is
    /// shared (see [`ErrorKind::from_jsonrpc_code`]); an unknown code falls back to the
    /// reason, then to `Internal`. `data` may be the v1.0 array of typed details, a single
    /// typed object, or v0.3 free-form data, which is ignored. The reason is only read when
    /// the `ErrorInfo` domain is `a2a-protocol.org` or absent; the domain and metadata are
    /// kept either way, so a gateway's own errors (under its own domain) can be told apart by
    /// [`domain`](Self::domain).
    pub fn from_jsonrpc_error(error: &JsonRpcError) -> Self {
        let details = match &error.data {
            Some(Value::Array(items)) => ParsedDetails::from_values(items.iter()),
            Some(single) => ParsedDetails::from_values([single]),
            None => ParsedDetails::default(),
        };
        let reason = details.a2a_reason();
        let kind = ErrorKind::from_jsonrpc_code(error.code, reason)
            .or_else(|| reason.and_then(ErrorKind::from_reason))
            .unwrap_or(ErrorKind::Internal);
        Self::from_parts(kind, &error.message, details.info, details.violations)
            .with_peer_code(error.code)
    }

    /// The typed `google.rpc.Status` body for the HTTP+JSON binding under `profile`.
    pub fn to_rpc_status(&self, profile: RestStatusProfile) -> RpcStatusBody {
        RpcStatusBody {
            error: RpcStatus {
                code: self.kind().http_status(profile),
                status: self.kind().grpc_status().to_owned(),
                message: self.message().to_owned(),
                details: self.details_json(),
                extra: Map::new(),
            },
            extra: Map::new(),
        }
    }

    /// The `google.rpc.Status` body (the default error body, spec §11.6) as JSON:
    /// `{"error":{"code":<http>,"status":<gRPC name>,"message","details":[ErrorInfo, BadRequest?]}}`.
    pub fn to_status_body(&self, profile: RestStatusProfile) -> Value {
        self.to_rpc_status(profile).to_value()
    }

    /// Recovers an error from a `google.rpc.Status` body: by `ErrorInfo` reason (A2A domain
    /// or none), then by HTTP `code` and gRPC `status` (which also classifies v1.0.0 peers'
    /// 409/415/502/`UNIMPLEMENTED`), then `Internal`.
    pub fn from_status_body(body: &RpcStatusBody) -> Self {
        let (kind, details) = status_body_kind(body);
        let kind = kind.unwrap_or(ErrorKind::Internal);
        Self::from_parts(kind, &body.error.message, details.info, details.violations)
    }

    /// Recovers an error from any HTTP error response a peer may send, given its status and
    /// raw body. Tries, in order: a `google.rpc.Status` body, a JSON-RPC response (a JSON-RPC
    /// endpoint answering 401 or 500), the legacy `{"error":"…","message":"…"}` body, and an
    /// RFC 9457 problem. When none applies, or the body names no kind, the HTTP status
    /// decides ([`ErrorKind::from_http_status`], else `Internal`).
    ///
    /// An unrecognised body becomes the message `HTTP <status>`, followed by the body text
    /// only when that is a short single line of plain text (a proxy's `Bad Gateway`); JSON,
    /// HTML, binary and long bodies are never echoed.
    pub fn from_http_body(status: u16, body: &[u8]) -> Self {
        let fallback = ErrorKind::from_http_status(status).unwrap_or(ErrorKind::Internal);
        match serde_json::from_slice::<Value>(body) {
            Ok(value) => from_json_body(&value, status, fallback)
                .unwrap_or_else(|| Self::new(fallback, format!("HTTP {status}"))),
            Err(_) => Self::new(fallback, plain_text_message(status, body)),
        }
    }
}

fn status_body_kind(body: &RpcStatusBody) -> (Option<ErrorKind>, ParsedDetails) {
    let details = ParsedDetails::from_values(&body.error.details);
    let kind = details
        .a2a_reason()
        .and_then(ErrorKind::from_reason)
        .or_else(|| ErrorKind::from_statuses(body.error.code, &body.error.status));
    (kind, details)
}

/// Recognises the error format of a JSON body; `None` when it is none of them.
fn from_json_body(value: &Value, status: u16, fallback: ErrorKind) -> Option<A2aError> {
    value.as_object()?;
    let error_member = value.get("error");
    if value.get("jsonrpc").is_some() {
        let error = JsonRpcError::deserialize(error_member?).ok()?;
        return Some(A2aError::from_jsonrpc_error(&error));
    }
    match error_member {
        Some(Value::Object(_)) => {
            let body = RpcStatusBody::deserialize(value).ok()?;
            let (kind, details) = status_body_kind(&body);
            let kind = kind.unwrap_or(fallback);
            Some(A2aError::from_parts(
                kind,
                &body.error.message,
                details.info,
                details.violations,
            ))
        }
        Some(Value::String(_)) => {
            let body = LegacyErrorBody::deserialize(value).ok()?;
            Some(A2aError::from_legacy(&body, status))
        }
        _ => {
            let is_problem = ["type", "title", "status", "detail", "details"]
                .iter()
                .any(|member| value.get(member).is_some());
            if !is_problem {
                return None;
            }
            let problem = ProblemDetails::deserialize(value).ok()?;
            Some(problem.recover(fallback))
        }
    }
}

fn plain_text_message(status: u16, body: &[u8]) -> String {
    let text = std::str::from_utf8(body).map(str::trim).unwrap_or_default();
    let echo = !text.is_empty()
        && text.chars().count() <= MAX_ECHOED_BODY_CHARS
        && !text.starts_with('<')
        && !text.chars().any(char::is_control);
    if echo {
        format!("HTTP {status}: {text}")
    } else {
        format!("HTTP {status}")
    }
}
