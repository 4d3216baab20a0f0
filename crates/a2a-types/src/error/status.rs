//! Transport statuses of an [`ErrorKind`]: gRPC canonical code names, HTTP statuses per
//! [`RestStatusProfile`], and the best-effort reverse lookups clients use when
//! a body carries no `ErrorInfo`.

use std::fmt;
use std::str::FromStr;

use super::ErrorKind;

/// Which table turns an [`ErrorKind`] into an HTTP status on the HTTP+JSON binding.
///
/// The JSON-RPC codes, gRPC statuses and reasons are the same under every profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RestStatusProfile {
    /// The spec v1.0.1 table: 404 for TaskNotFound, 400 for the other A2A errors, 500 for
    /// InvalidAgentResponse; our statuses for generic errors (401, 403, 404, 413, 429, 500, 503).
    #[default]
    Spec,
    /// Apache Camel's table: 405 when a capability is off
    /// (UnsupportedOperation, PushNotificationNotSupported), 409 for TaskNotCancelable; the
    /// cases it does not cover take the spec values.
    Camel,
    /// The a2a-java fork's RFC 7807 table: 422 invalid params, 409 not
    /// cancelable, 415 content type, 501 unsupported, 502 invalid agent response.
    Rfc7807Java,
}

impl RestStatusProfile {
    /// Every profile, for table tests and help texts.
    pub const ALL: [RestStatusProfile; 3] = [Self::Spec, Self::Camel, Self::Rfc7807Java];

    /// The configuration name: `spec`, `camel` or `rfc7807-java`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Spec => "spec",
            Self::Camel => "camel",
            Self::Rfc7807Java => "rfc7807-java",
        }
    }

    /// Whether a successful DeletePushNotificationConfig answers 204 No Content (a2a-java's
    /// REST transport) rather than 200 with `{}` (the spec).
    pub const fn deletes_with_no_content(self) -> bool {
        match self {
            Self::Spec | Self::Camel => false,
            Self::Rfc7807Java => true,
        }
    }
}

impl fmt::Display for RestStatusProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A configuration value that names no [`RestStatusProfile`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rest status profile {name:?}, expected spec, camel or rfc7807-java")]
pub struct UnknownRestStatusProfile {
    name: String,
}

impl UnknownRestStatusProfile {
    /// The rejected value.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl FromStr for RestStatusProfile {
    type Err = UnknownRestStatusProfile;

    /// Parses `spec`, `camel` or `rfc7807-java`, ignoring ASCII case; `spec-1.0.1` is
    /// accepted as another name of `spec`.
    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let value = value.trim();
        if value.eq_ignore_ascii_case("spec-1.0.1") {
            return Ok(Self::Spec);
        }
        Self::ALL
            .into_iter()
            .find(|profile| profile.as_str().eq_ignore_ascii_case(value))
            .ok_or_else(|| UnknownRestStatusProfile {
                name: value.to_owned(),
            })
    }
}

