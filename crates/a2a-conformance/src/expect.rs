//! The error each binding must answer for each A2A error.
//!
//! The error each binding must answer for each A2A error (spec §5.4 table, v1.0.1; the
//! v1.0.0 statuses that revision changed are accepted too, since peers of both exist), and
//! the check of an answer against it.

use a2a_types::ProtocolBinding;
use tonic::Code;

use crate::outcome::Outcome;
use crate::wire::{ErrorCode, Exchange, WireError};

/// An error the spec defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expected {
    TaskNotFound,
    TaskNotCancelable,
    PushNotificationNotSupported,
    UnsupportedOperation,
    ContentTypeNotSupported,
    ExtensionSupportRequired,
    VersionNotSupported,
    InvalidParams,
    MethodNotFound,
    ParseError,
}

impl Expected {
    fn name(self) -> &'static str {
        match self {
            Self::TaskNotFound => "TaskNotFoundError",
            Self::TaskNotCancelable => "TaskNotCancelableError",
            Self::PushNotificationNotSupported => "PushNotificationNotSupportedError",
            Self::UnsupportedOperation => "UnsupportedOperationError",
            Self::ContentTypeNotSupported => "ContentTypeNotSupportedError",
            Self::ExtensionSupportRequired => "ExtensionSupportRequiredError",
            Self::VersionNotSupported => "VersionNotSupportedError",
            Self::InvalidParams => "invalid params",
            Self::MethodNotFound => "method not found",
            Self::ParseError => "parse error",
        }
    }

    /// The `ErrorInfo.reason`; generic errors have none the spec fixes.
    fn reason(self) -> Option<&'static str> {
        match self {
            Self::TaskNotFound => Some("TASK_NOT_FOUND"),
            Self::TaskNotCancelable => Some("TASK_NOT_CANCELABLE"),
            Self::PushNotificationNotSupported => Some("PUSH_NOTIFICATION_NOT_SUPPORTED"),
            Self::UnsupportedOperation => Some("UNSUPPORTED_OPERATION"),
            Self::ContentTypeNotSupported => Some("CONTENT_TYPE_NOT_SUPPORTED"),
            Self::ExtensionSupportRequired => Some("EXTENSION_SUPPORT_REQUIRED"),
            Self::VersionNotSupported => Some("VERSION_NOT_SUPPORTED"),
            Self::InvalidParams | Self::MethodNotFound | Self::ParseError => None,
        }
    }

    fn jsonrpc(self) -> i64 {
        match self {
            Self::TaskNotFound => -32001,
            Self::TaskNotCancelable => -32002,
            Self::PushNotificationNotSupported => -32003,
            Self::UnsupportedOperation => -32004,
            Self::ContentTypeNotSupported => -32005,
            Self::ExtensionSupportRequired => -32008,
            Self::VersionNotSupported => -32009,
            Self::InvalidParams => -32602,
            Self::MethodNotFound => -32601,
            Self::ParseError => -32700,
        }
    }

    /// HTTP statuses: v1.0.1's first, then v1.0.0's where it differed.
    fn http(self) -> &'static [u16] {
        match self {
            Self::TaskNotFound | Self::MethodNotFound => &[404],
            Self::TaskNotCancelable => &[400, 409],
            Self::ContentTypeNotSupported => &[400, 415],
            Self::PushNotificationNotSupported
            | Self::UnsupportedOperation
            | Self::ExtensionSupportRequired
            | Self::VersionNotSupported
            | Self::InvalidParams
            | Self::ParseError => &[400],
        }
    }

    /// gRPC codes: v1.0.1's first, then v1.0.0's where it differed.
    fn grpc(self) -> &'static [Code] {
        match self {
            Self::TaskNotFound => &[Code::NotFound],
            Self::TaskNotCancelable | Self::ExtensionSupportRequired => &[Code::FailedPrecondition],
            Self::PushNotificationNotSupported
            | Self::UnsupportedOperation
            | Self::VersionNotSupported => &[Code::FailedPrecondition, Code::Unimplemented],
            Self::ContentTypeNotSupported | Self::InvalidParams | Self::ParseError => {
                &[Code::InvalidArgument]
            }
            Self::MethodNotFound => &[Code::Unimplemented],
        }
    }

    /// What the binding must answer, in words.
    pub(crate) fn describe(self, binding: &ProtocolBinding) -> String {
        let reason = self
            .reason()
            .map(|reason| format!(" with ErrorInfo reason {reason}"))
            .unwrap_or_default();
        match binding {
            ProtocolBinding::JsonRpc => {
                format!("{}: JSON-RPC error {}", self.name(), self.jsonrpc())
            }
            ProtocolBinding::Grpc => {
                let codes: Vec<_> = self
                    .grpc()
                    .iter()
                    .map(|code| a2a_grpc::status::code_name(*code))
                    .collect();
                format!("{}: gRPC {}{reason}", self.name(), codes.join(" or "))
            }
            ProtocolBinding::HttpJson | ProtocolBinding::Other(_) => {
                let statuses: Vec<_> = self.http().iter().map(u16::to_string).collect();
                format!("{}: HTTP {}{reason}", self.name(), statuses.join(" or "))
            }
        }
    }
}

/// Checks that `exchange` failed with `expected` as `binding` maps it: the JSON-RPC code,
/// or the HTTP / gRPC status and (for A2A errors, which several statuses share) the
/// `ErrorInfo` reason.
pub(crate) fn error(
    binding: &ProtocolBinding,
    exchange: &Exchange,
    expected: Expected,
) -> Result<(), Outcome> {
    let wanted = expected.describe(binding);
    let fail = |why: String| Outcome::fail(why).with(exchange).expected(wanted.clone());
    let error: &WireError = match &exchange.result {
        Ok(_) => {
            return Err(fail(format!(
                "the agent answered success, not {}",
                expected.name()
            )));
        }
        Err(error) => error,
    };
    let reason_ok = || match (expected.reason(), &error.reason) {
        (None, _) => Ok(()),
        (Some(want), Some(got)) if want == got => Ok(()),
        (Some(want), got) => Err(fail(format!(
            "the error carries {} instead of the ErrorInfo reason {want}",
            got.as_deref()
                .map_or_else(|| "no ErrorInfo".to_owned(), |got| format!("reason {got}"))
        ))),
    };
    match (&error.code, binding) {
        (ErrorCode::JsonRpc(code), ProtocolBinding::JsonRpc) => {
            if *code == expected.jsonrpc() {
                Ok(())
            } else {
                Err(fail(format!(
                    "the agent answered JSON-RPC error {code}, not {}",
                    expected.jsonrpc()
                )))
            }
        }
        (ErrorCode::Grpc(code), ProtocolBinding::Grpc) => {
            if expected.grpc().contains(code) {
                reason_ok()
            } else {
                Err(fail(format!(
                    "the agent answered gRPC {}",
                    a2a_grpc::status::code_name(*code)
                )))
            }
        }
        (ErrorCode::Http(status), ProtocolBinding::HttpJson) => {
            if expected.http().contains(status) {
                reason_ok()
            } else {
                Err(fail(format!("the agent answered HTTP {status}")))
            }
        }
        (ErrorCode::Inexpressible(why), _) => Err(Outcome::skip(why.clone())),
        (_, _) => Err(fail(format!("the agent answered {}", error.describe()))),
    }
}
