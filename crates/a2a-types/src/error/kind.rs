//! [`ErrorKind`]: the error catalogue, and its binding-independent mappings (JSON-RPC code,
//! `ErrorInfo` reason, problem type slug, suggested message). Transport statuses live in
//! `status.rs`.

/// Prefix of every A2A problem `type`; the kind's slug follows.
pub const PROBLEM_TYPE_BASE: &str = "https://a2a-protocol.org/errors/";

/// Every error an A2A peer can report, whatever the binding.
///
/// The first nine variants are the A2A-specific errors (spec §3.3.2, `a2a-v1.md` §7.1); the
/// next five are the generic JSON-RPC errors; the last five are server-defined errors that share
/// JSON-RPC code `-32000` and are told apart by their `ErrorInfo` reason.
///
/// Every mapping is an exhaustive `match`, so adding a variant fails to compile until each
/// binding's value has been decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `TaskNotFoundError`: the task (or push config) is unknown, not visible, or purged.
    TaskNotFound,
    /// `TaskNotCancelableError`: cancel of a terminal or non-cancelable task.
    TaskNotCancelable,
    /// `PushNotificationNotSupportedError`: push operation while the capability is off.
    PushNotificationNotSupported,
    /// `UnsupportedOperationError`: an operation or feature this agent does not offer.
    UnsupportedOperation,
    /// `ContentTypeNotSupportedError`: a part's media type is not supported.
    ContentTypeNotSupported,
    /// `InvalidAgentResponseError`: the agent produced a response that violates the spec.
    InvalidAgentResponse,
    /// `ExtendedAgentCardNotConfiguredError`: extended card declared but not configured.
    ExtendedAgentCardNotConfigured,
    /// `ExtensionSupportRequiredError`: a required extension was not activated by the client.
    ExtensionSupportRequired,
    /// `VersionNotSupportedError`: the requested `A2A-Version` is not served here.
    VersionNotSupported,
    /// JSON-RPC parse error: the body is not valid JSON.
    ParseError,
    /// JSON-RPC invalid request: valid JSON, but not an acceptable request envelope.
    InvalidRequest,
    /// Unknown JSON-RPC method or unknown REST route.
    MethodNotFound,
    /// Invalid parameters: request validation failed.
    InvalidParams,
    /// Internal error: nothing more may be said to the caller.
    Internal,
    /// Credentials missing or invalid.
    Authentication,
    /// Authenticated caller lacks permission.
    Authorization,
    /// The server is at capacity or rate-limiting this caller; retry later.
    ServerBusy,
    /// The request body is larger than the server accepts.
    PayloadTooLarge,
    /// The service is temporarily unavailable (overloaded, shutting down, dependency down).
    Unavailable,
}

impl ErrorKind {
    /// Every kind, in declaration order; for table tests and exhaustive listings.
    pub const ALL: [ErrorKind; 19] = [
        Self::TaskNotFound,
        Self::TaskNotCancelable,
        Self::PushNotificationNotSupported,
        Self::UnsupportedOperation,
        Self::ContentTypeNotSupported,
        Self::InvalidAgentResponse,
        Self::ExtendedAgentCardNotConfigured,
        Self::ExtensionSupportRequired,
        Self::VersionNotSupported,
        Self::ParseError,
        Self::InvalidRequest,
        Self::MethodNotFound,
        Self::InvalidParams,
        Self::Internal,
        Self::Authentication,
        Self::Authorization,
        Self::ServerBusy,
        Self::PayloadTooLarge,
        Self::Unavailable,
    ];

