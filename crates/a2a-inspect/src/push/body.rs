//! What a delivery's body and headers say: the JSON, the task it is about, secrets hidden.

use a2a_client::push::{self, LEGACY_TOKEN_HEADER, TOKEN_HEADER};
use http::{HeaderMap, header};
use serde_json::Value;

/// What a secret header's value is shown as.
pub(super) const REDACTED: &str = "<redacted>";

/// What a delivery is about.
#[derive(Default)]
pub(super) struct About {
    pub(super) task_id: Option<String>,
    pub(super) state: Option<String>,
}

/// The body as JSON (or text), what it is about, and why it is not a `StreamResponse`.
pub(super) fn read_body(body: &[u8]) -> (Value, About, Option<String>) {
    let json: Value = match serde_json::from_slice(body) {
        Ok(json) => json,
        Err(error) => {
            return (
                Value::String(String::from_utf8_lossy(body).into_owned()),
                About::default(),
                Some(format!("The body is not JSON: {error}.")),
            );
        }
    };
    let problem = push::decode_body(body)
        .err()
        .map(|error| format!("The body is not an A2A StreamResponse: {error}."));
    let about = about(&json);
    (json, about, problem)
}

/// The task and state a `StreamResponse` reports, read from its JSON as sent.
pub(super) fn about(json: &Value) -> About {
    let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
    if let Some(task) = json.get("task") {
        About {
            task_id: text(task.get("id")),
            state: text(task.pointer("/status/state")),
        }
    } else if let Some(update) = json.get("statusUpdate") {
        About {
            task_id: text(update.get("taskId")),
            state: text(update.pointer("/status/state")),
        }
    } else if let Some(update) = json.get("artifactUpdate") {
        About {
            task_id: text(update.get("taskId")),
            state: None,
        }
    } else if let Some(message) = json.get("message") {
        About {
            task_id: text(message.get("taskId")),
            state: None,
        }
    } else {
        About::default()
    }
}

/// The headers in order, with the values of the token, credential and cookie headers
/// replaced by `<redacted>`.
pub(super) fn redacted(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let secret = *name == header::AUTHORIZATION
                || *name == header::PROXY_AUTHORIZATION
                || *name == header::COOKIE
                || name.as_str().eq_ignore_ascii_case(TOKEN_HEADER)
                || name.as_str().eq_ignore_ascii_case(LEGACY_TOKEN_HEADER);
            let value = if secret {
                REDACTED.to_owned()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            };
            (name.as_str().to_owned(), value)
        })
        .collect()
}
