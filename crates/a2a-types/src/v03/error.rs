//! v0.3 JSON-RPC errors: the [`ErrorCode`]s v0.3 defines, the error object
//! ([`JsonRpcError`]) and the mapping from and to [`A2aError`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{A2A_DOMAIN, ErrorInfo};
use crate::{A2aError, ErrorKind};

/// The JSON-RPC error codes of A2A v0.3: the JSON-RPC 2.0 standard ones, the seven
/// A2A errors, and the implementation-defined server error `-32000`.
///
/// Not `#[non_exhaustive]`: the v0.3 set is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `-32700` `JSONParseError`.
    ParseError,
    /// `-32600` `InvalidRequestError`.
    InvalidRequest,
    /// `-32601` `MethodNotFoundError`.
    MethodNotFound,
    /// `-32602` `InvalidParamsError`.
    InvalidParams,
    /// `-32603` `InternalError`.
    Internal,
    /// `-32000`: a server-defined error (v0.3 names none; we use it for authentication,
    /// authorization, busy, too large and unavailable, told apart by `data`).
    ServerError,
    /// `-32001` `TaskNotFoundError`.
    TaskNotFound,
    /// `-32002` `TaskNotCancelableError`.
    TaskNotCancelable,
    /// `-32003` `PushNotificationNotSupportedError`.
    PushNotificationNotSupported,
    /// `-32004` `UnsupportedOperationError`.
    UnsupportedOperation,
    /// `-32005` `ContentTypeNotSupportedError`.
    ContentTypeNotSupported,
    /// `-32006` `InvalidAgentResponseError`.
    InvalidAgentResponse,
    /// `-32007` `AuthenticatedExtendedCardNotConfiguredError`.
    AuthenticatedExtendedCardNotConfigured,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 13] = [
        Self::ParseError,
        Self::InvalidRequest,
        Self::MethodNotFound,
        Self::InvalidParams,
        Self::Internal,
        Self::ServerError,
        Self::TaskNotFound,
        Self::TaskNotCancelable,
        Self::PushNotificationNotSupported,
        Self::UnsupportedOperation,
        Self::ContentTypeNotSupported,
        Self::InvalidAgentResponse,
        Self::AuthenticatedExtendedCardNotConfigured,
    ];

    /// The numeric code.
    #[must_use]
    pub const fn code(self) -> i32 {
        match self {
            Self::ParseError => -32700,
            Self::InvalidRequest => -32600,
            Self::MethodNotFound => -32601,
            Self::InvalidParams => -32602,
            Self::Internal => -32603,
            Self::ServerError => -32000,
            Self::TaskNotFound => -32001,
            Self::TaskNotCancelable => -32002,
            Self::PushNotificationNotSupported => -32003,
            Self::UnsupportedOperation => -32004,
            Self::ContentTypeNotSupported => -32005,
            Self::InvalidAgentResponse => -32006,
            Self::AuthenticatedExtendedCardNotConfigured => -32007,
        }
    }

    /// The code for a number, when v0.3 defines it.
    #[must_use]
    pub fn from_code(code: i32) -> Option<Self> {
        Self::ALL.into_iter().find(|known| known.code() == code)
    }

    /// The message v0.3 gives this error by default.
    #[must_use]
    pub const fn default_message(self) -> &'static str {
        match self {
            Self::ParseError => "Invalid JSON payload",
            Self::InvalidRequest => "Request payload validation error",
            Self::MethodNotFound => "Method not found",
            Self::InvalidParams => "Invalid parameters",
            Self::Internal => "Internal error",
            Self::ServerError => "Server error",
            Self::TaskNotFound => "Task not found",
            Self::TaskNotCancelable => "Task cannot be canceled",
            Self::PushNotificationNotSupported => "Push Notification is not supported",
            Self::UnsupportedOperation => "This operation is not supported",
            Self::ContentTypeNotSupported => "Incompatible content types",
            Self::InvalidAgentResponse => "Invalid agent response",
            Self::AuthenticatedExtendedCardNotConfigured => {
                "Authenticated Extended Card is not configured"
            }
        }
    }

    /// The nearest v0.3 code for a v1.0 error kind.
    ///
    /// The seven A2A errors v0.3 knows keep their codes (`ExtendedAgentCardNotConfigured`
    /// is v0.3's `AuthenticatedExtendedCardNotConfigured`, -32007), and so do the JSON-RPC
    /// standard errors and the server-defined ones (-32000). The two errors v1.0 added
    /// become the v0.3 error a v0.3 client can act on:
    /// `ExtensionSupportRequired` (-32008) → `InvalidRequest` (-32600: the request lacks a
    /// required extension), `VersionNotSupported` (-32009) → `UnsupportedOperation`
    /// (-32004: this version of the operation is not offered). `data` keeps the v1.0
    /// `ErrorInfo`, whose reason gives the original kind back ([`JsonRpcError::to_a2a`]).
    #[must_use]
    pub const fn from_kind(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::TaskNotFound => Self::TaskNotFound,
            ErrorKind::TaskNotCancelable => Self::TaskNotCancelable,
            ErrorKind::PushNotificationNotSupported => Self::PushNotificationNotSupported,
            ErrorKind::UnsupportedOperation => Self::UnsupportedOperation,
            ErrorKind::ContentTypeNotSupported => Self::ContentTypeNotSupported,
            ErrorKind::InvalidAgentResponse => Self::InvalidAgentResponse,
            ErrorKind::ExtendedAgentCardNotConfigured => {
                Self::AuthenticatedExtendedCardNotConfigured
            }
            ErrorKind::ExtensionSupportRequired => Self::InvalidRequest,
            ErrorKind::VersionNotSupported => Self::UnsupportedOperation,
            ErrorKind::ParseError => Self::ParseError,
            ErrorKind::InvalidRequest => Self::InvalidRequest,
            ErrorKind::MethodNotFound => Self::MethodNotFound,
            ErrorKind::InvalidParams => Self::InvalidParams,
            ErrorKind::Internal => Self::Internal,
            ErrorKind::Authentication
            | ErrorKind::Authorization
            | ErrorKind::ServerBusy
            | ErrorKind::PayloadTooLarge
            | ErrorKind::Unavailable => Self::ServerError,
        }
    }

    /// The v1.0 kind a v0.3 code stands for when nothing refines it; `None` for
    /// `ServerError`, which only `data` can explain.
    #[must_use]
    pub const fn kind(self) -> Option<ErrorKind> {
        Some(match self {
            Self::ParseError => ErrorKind::ParseError,
            Self::InvalidRequest => ErrorKind::InvalidRequest,
            Self::MethodNotFound => ErrorKind::MethodNotFound,
            Self::InvalidParams => ErrorKind::InvalidParams,
            Self::Internal => ErrorKind::Internal,
            Self::ServerError => return None,
            Self::TaskNotFound => ErrorKind::TaskNotFound,
            Self::TaskNotCancelable => ErrorKind::TaskNotCancelable,
            Self::PushNotificationNotSupported => ErrorKind::PushNotificationNotSupported,
            Self::UnsupportedOperation => ErrorKind::UnsupportedOperation,
            Self::ContentTypeNotSupported => ErrorKind::ContentTypeNotSupported,
            Self::InvalidAgentResponse => ErrorKind::InvalidAgentResponse,
            Self::AuthenticatedExtendedCardNotConfigured => {
                ErrorKind::ExtendedAgentCardNotConfigured
            }
        })
    }
}

