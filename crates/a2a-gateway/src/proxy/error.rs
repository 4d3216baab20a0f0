//! [`GatewayError`]: what the gateway itself refuses or fails, and its one mapping to each
//! wire form: JSON-RPC error, `google.rpc.Status` body, metrics outcome.

use std::collections::BTreeMap;

use a2a_types::error::{ErrorInfo, RpcStatus, RpcStatusBody};
use a2a_types::jsonrpc::JsonRpcError;
use http::StatusCode;
use serde_json::{Map, Value};

use crate::metrics::Outcome;

/// The `ErrorInfo.domain` of every error the gateway makes, so that clients can tell
/// them from an agent's own errors, which share the codes -32001…-32004.
pub const GATEWAY_DOMAIN: &str = "a2a-gateway";

/// An error made by the gateway, never by the agent: `executed` is always `"false"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GatewayError {
    /// The body is not JSON, or not declared as `application/json` (-32700).
    #[error("{reason}")]
    Parse { reason: String },
    /// Not an acceptable request: envelope, batch, size or agent id (-32600).
    #[error("{reason}")]
    InvalidRequest { reason: String },
    /// `params` is not an object or an array (-32602).
    #[error("{reason}")]
    InvalidParams { reason: String },
    /// The agent has no interface for this binding (-32601).
    #[error("{reason}")]
    MethodNotFound { reason: String },
    /// The bearer token is missing or refused (-32010).
    #[error("authentication failed: {reason}")]
    Unauthenticated { reason: String },
    /// No live agent has the id, including expired and deregistered ones (-32002).
    #[error("agent not found: {agent_id}")]
    AgentNotFound { agent_id: String },
    /// The deadline passed before the agent answered (-32001).
    #[error("agent timeout: {agent_id}")]
    Timeout { agent_id: String },
    /// Connection refused, DNS failure, broken connection (-32003).
    #[error("agent unreachable: {agent_id}")]
    Unreachable { agent_id: String },
    /// The agent answered 502, 503 or 504 (-32003).
    #[error("agent unavailable: {status}")]
    Unavailable { agent_id: String, status: u16 },
    /// The reply, or one stream event, is larger than `max_response_bytes` (-32003).
    #[error("agent response too large")]
    ResponseTooLarge { agent_id: String },
    /// The agent's concurrency limit is reached (-32003).
    #[error("server busy: concurrency limit reached")]
    Busy { agent_id: String },
    /// The reply is not a JSON-RPC response (-32004).
    #[error("invalid agent response: {reason}")]
    InvalidResponse { agent_id: String, reason: String },
    /// The gateway failed; the cause is logged where it happened (-32603).
    #[error("internal error")]
    Internal,
}

impl GatewayError {
    pub(crate) fn parse(reason: impl Into<String>) -> Self {
        Self::Parse {
            reason: reason.into(),
        }
    }

    pub(crate) fn invalid_request(reason: impl Into<String>) -> Self {
        Self::InvalidRequest {
            reason: reason.into(),
        }
    }

    pub(crate) fn invalid_response(agent_id: &str, reason: impl Into<String>) -> Self {
        Self::InvalidResponse {
            agent_id: agent_id.to_owned(),
            reason: reason.into(),
        }
    }

    /// The JSON-RPC `error.code`.
    pub(crate) const fn code(&self) -> i32 {
        match self {
            Self::Parse { .. } => -32700,
            Self::InvalidRequest { .. } => -32600,
            Self::MethodNotFound { .. } => -32601,
            Self::InvalidParams { .. } => -32602,
            Self::Internal => -32603,
            Self::Unauthenticated { .. } => -32010,
            Self::Timeout { .. } => -32001,
            Self::AgentNotFound { .. } => -32002,
            Self::Unreachable { .. }
            | Self::Unavailable { .. }
            | Self::ResponseTooLarge { .. }
            | Self::Busy { .. } => -32003,
            Self::InvalidResponse { .. } => -32004,
        }
    }

    /// The JSON-RPC `error.code` of KubeMQ's older gateway ([`ProxyConfig::legacy_codes`]):
    /// -32603 for busy, too large, unreachable and an agent's 500; -32001 for an agent's
    /// 504; the seed's code otherwise.
    ///
    /// [`ProxyConfig::legacy_codes`]: super::ProxyConfig::legacy_codes
    pub(crate) const fn legacy_code(&self) -> i32 {
        match self {
            Self::Busy { .. } | Self::ResponseTooLarge { .. } | Self::Unreachable { .. } => -32603,
            Self::Unavailable { status: 504, .. } => -32001,
            Self::Unavailable { status: 500, .. } => -32603,
            _ => self.code(),
        }
    }

