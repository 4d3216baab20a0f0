//! [`A2aError`]: an error as the wire carries it — kind, caller-safe message, `ErrorInfo`
//! metadata and domain, `BadRequest` field violations — and its constructors.

use std::collections::BTreeMap;

use super::details::A2A_DOMAIN;
use super::{BadRequest, ErrorInfo, ErrorKind, FieldViolation};

/// An error an A2A peer reports, independent of the binding that carries it.
///
/// The message is shown to callers, so it must never contain internals (stack traces, hosts,
/// SQL, account names). Build one with a per-kind constructor, turn it into
/// a binding body with [`to_jsonrpc_error`](Self::to_jsonrpc_error),
/// [`to_status_body`](Self::to_status_body) or [`to_problem`](Self::to_problem), and recover it
/// with the matching `from_*` parser or [`from_http_body`](Self::from_http_body).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct A2aError {
    kind: ErrorKind,
    message: String,
    metadata: BTreeMap<String, String>,
    field_violations: Vec<FieldViolation>,
    /// Where the error is defined, when not in the A2A catalogue (a gateway's own errors);
    /// boxed, as it is rare, so every `Result<_, A2aError>` stays small.
    origin: Option<Box<Origin>>,
}

/// The `ErrorInfo` domain of an error from outside the A2A catalogue, and the reason its
/// author gave, which the kind cannot name (a gateway's `AGENT_NOT_FOUND`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    domain: String,
    reason: Option<String>,
    /// The JSON-RPC code it came with, when it came over JSON-RPC.
    code: Option<i32>,
}