/// The `error` member of a v0.3 JSON-RPC response: `code`, `message`, and free-form `data`.
///
/// Built from an [`A2aError`] (`From`), `data` is the v1.0 detail array (`ErrorInfo`, and a
/// `BadRequest` when fields were at fault): v0.3 leaves `data` free, and it lets a reader
/// tell apart the kinds that share a v0.3 code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcError {
    /// The error code.
    pub code: i32,
    /// The message.
    #[serde(default)]
    pub message: String,
    /// Anything the server adds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl From<&A2aError> for JsonRpcError {
    /// The code is [`ErrorCode::from_kind`], except for an error of another domain (a
    /// gateway's own) that came with a JSON-RPC code: that code is kept.
    fn from(error: &A2aError) -> Self {
        let v1 = error.to_jsonrpc_error();
        let foreign_code = (error.domain() != A2A_DOMAIN)
            .then(|| error.peer_code())
            .flatten();
        Self {
            code: foreign_code.unwrap_or(ErrorCode::from_kind(error.kind()).code()),
            message: v1.message,
            data: v1.data,
        }
    }
}

impl From<A2aError> for JsonRpcError {
    fn from(error: A2aError) -> Self {
        Self::from(&error)
    }
}

impl From<&JsonRpcError> for A2aError {
    fn from(error: &JsonRpcError) -> Self {
        error.to_a2a()
    }
}

