//! The examples of KubeMQ's A2A gateway error-handling guide (the seed, "Error Handling →
//! Examples"), which the gateway's own tests and the `a2a gateway` tests both send: its curl
//! requests byte for byte, its invalid requests, and its answers as it shows them.

use serde_json::{Value, json};

/// The seed's first curl: a v0.3 message to an agent nobody registered (`nonexistent-agent`).
pub const UNKNOWN_AGENT_CALL: &str = r#"{
    "jsonrpc": "2.0",
    "id": 1,
    "method": "message/send",
    "params": {"message": {"parts": [{"text": "Hello?"}]}}
  }"#;

/// The seed's curl to `slow-agent-01`, asking the gateway to give up after one second.
pub const SLOW_AGENT_CALL: &str = r#"{
    "jsonrpc": "2.0",
    "id": 1,
    "method": "message/send",
    "params": {
      "message": {"parts": [{"text": "This will timeout"}]},
      "configuration": {"timeout": 1}
    }
  }"#;

/// A well-formed v0.3 call, which the seed sends with a bad agent id or `Content-Type`.
pub const VALID_CALL: &str =
    r#"{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {}}"#;

/// One of the seed's invalid requests and the JSON-RPC error the gateway answers it with,
/// at HTTP 200, before any routing.
#[derive(Debug, Clone)]
pub struct InvalidRequest {
    /// What is wrong with it, for failure messages.
    pub what: &'static str,
    /// The agent id in the path (`POST /a2a/{agent_id}`).
    pub agent_id: &'static str,
    /// The request's `Content-Type`.
    pub content_type: &'static str,
    /// The request body.
    pub body: &'static str,
    /// The error code of the answer.
    pub code: i64,
    /// The answer's `id`: `null` for a request that cannot be read.
    pub id: Value,
}

/// The seed's invalid requests: bad envelopes, a bad `Content-Type` and a bad agent id.
#[must_use]
pub fn invalid_requests() -> [InvalidRequest; 5] {
    let request = |what, agent_id, content_type, body, code, id| InvalidRequest {
        what,
        agent_id,
        content_type,
        body,
        code,
        id,
    };
    [
        request(
            "invalid JSON",
            "echo-agent-01",
            "application/json",
            "{invalid json!!!}",
            -32700,
            Value::Null,
        ),
        request(
            "missing method",
            "echo-agent-01",
            "application/json",
            r#"{"jsonrpc": "2.0", "id": 1, "params": {}}"#,
            -32600,
            json!(1),
        ),
        request(
            "jsonrpc 1.0",
            "echo-agent-01",
            "application/json",
            r#"{"jsonrpc": "1.0", "id": 1, "method": "message/send", "params": {}}"#,
            -32600,
            json!(1),
        ),
        request(
            "Content-Type text/plain",
            "echo-agent-01",
            "text/plain",
            VALID_CALL,
            -32700,
            Value::Null,
        ),
        request(
            "upper-case agent id",
            "UPPERCASE-BAD",
            "application/json",
            VALID_CALL,
            -32600,
            json!(1),
        ),
    ]
}

/// `body` without the `ErrorInfo` the gateway adds under `error.data`, to compare with the
/// seed's output.
///
/// # Panics
/// When `body` holds no `error` object.
#[must_use]
pub fn as_the_seed_shows(body: &Value) -> Value {
    let mut body = body.clone();
    let Some(error) = body["error"].as_object_mut() else {
        panic!("the answer holds no error object");
    };
    error.remove("data");
    body
}