    /// The JSON-RPC `error.code`.
    ///
    /// `Authentication`, `Authorization`, `ServerBusy`, `PayloadTooLarge` and `Unavailable` all
    /// use the implementation-defined server error `-32000` and carry their `ErrorInfo` reason.
    /// `Unavailable` deliberately does not use `-32603` (which the spec allows) so that
    /// `-32603` always means "internal" and the HTTP 500 it gets stays about real failures.
    pub const fn jsonrpc_code(self) -> i32 {
        match self {
            Self::TaskNotFound => -32001,
            Self::TaskNotCancelable => -32002,
            Self::PushNotificationNotSupported => -32003,
            Self::UnsupportedOperation => -32004,
            Self::ContentTypeNotSupported => -32005,
            Self::InvalidAgentResponse => -32006,
            Self::ExtendedAgentCardNotConfigured => -32007,
            Self::ExtensionSupportRequired => -32008,
            Self::VersionNotSupported => -32009,
            Self::ParseError => -32700,
            Self::InvalidRequest => -32600,
            Self::MethodNotFound => -32601,
            Self::InvalidParams => -32602,
            Self::Internal => -32603,
            Self::Authentication
            | Self::Authorization
            | Self::ServerBusy
            | Self::PayloadTooLarge
            | Self::Unavailable => -32000,
        }
    }

