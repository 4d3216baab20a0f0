//! [`ClientError`]: everything that can go wrong when talking to an agent, split into "the
//! agent said no" ([`ClientError::Agent`]) and "we could not talk to it" (the rest), with
//! [`ClientError::is_retryable`] following the gateway's retry guidance.

use std::fmt;

use a2a_types::error::{A2A_DOMAIN, ErrorKind};
use a2a_types::{A2aError, json::DecodeError};

/// A boxed error from a transport, a token endpoint or an I/O layer.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Longest body text an [`ClientError::Http`] keeps.
const SNIPPET_CHARS: usize = 200;

/// Which time limit ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeoutKind {
    /// Opening the connection (default 30 s).
    Connect,
    /// A whole non-streaming request, or the answer to a streaming one (default 60 s).
    Request,
    /// The gap between two pieces of a stream, heartbeats included (default 300 s).
    StreamIdle,
    /// The whole life of a stream, resumptions included (off by default; see
    /// [`A2aClientBuilder::stream_max_duration`](crate::A2aClientBuilder::stream_max_duration)).
    /// The stream is closed when it runs out.
    StreamDuration,
}

impl fmt::Display for TimeoutKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Connect => "connecting",
            Self::Request => "the request",
            Self::StreamIdle => "waiting for the next stream event",
            Self::StreamDuration => "the stream, which ran for its longest allowed time",
        })
    }
}

/// A failed call to an agent.
///
/// Nothing in `Display` or `Debug` carries a credential: URLs are shown without their query,
/// bodies are cut to a short single line, and token endpoint answers are reduced to their
/// OAuth error code.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The agent answered with an A2A error: a JSON-RPC error object, a `google.rpc.Status`
    /// body, an RFC 9457 problem or a legacy `{"error","message"}` body.
    /// When delegating from an executor, this is the other agent's answer, not the caller's.
    /// A gateway's own errors (another `ErrorInfo` domain) are shown by domain and code, as
    /// their codes collide with the A2A catalogue.
    #[error("{}", agent_error_text(.0))]
    Agent(A2aError),
    /// A non-2xx HTTP answer that is not an A2A error body (a proxy's 502 page, a 404 from a
    /// server that does not speak A2A).
    #[error("HTTP {status}{}", snippet_suffix(.body))]
    Http {
        /// The HTTP status.
        status: u16,
        /// The start of the body: one short line of plain text, or empty.
        body: String,
    },
    /// A redirect that was not followed.
    #[error("refused to follow a redirect (HTTP {status})")]
    Redirect {
        /// The 3xx status.
        status: u16,
        /// Where it pointed, without its query.
        location: Option<String>,
    },
    /// The agent could not be reached, or the connection broke.
    #[error("cannot reach {url}")]
    Transport {
        /// The address, without its query.
        url: String,
        /// What failed.
        #[source]
        source: BoxError,
    },
    /// A time limit ran out.
    #[error("timed out {0}")]
    Timeout(TimeoutKind),
    /// An answer that is not the JSON the operation returns.
    #[error("cannot decode {what}")]
    Decode {
        /// What was being decoded, e.g. `GetTask result`.
        what: String,
        /// The decoding error, naming the member at fault.
        #[source]
        source: DecodeError,
    },
    /// An answer that breaks the protocol in a way decoding cannot describe (a JSON-RPC
    /// envelope without `result` or `error`, an SSE event that is not JSON).
    #[error("invalid response from the agent: {reason}")]
    InvalidResponse {
        /// What was wrong.
        reason: String,
    },
    /// One SSE event or one response body was larger than allowed.
    #[error("a response exceeded the limit of {limit} bytes")]
    PayloadTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The agent card is not a valid v1.0 card, or has no interface at all.
    #[error("invalid agent card: {reason}")]
    InvalidCard {
        /// What was wrong.
        reason: String,
    },
    /// The card's signatures do not verify against the trusted keys (spec §11.5): it is not
    /// signed, names no trusted key, or was changed after signing. Asked for with
    /// [`CardFetchOptions::verify_signatures`](crate::CardFetchOptions::verify_signatures).
    #[error("agent card signature: {0}")]
    CardSignature(a2a_signature::CardSignatureError),
    /// The card has no interface this client can speak (JSONRPC, HTTP+JSON or GRPC for
    /// protocol 1.x; JSONRPC or HTTP+JSON for 0.3) in the version asked for, or the binding
    /// asked for is not one this client speaks. Its kind is InvalidRequest.
    #[error("no usable interface: {reason}")]
    NoUsableInterface {
        /// Why.
        reason: String,
    },
    /// The client was configured with something it cannot use (a bad URL or header).
    /// Its kind is InvalidRequest.
    #[error("invalid client configuration: {reason}")]
    Config {
        /// What was wrong.
        reason: String,
    },
    /// Credentials could not be obtained: the OAuth token endpoint refused or failed.
    #[error("cannot obtain credentials: {reason}")]
    Credentials {
        /// What went wrong; never the secret itself.
        reason: String,
        /// The underlying failure, when there is one.
        #[source]
        source: Option<Box<ClientError>>,
    },
    /// A stream broke before its task reached a final state, and re-subscribing did not
    /// succeed within the [`ResumePolicy`](crate::ResumePolicy)'s attempts.
    #[error("the stream ended before the task reached a final state")]
    StreamInterrupted {
        /// The last failure, when the stream broke with one.
        #[source]
        source: Option<Box<ClientError>>,
    },
}