impl A2aError {
    /// An error of `kind` with a caller-safe `message`; an empty message is replaced by the
    /// kind's [`default_message`](ErrorKind::default_message).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        let message = message.into();
        let message = if message.trim().is_empty() {
            kind.default_message().to_owned()
        } else {
            message
        };
        Self {
            kind,
            message,
            metadata: BTreeMap::new(),
            field_violations: Vec::new(),
            origin: None,
        }
    }

    /// The task does not exist or is not visible to the caller; `taskId` goes in metadata.
    pub fn task_not_found(task_id: &str) -> Self {
        Self::from(ErrorKind::TaskNotFound).with_metadata("taskId", task_id)
    }

    /// The task is terminal or otherwise cannot be canceled; `taskId` goes in metadata.
    pub fn task_not_cancelable(task_id: &str) -> Self {
        Self::from(ErrorKind::TaskNotCancelable).with_metadata("taskId", task_id)
    }

    /// A push-notification operation while `capabilities.pushNotifications` is off.
    pub fn push_notification_not_supported() -> Self {
        Self::from(ErrorKind::PushNotificationNotSupported)
    }

    /// An operation or feature this agent does not offer; `message` says which.
    pub fn unsupported_operation(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::UnsupportedOperation, message)
    }

    /// A part's media type is not supported; `mediaType` goes in metadata.
    pub fn content_type_not_supported(media_type: &str) -> Self {
        Self::from(ErrorKind::ContentTypeNotSupported).with_metadata("mediaType", media_type)
    }

    /// The agent produced a response that violates the spec; `message` says how.
    pub fn invalid_agent_response(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidAgentResponse, message)
    }

    /// The extended agent card is declared but none is configured.
    pub fn extended_agent_card_not_configured() -> Self {
        Self::from(ErrorKind::ExtendedAgentCardNotConfigured)
    }

    /// A required extension was not activated; its URI goes in metadata as `extension`.
    pub fn extension_support_required(extension_uri: &str) -> Self {
        Self::from(ErrorKind::ExtensionSupportRequired).with_metadata("extension", extension_uri)
    }

    /// The requested protocol version is not served; it goes in metadata as `version`.
    pub fn version_not_supported(requested: &str) -> Self {
        Self::from(ErrorKind::VersionNotSupported).with_metadata("version", requested)
    }

    /// The body is not valid JSON (`-32700`).
    pub fn parse_error() -> Self {
        Self::from(ErrorKind::ParseError)
    }

    /// Valid JSON, but not an acceptable request; `message` says why.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidRequest, message)
    }

    /// Unknown method or route; the name goes in metadata as `method`.
    pub fn method_not_found(method: &str) -> Self {
        Self::from(ErrorKind::MethodNotFound).with_metadata("method", method)
    }

    /// Request validation failed; `message` says what was wrong.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidParams, message)
    }

    /// Validation of one field failed: an `InvalidParams` error whose message names the field
    /// and which carries a [`FieldViolation`]. Add more with
    /// [`with_field_violation`](Self::with_field_violation).
    pub fn invalid_field(field: impl Into<String>, description: impl Into<String>) -> Self {
        let violation = FieldViolation::new(field, description);
        let message = format!(
            "Invalid parameter {}: {}",
            violation.field, violation.description
        );
        let mut error = Self::new(ErrorKind::InvalidParams, message);
        error.field_violations.push(violation);
        error
    }

    /// An internal failure, with the generic message only. Log the cause where it happened.
    pub fn internal() -> Self {
        Self::from(ErrorKind::Internal)
    }

    /// Credentials are missing or invalid.
    pub fn authentication_required() -> Self {
        Self::from(ErrorKind::Authentication)
    }

    /// The caller is authenticated but not allowed to do this.
    pub fn authorization_failed() -> Self {
        Self::from(ErrorKind::Authorization)
    }

    /// The server is at capacity; the caller should retry later.
    pub fn server_busy() -> Self {
        Self::from(ErrorKind::ServerBusy)
    }

    /// The request body exceeds `limit_bytes`; the limit goes in metadata as `limitBytes`.
    pub fn payload_too_large(limit_bytes: u64) -> Self {
        Self::from(ErrorKind::PayloadTooLarge).with_metadata("limitBytes", limit_bytes.to_string())
    }

    /// The service is temporarily unavailable.
    pub fn unavailable() -> Self {
        Self::from(ErrorKind::Unavailable)
    }

    /// Adds (or replaces) one `ErrorInfo` metadata entry.
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }

    /// Adds one `BadRequest` field violation.
    #[must_use]
    pub fn with_field_violation(
        mut self,
        field: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.field_violations
            .push(FieldViolation::new(field, description));
        self
    }

    /// Sets the `ErrorInfo` domain, for errors defined by someone other than the A2A spec
    /// (such as a gateway's own errors).
    #[must_use]
    pub fn with_domain(mut self, domain: impl Into<String>) -> Self {
        let domain = domain.into();
        self.origin = (domain != A2A_DOMAIN).then(|| {
            Box::new(Origin {
                domain,
                reason: None,
                code: None,
            })
        });
        self
    }

    /// Which error this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The caller-safe message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `ErrorInfo` reason, derived from the kind.
    pub fn reason(&self) -> &'static str {
        self.kind.reason()
    }

    /// The `ErrorInfo` reason as the peer sent it: for an error of another domain (a
    /// gateway's own), its reason, which the A2A catalogue does not know; otherwise
    /// [`reason`](Self::reason).
    pub fn peer_reason(&self) -> &str {
        self.origin
            .as_ref()
            .and_then(|origin| origin.reason.as_deref())
            .unwrap_or_else(|| self.kind.reason())
    }

    /// The `ErrorInfo` metadata.
    pub fn metadata(&self) -> &BTreeMap<String, String> {
        &self.metadata
    }

    /// The `BadRequest` field violations.
    pub fn field_violations(&self) -> &[FieldViolation] {
        &self.field_violations
    }

    /// The JSON-RPC code of an error of another domain as its author sent it, when it came
    /// over JSON-RPC (a gateway's -32002 "agent not found", which the A2A catalogue would read
    /// as TaskNotCancelable); `None` otherwise.
    pub fn peer_code(&self) -> Option<i32> {
        self.origin.as_ref().and_then(|origin| origin.code)
    }

    /// Remembers the JSON-RPC code an error of another domain came with.
    pub(super) fn with_peer_code(mut self, code: i32) -> Self {
        if let Some(origin) = self.origin.as_mut() {
            origin.code = Some(code);
        }
        self
    }

    /// The `ErrorInfo` domain; [`A2A_DOMAIN`] unless set otherwise.
    pub fn domain(&self) -> &str {
        self.origin
            .as_ref()
            .map_or(A2A_DOMAIN, |origin| origin.domain.as_str())
    }

    /// The `ErrorInfo` detail every binding carries for this error.
    pub fn error_info(&self) -> ErrorInfo {
        ErrorInfo {
            reason: self.peer_reason().to_owned(),
            domain: self.domain().to_owned(),
            metadata: self.metadata.clone(),
        }
    }

    /// The `BadRequest` detail, when there are field violations.
    pub fn bad_request(&self) -> Option<BadRequest> {
        (!self.field_violations.is_empty()).then(|| BadRequest {
            field_violations: self.field_violations.clone(),
        })
    }

    /// Puts recovered parts back together; the parsers' single exit.
    pub(super) fn from_parts(
        kind: ErrorKind,
        message: &str,
        info: Option<ErrorInfo>,
        field_violations: Vec<FieldViolation>,
    ) -> Self {
        let mut error = Self::new(kind, message);
        if let Some(info) = info {
            if !info.is_a2a_domain() {
                let reason = Some(info.reason).filter(|reason| !reason.is_empty());
                error.origin = Some(Box::new(Origin {
                    domain: info.domain,
                    reason,
                    code: None,
                }));
            }
            error.metadata = info.metadata;
        }
        error.field_violations = field_violations;
        error
    }

    /// The `ErrorInfo` + `BadRequest` details in `Any` JSON form, in that order.
    pub(super) fn details_json(&self) -> Vec<serde_json::Value> {
        let mut details = vec![self.error_info().to_any()];
        details.extend(self.bad_request().map(|bad_request| bad_request.to_any()));
        details
    }
}

impl From<ErrorKind> for A2aError {
    /// An error of `kind` with its default message.
    fn from(kind: ErrorKind) -> Self {
        Self::new(kind, kind.default_message())
    }
}
