//! [`ApiError`]: what the page reads when something fails, as
//! `{"error": {"kind", "message", "detail", "code", "reason"}}` with the HTTP status of its
//! kind, and the mapping from a client's [`ClientError`] to it.

use std::error::Error as _;

use a2a_client::ClientError;
use a2a_types::error::ErrorKind;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};

/// What kind of failure an [`ApiError`] is; the page chooses its wording and styling by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKindName {
    /// The agent could not be reached (HTTP 502).
    Unreachable,
    /// The agent answered 401 (HTTP 401).
    Unauthorized,
    /// The agent answered 403 (HTTP 403).
    Forbidden,
    /// The agent, task or card was not found (HTTP 404).
    NotFound,
    /// The agent's card is not a usable A2A card (HTTP 502).
    InvalidCard,
    /// A time limit ran out (HTTP 504).
    Timeout,
    /// The agent answered with an A2A error (HTTP 502).
    A2a,
    /// A malformed call to the inspector itself (HTTP 400; 403 without `X-Inspector`).
    BadRequest,
    /// A message too large for the inspector or for the agent (HTTP 413).
    TooLarge,
    /// No connection of that id (HTTP 404).
    UnknownConnection,
}

impl ErrorKindName {
    fn status(self) -> StatusCode {
        match self {
            Self::Unreachable | Self::InvalidCard | Self::A2a => StatusCode::BAD_GATEWAY,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden => StatusCode::FORBIDDEN,
            Self::NotFound | Self::UnknownConnection => StatusCode::NOT_FOUND,
            Self::Timeout => StatusCode::GATEWAY_TIMEOUT,
            Self::BadRequest => StatusCode::BAD_REQUEST,
            Self::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        }
    }
}

/// A failure as the page sees it: one clear sentence for a person, and technical detail.
#[derive(Debug, Clone, Serialize)]
pub struct ApiError {
    /// The kind.
    pub kind: ErrorKindName,
    /// One sentence a person reads.
    pub message: String,
    /// Technical detail: the agent's A2A error JSON, the underlying error text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Box<Value>>,
    /// The agent's JSON-RPC error code, for [`ErrorKindName::A2a`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// The agent's `ErrorInfo` reason, for [`ErrorKindName::A2a`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The HTTP status answered (not serialised: it is the response's own status).
    #[serde(skip)]
    pub status: StatusCode,
}