fn snippet_suffix(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

impl ClientError {
    /// The JSON-RPC code of an error a gateway made itself (its `ErrorInfo` domain is not
    /// A2A's and says `executed = "false"`): -32001 timeout, -32002 no such agent, -32003
    /// unavailable, -32004 invalid agent response, -32010 authentication, or a base code.
    /// `None` for everything else, the agent's own answers included.
    #[must_use]
    pub fn gateway_code(&self) -> Option<i32> {
        match self {
            Self::Agent(error) if made_by_gateway(error) => Some(foreign_code(error)),
            _ => None,
        }
    }

    /// Whether trying the same request again later may succeed (KubeMQ's gateway guidance):
    ///
    /// * transport failures, timeouts and interrupted streams: yes;
    /// * HTTP 429, 502, 503 and 504: yes; other HTTP statuses: no;
    /// * the agent's own A2A answers: no, except ServerBusy and Unavailable, which say so;
    /// * a gateway's own errors (an `ErrorInfo` domain other than `a2a-protocol.org` with
    ///   `executed = "false"`): its timeout (-32001) and unavailable (-32003) yes, its
    ///   agent-not-found (-32002) and invalid-response (-32004) no;
    /// * decoding, configuration, card and credential errors: no.
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Transport { .. } | Self::Timeout(_) | Self::StreamInterrupted { .. } => true,
            Self::Http { status, .. } => matches!(status, 429 | 502 | 503 | 504),
            Self::Agent(error) => agent_error_is_retryable(error),
            Self::Redirect { .. }
            | Self::Decode { .. }
            | Self::InvalidResponse { .. }
            | Self::PayloadTooLarge { .. }
            | Self::InvalidCard { .. }
            | Self::CardSignature(_)
            | Self::NoUsableInterface { .. }
            | Self::Config { .. }
            | Self::Credentials { .. } => false,
        }
    }

    /// The A2A error kind: the agent's for [`ClientError::Agent`], `InvalidRequest` for a
    /// client that cannot be built ([`NoUsableInterface`](Self::NoUsableInterface),
    /// [`Config`](Self::Config), [`InvalidCard`](Self::InvalidCard)); `None` otherwise.
    #[must_use]
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            Self::Agent(error) => Some(error.kind()),
            Self::NoUsableInterface { .. } | Self::Config { .. } | Self::InvalidCard { .. } => {
                Some(ErrorKind::InvalidRequest)
            }
            Self::Http { .. }
            | Self::Redirect { .. }
            | Self::Transport { .. }
            | Self::Timeout(_)
            | Self::Decode { .. }
            | Self::InvalidResponse { .. }
            | Self::PayloadTooLarge { .. }
            | Self::Credentials { .. }
            | Self::CardSignature(_)
            | Self::StreamInterrupted { .. } => None,
        }
    }

    /// The agent's error, for [`ClientError::Agent`].
    #[must_use]
    pub fn agent_error(&self) -> Option<&A2aError> {
        if let Self::Agent(error) = self {
            Some(error)
        } else {
            None
        }
    }

    /// The HTTP status, for [`Http`](Self::Http) and [`Redirect`](Self::Redirect).
    #[must_use]
    pub fn http_status(&self) -> Option<u16> {
        if let Self::Http { status, .. } | Self::Redirect { status, .. } = self {
            Some(*status)
        } else {
            None
        }
    }

    pub(crate) fn config(reason: impl Into<String>) -> Self {
        Self::Config {
            reason: reason.into(),
        }
    }

    pub(crate) fn invalid_response(reason: impl Into<String>) -> Self {
        Self::InvalidResponse {
            reason: reason.into(),
        }
    }

    pub(crate) fn transport(url: &url::Url, source: impl Into<BoxError>) -> Self {
        Self::Transport {
            url: display_url(url),
            source: source.into(),
        }
    }

    pub(crate) fn decode(what: impl Into<String>, source: DecodeError) -> Self {
        Self::Decode {
            what: what.into(),
            source,
        }
    }

    /// An HTTP error whose body is not an A2A error, with a safe snippet of the body.
    pub(crate) fn http(status: u16, body: &[u8]) -> Self {
        Self::Http {
            status,
            body: snippet(body),
        }
    }
}