    /// The `google.rpc.ErrorInfo.reason`: the error name in UPPER_SNAKE_CASE without `Error`.
    pub const fn reason(self) -> &'static str {
        match self {
            Self::TaskNotFound => "TASK_NOT_FOUND",
            Self::TaskNotCancelable => "TASK_NOT_CANCELABLE",
            Self::PushNotificationNotSupported => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            Self::UnsupportedOperation => "UNSUPPORTED_OPERATION",
            Self::ContentTypeNotSupported => "CONTENT_TYPE_NOT_SUPPORTED",
            Self::InvalidAgentResponse => "INVALID_AGENT_RESPONSE",
            Self::ExtendedAgentCardNotConfigured => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            Self::ExtensionSupportRequired => "EXTENSION_SUPPORT_REQUIRED",
            Self::VersionNotSupported => "VERSION_NOT_SUPPORTED",
            Self::ParseError => "PARSE_ERROR",
            Self::InvalidRequest => "INVALID_REQUEST",
            Self::MethodNotFound => "METHOD_NOT_FOUND",
            Self::InvalidParams => "INVALID_PARAMS",
            Self::Internal => "INTERNAL_ERROR",
            Self::Authentication => "AUTHENTICATION",
            Self::Authorization => "AUTHORIZATION",
            Self::ServerBusy => "SERVER_BUSY",
            Self::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            Self::Unavailable => "UNAVAILABLE",
        }
    }

    /// The last path segment of the RFC 9457 problem `type`
    /// (`https://a2a-protocol.org/errors/<slug>`).
    pub const fn problem_slug(self) -> &'static str {
        match self {
            Self::TaskNotFound => "task-not-found",
            Self::TaskNotCancelable => "task-not-cancelable",
            Self::PushNotificationNotSupported => "push-notification-not-supported",
            Self::UnsupportedOperation => "unsupported-operation",
            Self::ContentTypeNotSupported => "content-type-not-supported",
            Self::InvalidAgentResponse => "invalid-agent-response",
            Self::ExtendedAgentCardNotConfigured => "extended-agent-card-not-configured",
            Self::ExtensionSupportRequired => "extension-support-required",
            Self::VersionNotSupported => "version-not-supported",
            Self::ParseError => "parse-error",
            Self::InvalidRequest => "invalid-request",
            Self::MethodNotFound => "method-not-found",
            Self::InvalidParams => "invalid-params",
            Self::Internal => "internal-error",
            Self::Authentication => "authentication-required",
            Self::Authorization => "authorization-failed",
            Self::ServerBusy => "server-busy",
            Self::PayloadTooLarge => "payload-too-large",
            Self::Unavailable => "unavailable",
        }
    }

    /// The message used when nothing more specific may be said: the spec's suggested texts for
    /// the generic errors, short neutral texts for the others. Also the problem `title`.
    pub const fn default_message(self) -> &'static str {
        match self {
            Self::TaskNotFound => "Task not found",
            Self::TaskNotCancelable => "Task cannot be canceled",
            Self::PushNotificationNotSupported => "Push notifications are not supported",
            Self::UnsupportedOperation => "This operation is not supported",
            Self::ContentTypeNotSupported => "Content type not supported",
            Self::InvalidAgentResponse => "Invalid agent response",
            Self::ExtendedAgentCardNotConfigured => "Extended agent card is not configured",
            Self::ExtensionSupportRequired => "A required extension was not activated",
            Self::VersionNotSupported => "Protocol version not supported",
            Self::ParseError => "Invalid JSON payload",
            Self::InvalidRequest => "Request payload validation error",
            Self::MethodNotFound => "Method not found",
            Self::InvalidParams => "Invalid parameters",
            Self::Internal => "Internal error",
            Self::Authentication => "Authentication required",
            Self::Authorization => "Not authorized",
            Self::ServerBusy => "Server is busy, retry later",
            Self::PayloadTooLarge => "Request payload too large",
            Self::Unavailable => "Service temporarily unavailable",
        }
    }

    /// Whether this is one of the nine A2A-specific errors (for which `ErrorInfo` is a MUST).
    pub const fn is_a2a_specific(self) -> bool {
        match self {
            Self::TaskNotFound
            | Self::TaskNotCancelable
            | Self::PushNotificationNotSupported
            | Self::UnsupportedOperation
            | Self::ContentTypeNotSupported
            | Self::InvalidAgentResponse
            | Self::ExtendedAgentCardNotConfigured
            | Self::ExtensionSupportRequired
            | Self::VersionNotSupported => true,
            Self::ParseError
            | Self::InvalidRequest
            | Self::MethodNotFound
            | Self::InvalidParams
            | Self::Internal
            | Self::Authentication
            | Self::Authorization
            | Self::ServerBusy
            | Self::PayloadTooLarge
            | Self::Unavailable => false,
        }
    }

    /// Whether the failure is temporary, so the same request may succeed later (spec §3.3.2).
    pub const fn is_retryable(self) -> bool {
        match self {
            Self::ServerBusy | Self::Unavailable => true,
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
            | Self::Internal
            | Self::Authentication
            | Self::Authorization
            | Self::PayloadTooLarge => false,
        }
    }

    /// The kind named by an `ErrorInfo` reason.
    ///
    /// Besides the names [`reason`](Self::reason) produces, accepts `INTERNAL` (gRPC spelling)
    /// and the v0.3 name `AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED`. Matching is exact:
    /// reasons are UPPER_SNAKE_CASE by definition.
    pub fn from_reason(reason: &str) -> Option<Self> {
        match reason {
            "INTERNAL" => return Some(Self::Internal),
            "AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED" => {
                return Some(Self::ExtendedAgentCardNotConfigured);
            }
            _ => {}
        }
        Self::ALL.into_iter().find(|kind| kind.reason() == reason)
    }

    /// The kind named by a problem-type slug (`task-not-found`, …).
    pub fn from_problem_slug(slug: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.problem_slug() == slug)
    }

    /// The kind named by a full problem `type` URI under
    /// [`PROBLEM_TYPE_BASE`]; `None` for any other URI
    /// (including `about:blank`).
    pub fn from_problem_type(uri: &str) -> Option<Self> {
        uri.strip_prefix(PROBLEM_TYPE_BASE)
            .and_then(Self::from_problem_slug)
    }

    /// The kind for a JSON-RPC `error.code`, refined by the `ErrorInfo` reason where the code
    /// alone does not decide.
    ///
    /// * A fixed code (`-32001…-32009`, `-32700`, `-32600…-32603`) decides on its own.
    /// * `-32000` is shared by the server-defined errors: the reason must name one of the
    ///   kinds that use it; otherwise `None` (callers that need a kind then use
    ///   [`ErrorKind::Internal`]).
    /// * `-32603` is what the spec suggests for "temporarily unavailable / rate-limited", so a
    ///   `UNAVAILABLE` or `SERVER_BUSY` reason refines it; any other reason leaves `Internal`.
    /// * Any other code gives `None`.
    pub fn from_jsonrpc_code(code: i32, reason: Option<&str>) -> Option<Self> {
        let by_reason = reason.and_then(Self::from_reason);
        match code {
            -32000 => by_reason.filter(|kind| kind.jsonrpc_code() == -32000),
            -32603 => by_reason
                .filter(|kind| matches!(kind, Self::Unavailable | Self::ServerBusy))
                .or(Some(Self::Internal)),
            _ => Self::ALL
                .into_iter()
                .find(|kind| kind.jsonrpc_code() == code),
        }
    }
}