impl ApiError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKindName, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            detail: None,
            code: None,
            reason: None,
            status: kind.status(),
        }
    }

    /// A malformed call to the inspector.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorKindName::BadRequest, message)
    }

    /// No connection `id`.
    pub fn unknown_connection(id: &str) -> Self {
        Self::new(
            ErrorKindName::UnknownConnection,
            format!("There is no connection {id}; connect to the agent again."),
        )
    }

    /// With technical `detail`.
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<Value>) -> Self {
        self.detail = Some(Box::new(detail.into()));
        self
    }

    /// The JSON the page reads: `{"error": {...}}`.
    pub fn to_json(&self) -> Value {
        json!({ "error": self })
    }

    /// The failure of a call to the agent at `url`; `schemes` names what the card's
    /// security asks for, for the message of a 401.
    pub fn from_client(error: &ClientError, url: &str, schemes: &str) -> Self {
        let detail = error_chain(error);
        let with_detail = |api: Self| api.with_detail(detail.clone());
        match error {
            ClientError::Transport { source, .. } => with_detail(Self::new(
                ErrorKindName::Unreachable,
                format!("Could not reach {url}: {}.", root_cause(source.as_ref())),
            )),
            ClientError::Timeout(kind) => with_detail(Self::new(
                ErrorKindName::Timeout,
                format!("The agent at {url} did not answer in time ({kind})."),
            )),
            ClientError::Http { status: 401, .. } => unauthorized(url, schemes, &detail),
            ClientError::Http { status: 403, .. } => with_detail(Self::new(
                ErrorKindName::Forbidden,
                "The agent refused the request: 403 Forbidden. The credentials are valid but not allowed to do this.",
            )),
            ClientError::Http { status: 413, .. } => with_detail(Self::new(
                ErrorKindName::TooLarge,
                format!(
                    "The agent at {url} refused the message as too large (413 Payload Too Large)."
                ),
            )),
            ClientError::Http { status: 404, .. } => with_detail(Self::new(
                ErrorKindName::NotFound,
                format!("Nothing was found at {url} (404 Not Found). Check the address."),
            )),
            ClientError::Http { status, .. } => with_detail(Self::new(
                ErrorKindName::Unreachable,
                format!("The agent at {url} answered HTTP {status} instead of A2A."),
            )),
            ClientError::Redirect { status, location } => with_detail(Self::new(
                ErrorKindName::Unreachable,
                match location {
                    Some(location) => format!(
                        "The agent at {url} redirected (HTTP {status}) to {location}; connect to that address instead."
                    ),
                    None => format!("The agent at {url} redirected (HTTP {status})."),
                },
            )),
            ClientError::InvalidCard { reason } => with_detail(Self::new(
                ErrorKindName::InvalidCard,
                format!("The agent card at {url} is not a usable A2A card: {reason}."),
            )),
            ClientError::CardSignature(error) => with_detail(Self::new(
                ErrorKindName::InvalidCard,
                format!("The agent card's signature does not verify: {error}."),
            )),
            ClientError::NoUsableInterface { reason } => with_detail(Self::new(
                ErrorKindName::InvalidCard,
                format!("The agent card offers no interface the inspector can use: {reason}."),
            )),
            ClientError::Agent(agent) => match agent.kind() {
                ErrorKind::Authentication => unauthorized(url, schemes, &detail),
                ErrorKind::Authorization => with_detail(Self::new(
                    ErrorKindName::Forbidden,
                    format!(
                        "The agent refused the request: {}",
                        sentence(agent.message())
                    ),
                )),
                _ => {
                    let mut api = Self::new(
                        ErrorKindName::A2a,
                        format!(
                            "The agent answered {}: {}",
                            agent.reason(),
                            sentence(agent.message())
                        ),
                    );
                    api.detail = serde_json::to_value(agent.to_jsonrpc_error())
                        .ok()
                        .map(Box::new);
                    api.code = Some(agent.kind().jsonrpc_code());
                    api.reason = Some(agent.reason().to_owned());
                    api
                }
            },
            ClientError::Credentials { reason, .. } => with_detail(Self::new(
                ErrorKindName::Unauthorized,
                format!("Could not obtain credentials for the agent: {reason}."),
            )),
            ClientError::Config { reason } => with_detail(Self::bad_request(format!(
                "The request cannot be made: {reason}."
            ))),
            ClientError::Decode { .. }
            | ClientError::InvalidResponse { .. }
            | ClientError::PayloadTooLarge { .. }
            | ClientError::StreamInterrupted { .. } => with_detail(Self::new(
                ErrorKindName::Unreachable,
                format!("The agent at {url} gave an answer the inspector cannot read: {error}."),
            )),
            _ => with_detail(Self::new(
                ErrorKindName::Unreachable,
                format!("The call to {url} failed: {error}."),
            )),
        }
    }
}

fn unauthorized(url: &str, schemes: &str, detail: &str) -> ApiError {
    let hint = if schemes.is_empty() {
        "Check the credentials.".to_owned()
    } else {
        format!("Check the credentials ({schemes}).")
    };
    ApiError::new(
        ErrorKindName::Unauthorized,
        format!("The agent at {url} refused the request: 401 Unauthorized. {hint}"),
    )
    .with_detail(detail.to_owned())
}

/// `text` ending with a full stop.
fn sentence(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// The innermost cause of `error`, in words: "connection refused".
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut current = error;
    while let Some(next) = current.source() {
        current = next;
    }
    let text = current.to_string();
    // The OS error's own words without "(os error 111)".
    let text = match text.find(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    };
    let lower = text.to_lowercase();
    if lower.contains("connection refused") {
        "connection refused".to_owned()
    } else if lower.contains("dns error") || lower.contains("failed to lookup") {
        "the host name does not resolve".to_owned()
    } else {
        lower.trim_end_matches('.').to_owned()
    }
}

/// `error` and its causes, `: `-separated.
pub(crate) fn error_chain(error: &ClientError) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.to_json())).into_response();
        response.headers_mut().insert(
            axum::http::header::CACHE_CONTROL,
            axum::http::HeaderValue::from_static("no-store"),
        );
        response
    }
}