impl ErrorKind {
    /// The canonical gRPC status code name (spec v1.0.1 table; generic errors per §7.2),
    /// except VersionNotSupported, which is `UNIMPLEMENTED` as the v1.0.0 table maps it and
    /// the official conformance kit expects: the interface does not implement that version.
    pub const fn grpc_status(self) -> &'static str {
        match self {
            Self::TaskNotFound => "NOT_FOUND",
            Self::TaskNotCancelable
            | Self::PushNotificationNotSupported
            | Self::UnsupportedOperation
            | Self::ExtendedAgentCardNotConfigured
            | Self::ExtensionSupportRequired => "FAILED_PRECONDITION",
            Self::VersionNotSupported | Self::MethodNotFound => "UNIMPLEMENTED",
            Self::ContentTypeNotSupported
            | Self::ParseError
            | Self::InvalidRequest
            | Self::InvalidParams => "INVALID_ARGUMENT",
            Self::InvalidAgentResponse | Self::Internal => "INTERNAL",
            Self::Authentication => "UNAUTHENTICATED",
            Self::Authorization => "PERMISSION_DENIED",
            Self::ServerBusy | Self::PayloadTooLarge => "RESOURCE_EXHAUSTED",
            Self::Unavailable => "UNAVAILABLE",
        }
    }

    /// The HTTP status of this error on the HTTP+JSON binding under `profile`.
    pub const fn http_status(self, profile: RestStatusProfile) -> u16 {
        match profile {
            RestStatusProfile::Spec => self.spec_http_status(),
            RestStatusProfile::Camel => match self {
                Self::PushNotificationNotSupported | Self::UnsupportedOperation => 405,
                Self::TaskNotCancelable => 409,
                Self::TaskNotFound
                | Self::ContentTypeNotSupported
                | Self::InvalidAgentResponse
                | Self::ExtendedAgentCardNotConfigured
                | Self::ExtensionSupportRequired
                | Self::VersionNotSupported
                | Self::ParseError
                | Self::InvalidRequest
                | Self::MethodNotFound
                | Self::InvalidParams
                | Self::Internal
                | Self::Authentication
                | Self::Authorization
                | Self::ServerBusy
                | Self::PayloadTooLarge
                | Self::Unavailable => self.spec_http_status(),
            },
            RestStatusProfile::Rfc7807Java => match self {
                Self::InvalidParams => 422,
                Self::TaskNotCancelable => 409,
                Self::ContentTypeNotSupported => 415,
                Self::PushNotificationNotSupported | Self::UnsupportedOperation => 501,
                Self::InvalidAgentResponse => 502,
                Self::TaskNotFound
                | Self::ExtendedAgentCardNotConfigured
                | Self::ExtensionSupportRequired
                | Self::VersionNotSupported
                | Self::ParseError
                | Self::InvalidRequest
                | Self::MethodNotFound
                | Self::Internal
                | Self::Authentication
                | Self::Authorization
                | Self::ServerBusy
                | Self::PayloadTooLarge
                | Self::Unavailable => self.spec_http_status(),
            },
        }
    }

    const fn spec_http_status(self) -> u16 {
        match self {
            Self::TaskNotFound | Self::MethodNotFound => 404,
            Self::TaskNotCancelable
            | Self::PushNotificationNotSupported
            | Self::UnsupportedOperation
            | Self::ContentTypeNotSupported
            | Self::ExtendedAgentCardNotConfigured
            | Self::ExtensionSupportRequired
            | Self::VersionNotSupported
            | Self::ParseError
            | Self::InvalidRequest
            | Self::InvalidParams => 400,
            Self::InvalidAgentResponse | Self::Internal => 500,
            Self::Authentication => 401,
            Self::Authorization => 403,
            Self::ServerBusy => 429,
            Self::PayloadTooLarge => 413,
            Self::Unavailable => 503,
        }
    }

    /// The HTTP status of a JSON-RPC response carrying this error: 200, except `Internal`
    /// (500) and `Authentication` (401 with `WWW-Authenticate`).
    pub const fn jsonrpc_http_status(self) -> u16 {
        match self {
            Self::Internal => 500,
            Self::Authentication => 401,
            Self::TaskNotFound
            | Self::TaskNotCancelable
            | Self::PushNotificationNotSupported
            | Self::UnsupportedOperation
            | Self::ContentTypeNotSupported
            | Self::InvalidAgentResponse
            | Self::ExtendedAgentCardNotConfigured
            | Self::ExtensionSupportRequired
            | Self::VersionNotSupported
            | Self::ParseError
            | Self::InvalidRequest
            | Self::MethodNotFound
            | Self::InvalidParams
            | Self::Authorization
            | Self::ServerBusy
            | Self::PayloadTooLarge
            | Self::Unavailable => 200,
        }
    }

    /// Best-effort kind for a bare HTTP error status; the last fallback when a body names no
    /// reason, code or problem type. Accepts every profile's statuses and the v1.0.0 ones
    /// (409, 415, 502).
    ///
    /// Ambiguous statuses take the most likely A2A meaning: 404 → `TaskNotFound` (an unknown
    /// route also answers 404, so this is only right when nothing better is known), 405 and
    /// 501 → `UnsupportedOperation`, 400 and other 4xx → `InvalidRequest`, other 5xx →
    /// `Internal`, 504 → `Unavailable`. Statuses below 400 give `None`.
    pub const fn from_http_status(status: u16) -> Option<Self> {
        Some(match status {
            401 => Self::Authentication,
            403 => Self::Authorization,
            404 => Self::TaskNotFound,
            405 | 501 => Self::UnsupportedOperation,
            409 => Self::TaskNotCancelable,
            413 => Self::PayloadTooLarge,
            406 | 415 => Self::ContentTypeNotSupported,
            422 => Self::InvalidParams,
            429 => Self::ServerBusy,
            502 => Self::InvalidAgentResponse,
            503 | 504 => Self::Unavailable,
            400..=499 => Self::InvalidRequest,
            500..=599 => Self::Internal,
            _ => return None,
        })
    }

    /// Best-effort kind for a bare gRPC status name (case-insensitive).
    ///
    /// `FAILED_PRECONDITION` is shared by six A2A errors and `UNIMPLEMENTED` was used by v1.0.0
    /// peers for three of them; both map to `UnsupportedOperation`, the meaning they share.
    /// `INVALID_ARGUMENT`/`OUT_OF_RANGE` → `InvalidParams`, `UNKNOWN`/`DATA_LOSS`/`INTERNAL` →
    /// `Internal`, `DEADLINE_EXCEEDED` → `Unavailable`; `OK`, `CANCELLED`, `ABORTED`,
    /// `ALREADY_EXISTS` and unknown names give `None`.
    pub fn from_grpc_status(status: &str) -> Option<Self> {
        let status = status.trim().to_ascii_uppercase();
        Some(match status.as_str() {
            "NOT_FOUND" => Self::TaskNotFound,
            "FAILED_PRECONDITION" | "UNIMPLEMENTED" => Self::UnsupportedOperation,
            "INVALID_ARGUMENT" | "OUT_OF_RANGE" => Self::InvalidParams,
            "INTERNAL" | "UNKNOWN" | "DATA_LOSS" => Self::Internal,
            "UNAUTHENTICATED" => Self::Authentication,
            "PERMISSION_DENIED" => Self::Authorization,
            "RESOURCE_EXHAUSTED" => Self::ServerBusy,
            "UNAVAILABLE" | "DEADLINE_EXCEEDED" => Self::Unavailable,
            _ => return None,
        })
    }

    /// Combines an HTTP status and a gRPC status name from a `google.rpc.Status` body.
    ///
    /// 400 and 500 are the catch-all statuses, so the gRPC name refines them (400 +
    /// `FAILED_PRECONDITION` → `UnsupportedOperation`); any other known HTTP status is more
    /// specific than the gRPC name (409 + `FAILED_PRECONDITION` → `TaskNotCancelable`).
    pub(super) fn from_statuses(http: u16, grpc: &str) -> Option<Self> {
        let by_http = Self::from_http_status(http);
        let by_grpc = Self::from_grpc_status(grpc);
        if matches!(http, 400 | 500) || by_http.is_none() {
            by_grpc.or(by_http)
        } else {
            by_http
        }
    }
}