impl From<JsonRpcError> for A2aError {
    fn from(error: JsonRpcError) -> Self {
        error.to_a2a()
    }
}

impl JsonRpcError {
    /// The v0.3 error object for `code` with its default message and no data.
    #[must_use]
    pub fn new(code: ErrorCode) -> Self {
        Self {
            code: code.code(),
            message: code.default_message().to_owned(),
            data: None,
        }
    }

    /// The error as v1.0 sees it.
    ///
    /// The kind is the one an A2A `ErrorInfo` in `data` names, when that kind maps to this
    /// very code (so errors written by [`From<&A2aError>`] come back whole, -32008 and
    /// -32009 included); otherwise the code decides ([`ErrorCode::kind`]), `-32000` by its
    /// reason, and an unknown code by its reason or as `Internal`. Free-form v0.3 `data` is
    /// ignored.
    #[must_use]
    pub fn to_a2a(&self) -> A2aError {
        let v1 = crate::jsonrpc::JsonRpcError {
            code: self.code,
            message: self.message.clone(),
            data: self.data.clone(),
        };
        let parsed = A2aError::from_jsonrpc_error(&v1);
        let Some(info) = self.error_info().filter(ErrorInfo::is_a2a_domain) else {
            return parsed;
        };
        let by_reason = ErrorKind::from_reason(&info.reason)
            .filter(|kind| ErrorCode::from_kind(*kind).code() == self.code);
        match by_reason {
            Some(kind) if kind != parsed.kind() => {
                let mut error = A2aError::new(kind, parsed.message());
                for (key, value) in parsed.metadata() {
                    error = error.with_metadata(key.clone(), value.clone());
                }
                for violation in parsed.field_violations() {
                    error = error.with_field_violation(
                        violation.field.clone(),
                        violation.description.clone(),
                    );
                }
                error
            }
            Some(_) | None => parsed,
        }
    }

    /// The `ErrorInfo` in `data`, when there is one (as an array element or alone).
    fn error_info(&self) -> Option<ErrorInfo> {
        match self.data.as_ref()? {
            Value::Array(items) => items.iter().find_map(ErrorInfo::from_any),
            single => ErrorInfo::from_any(single),
        }
    }
}

/// The same object in the JSON-RPC envelope types of [`crate::jsonrpc`], which carry both
/// versions' errors (`JsonRpcResponse::error`).
impl From<JsonRpcError> for crate::jsonrpc::JsonRpcError {
    fn from(error: JsonRpcError) -> Self {
        Self {
            code: error.code,
            message: error.message,
            data: error.data,
        }
    }
}

/// The same object, read from an envelope of [`crate::jsonrpc`].
impl From<crate::jsonrpc::JsonRpcError> for JsonRpcError {
    fn from(error: crate::jsonrpc::JsonRpcError) -> Self {
        Self {
            code: error.code,
            message: error.message,
            data: error.data,
        }
    }
}