/// The text of an error that arrived as an A2A error:
/// "the agent answered REASON: message", or, for an error of another domain (a gateway's),
/// "DOMAIN answered CODE: message".
fn agent_error_text(error: &A2aError) -> String {
    if error.domain() == A2A_DOMAIN {
        format!("the agent answered {}: {}", error.reason(), error.message())
    } else {
        format!(
            "{} answered {} {}: {}",
            error.domain(),
            foreign_code(error),
            error.peer_reason(),
            error.message()
        )
    }
}

/// Whether the error is one a gateway made itself: another domain than the A2A catalogue's,
/// with `executed = "false"` (the request never reached the agent).
fn made_by_gateway(error: &A2aError) -> bool {
    error.domain() != A2A_DOMAIN
        && error
            .metadata()
            .get("executed")
            .is_some_and(|executed| executed == "false")
}

/// The JSON-RPC code of an error of another domain: the one it came with over JSON-RPC;
/// over HTTP+JSON a gateway's own errors are known by their reason, because the body
/// carries an HTTP status, not the gateway's code, and the kind recovered from that status names an A2A error instead (a 404 would
/// read as TaskNotFound's -32001 where the gateway means "agent not found", -32002).
fn foreign_code(error: &A2aError) -> i32 {
    if let Some(code) = error.peer_code() {
        return code;
    }
    let by_reason = made_by_gateway(error)
        .then(|| gateway_code(error.peer_reason()))
        .flatten();
    by_reason.unwrap_or_else(|| error.kind().jsonrpc_code())
}

/// The codes of the A2A gateway's own errors (KubeMQ's catalogue), by `ErrorInfo` reason.
fn gateway_code(reason: &str) -> Option<i32> {
    Some(match reason {
        "AGENT_TIMEOUT" => -32001,
        "AGENT_NOT_FOUND" => -32002,
        "AGENT_UNREACHABLE" | "AGENT_UNAVAILABLE" | "AGENT_RESPONSE_TOO_LARGE" | "SERVER_BUSY" => {
            -32003
        }
        "INVALID_AGENT_RESPONSE" => -32004,
        "UNAUTHENTICATED" => -32010,
        "PARSE_ERROR" => -32700,
        "INVALID_REQUEST" => -32600,
        "METHOD_NOT_FOUND" => -32601,
        "INVALID_PARAMS" => -32602,
        "INTERNAL_ERROR" => -32603,
        _ => return None,
    })
}

fn agent_error_is_retryable(error: &A2aError) -> bool {
    if !made_by_gateway(error) {
        return error.kind().is_retryable();
    }
    // The gateway's timeout (-32001) and "unavailable" (-32003) may pass; agent not found
    // (-32002), an invalid response (-32004) and its other refusals are final.
    matches!(foreign_code(error), -32001 | -32003)
}