    /// The `ErrorInfo.reason`.
    pub(crate) const fn reason(&self) -> &'static str {
        match self {
            Self::Parse { .. } => "PARSE_ERROR",
            Self::InvalidRequest { .. } => "INVALID_REQUEST",
            Self::MethodNotFound { .. } => "METHOD_NOT_FOUND",
            Self::InvalidParams { .. } => "INVALID_PARAMS",
            Self::Internal => "INTERNAL_ERROR",
            Self::Unauthenticated { .. } => "UNAUTHENTICATED",
            Self::Timeout { .. } => "AGENT_TIMEOUT",
            Self::AgentNotFound { .. } => "AGENT_NOT_FOUND",
            Self::Unreachable { .. } => "AGENT_UNREACHABLE",
            Self::Unavailable { .. } => "AGENT_UNAVAILABLE",
            Self::ResponseTooLarge { .. } => "AGENT_RESPONSE_TOO_LARGE",
            Self::Busy { .. } => "SERVER_BUSY",
            Self::InvalidResponse { .. } => "INVALID_AGENT_RESPONSE",
        }
    }

    /// The HTTP status and `google.rpc` status name on the HTTP+JSON routes.
    pub(crate) const fn http_status(&self) -> (StatusCode, &'static str) {
        match self {
            Self::Parse { .. } | Self::InvalidRequest { .. } | Self::InvalidParams { .. } => {
                (StatusCode::BAD_REQUEST, "INVALID_ARGUMENT")
            }
            Self::MethodNotFound { .. } | Self::AgentNotFound { .. } => {
                (StatusCode::NOT_FOUND, "NOT_FOUND")
            }
            Self::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL"),
            Self::Unauthenticated { .. } => (StatusCode::UNAUTHORIZED, "UNAUTHENTICATED"),
            Self::Timeout { .. } => (StatusCode::GATEWAY_TIMEOUT, "DEADLINE_EXCEEDED"),
            Self::Unreachable { .. } | Self::Unavailable { .. } => {
                (StatusCode::SERVICE_UNAVAILABLE, "UNAVAILABLE")
            }
            Self::Busy { .. } => (StatusCode::TOO_MANY_REQUESTS, "RESOURCE_EXHAUSTED"),
            Self::ResponseTooLarge { .. } | Self::InvalidResponse { .. } => {
                (StatusCode::BAD_GATEWAY, "INTERNAL")
            }
        }
    }

    /// The metrics outcome.
    pub(crate) const fn outcome(&self) -> Outcome {
        match self {
            Self::Parse { .. }
            | Self::InvalidRequest { .. }
            | Self::InvalidParams { .. }
            | Self::MethodNotFound { .. } => Outcome::InvalidRequest,
            Self::Internal => Outcome::Internal,
            Self::Unauthenticated { .. } => Outcome::Unauthenticated,
            Self::Timeout { .. } => Outcome::Timeout,
            Self::AgentNotFound { .. } => Outcome::AgentNotFound,
            Self::Unreachable { .. } => Outcome::Unreachable,
            Self::Unavailable { .. } => Outcome::Unavailable,
            Self::ResponseTooLarge { .. } => Outcome::ResponseTooLarge,
            Self::Busy { .. } => Outcome::Busy,
            Self::InvalidResponse { .. } => Outcome::InvalidResponse,
        }
    }

    /// The agent the error is about, when the request got that far.
    fn agent_id(&self) -> Option<&str> {
        match self {
            Self::AgentNotFound { agent_id }
            | Self::Timeout { agent_id }
            | Self::Unreachable { agent_id }
            | Self::Unavailable { agent_id, .. }
            | Self::ResponseTooLarge { agent_id }
            | Self::Busy { agent_id }
            | Self::InvalidResponse { agent_id, .. } => Some(agent_id),
            Self::Parse { .. }
            | Self::InvalidRequest { .. }
            | Self::InvalidParams { .. }
            | Self::MethodNotFound { .. }
            | Self::Unauthenticated { .. }
            | Self::Internal => None,
        }
    }

    /// The `ErrorInfo`: the gateway's domain, `executed = "false"` (the agent did not run the
    /// call), the agent's id and, for 50x answers, the agent's status.
    pub(crate) fn error_info(&self) -> ErrorInfo {
        let mut metadata = BTreeMap::from([("executed".to_owned(), "false".to_owned())]);
        if let Some(agent_id) = self.agent_id() {
            metadata.insert("agentId".to_owned(), agent_id.to_owned());
        }
        if let Self::Unavailable { status, .. } = self {
            metadata.insert("status".to_owned(), status.to_string());
        }
        ErrorInfo {
            reason: self.reason().to_owned(),
            domain: GATEWAY_DOMAIN.to_owned(),
            metadata,
        }
    }

    /// The JSON-RPC error object, `data` = `[ErrorInfo]`.
    pub(crate) fn to_jsonrpc_error(&self) -> JsonRpcError {
        JsonRpcError {
            code: self.code(),
            message: self.to_string(),
            data: Some(Value::Array(vec![self.error_info().to_any()])),
        }
    }

    /// The JSON-RPC error object, with the [`legacy_code`](Self::legacy_code) when `legacy`.
    pub(crate) fn to_jsonrpc_error_with(&self, legacy: bool) -> JsonRpcError {
        let mut error = self.to_jsonrpc_error();
        if legacy {
            error.code = self.legacy_code();
        }
        error
    }

    /// The HTTP+JSON error body (`google.rpc.Status`).
    pub(crate) fn to_status_body(&self) -> Value {
        let (status, name) = self.http_status();
        RpcStatusBody {
            error: RpcStatus {
                code: status.as_u16(),
                status: name.to_owned(),
                message: self.to_string(),
                details: vec![self.error_info().to_any()],
                extra: Map::new(),
            },
            extra: Map::new(),
        }
        .to_value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transport_errors_carry_the_seed_codes_and_messages() {
        let agent_id = || "echo-01".to_owned();
        let cases = [
            (
                GatewayError::Timeout {
                    agent_id: agent_id(),
                },
                -32001,
                "agent timeout: echo-01",
            ),
            (
                GatewayError::AgentNotFound {
                    agent_id: agent_id(),
                },
                -32002,
                "agent not found: echo-01",
            ),
            (
                GatewayError::Unreachable {
                    agent_id: agent_id(),
                },
                -32003,
                "agent unreachable: echo-01",
            ),
            (
                GatewayError::Unavailable {
                    agent_id: agent_id(),
                    status: 503,
                },
                -32003,
                "agent unavailable: 503",
            ),
            (
                GatewayError::ResponseTooLarge {
                    agent_id: agent_id(),
                },
                -32003,
                "agent response too large",
            ),
            (
                GatewayError::Busy {
                    agent_id: agent_id(),
                },
                -32003,
                "server busy: concurrency limit reached",
            ),
            (
                GatewayError::invalid_response("echo-01", "not JSON"),
                -32004,
                "invalid agent response: not JSON",
            ),
        ];
        for (error, code, message) in cases {
            let rpc = error.to_jsonrpc_error();
            assert_eq!((rpc.code, rpc.message.as_str()), (code, message));
            let info = error.error_info();
            assert_eq!(info.domain, GATEWAY_DOMAIN);
            assert_eq!(info.metadata["executed"], "false");
            assert_eq!(info.metadata["agentId"], "echo-01");
        }
    }

    #[test]
    fn legacy_codes_are_those_of_the_older_gateway() {
        let agent_id = || "a1".to_owned();
        let cases = [
            (
                GatewayError::Busy {
                    agent_id: agent_id(),
                },
                -32603,
            ),
            (
                GatewayError::ResponseTooLarge {
                    agent_id: agent_id(),
                },
                -32603,
            ),
            (
                GatewayError::Unreachable {
                    agent_id: agent_id(),
                },
                -32603,
            ),
            (
                GatewayError::Unavailable {
                    agent_id: agent_id(),
                    status: 500,
                },
                -32603,
            ),
            (
                GatewayError::Unavailable {
                    agent_id: agent_id(),
                    status: 504,
                },
                -32001,
            ),
            (
                GatewayError::Unavailable {
                    agent_id: agent_id(),
                    status: 503,
                },
                -32003,
            ),
            (
                GatewayError::Timeout {
                    agent_id: agent_id(),
                },
                -32001,
            ),
            (
                GatewayError::AgentNotFound {
                    agent_id: agent_id(),
                },
                -32002,
            ),
        ];
        for (error, code) in cases {
            let legacy = error.to_jsonrpc_error_with(true);
            assert_eq!(legacy.code, code, "{error}");
            assert_eq!(legacy.message, error.to_string());
            assert_eq!(error.to_jsonrpc_error_with(false), error.to_jsonrpc_error());
        }
    }

    #[test]
    fn the_status_body_is_a_google_rpc_status_with_error_info() {
        let body = GatewayError::Timeout {
            agent_id: "a1".into(),
        }
        .to_status_body();
        assert_eq!(body["error"]["code"], 504);
        assert_eq!(body["error"]["status"], "DEADLINE_EXCEEDED");
        assert_eq!(body["error"]["details"][0]["domain"], GATEWAY_DOMAIN);
    }
}