/// A URL as errors show it: scheme, host, port and path, never the query or fragment (an
/// API key may travel in the query).
pub(crate) fn display_url(url: &url::Url) -> String {
    let mut shown = url.clone();
    shown.set_query(None);
    shown.set_fragment(None);
    // Userinfo is a credential too.
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.to_string()
}

/// One short line of plain text from a body, or `""` for JSON, HTML, binary and long
/// bodies.
pub(crate) fn snippet(body: &[u8]) -> String {
    let Ok(text) = std::str::from_utf8(body) else {
        return String::new();
    };
    let text = text.trim();
    let plain = !text.is_empty()
        && !text.starts_with('<')
        && !text.starts_with('{')
        && !text.starts_with('[')
        && !text.chars().any(char::is_control);
    if !plain {
        return String::new();
    }
    if text.chars().count() <= SNIPPET_CHARS {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(SNIPPET_CHARS).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_guidance_follows_seed_004() {
        let http = |status| ClientError::Http {
            status,
            body: String::new(),
        };
        for status in [429, 502, 503, 504] {
            assert!(http(status).is_retryable(), "{status}");
        }
        for status in [400, 401, 404, 500] {
            assert!(!http(status).is_retryable(), "{status}");
        }
        assert!(ClientError::Timeout(TimeoutKind::Request).is_retryable());
        assert!(!ClientError::Agent(A2aError::task_not_found("t")).is_retryable());
        assert!(ClientError::Agent(A2aError::server_busy()).is_retryable());
        assert!(!ClientError::config("x").is_retryable());
    }

    #[test]
    fn gateway_errors_that_never_reached_the_agent_are_retried_by_code() {
        let gateway = |code: i32| {
            let error = a2a_types::jsonrpc::JsonRpcError {
                code,
                message: "gateway".into(),
                data: Some(serde_json::json!([{
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "AGENT_TIMEOUT",
                    "domain": "gateway.example",
                    "metadata": {"executed": "false"}
                }])),
            };
            ClientError::Agent(A2aError::from_jsonrpc_error(&error))
        };
        assert!(gateway(-32001).is_retryable(), "timeout");
        assert!(!gateway(-32002).is_retryable(), "agent not found");
        assert!(gateway(-32003).is_retryable(), "unavailable");
        assert!(!gateway(-32004).is_retryable(), "invalid response");
    }

    #[test]
    fn a_gateway_error_over_http_json_keeps_the_gateways_code_and_reason() {
        let body = serde_json::json!({"error": {
            "code": 404, "status": "NOT_FOUND", "message": "agent not found: never-01",
            "details": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "AGENT_NOT_FOUND",
                "domain": "a2a-gateway",
                "metadata": {"executed": "false", "agentId": "never-01"}
            }]
        }});
        let error = ClientError::Agent(A2aError::from_http_body(404, body.to_string().as_bytes()));
        assert_eq!(error.gateway_code(), Some(-32002));
        assert!(!error.is_retryable());
        assert_eq!(
            error.to_string(),
            "a2a-gateway answered -32002 AGENT_NOT_FOUND: agent not found: never-01"
        );
        // The agent's own answers are no gateway's.
        assert_eq!(
            ClientError::Agent(A2aError::task_not_found("t")).gateway_code(),
            None
        );
    }

    #[test]
    fn build_errors_are_invalid_request_kind() {
        let error = ClientError::NoUsableInterface {
            reason: "none".into(),
        };
        assert_eq!(error.kind(), Some(ErrorKind::InvalidRequest));
    }

    #[test]
    fn urls_in_errors_lose_query_and_userinfo() {
        let url = url::Url::parse("https://user:pw@agent.example/a2a?api_key=secret").unwrap();
        assert_eq!(display_url(&url), "https://agent.example/a2a");
    }

    #[test]
    fn snippets_are_short_plain_text_only() {
        assert_eq!(snippet(b"Bad Gateway\n"), "Bad Gateway");
        assert_eq!(snippet(b"<html>oops</html>"), "");
        assert_eq!(snippet(br#"{"x":1}"#), "");
        assert_eq!(snippet("a".repeat(300).as_bytes()).chars().count(), 201);
    }
}
