//! Bodies as the log shows them: pretty-printed, cut to size, secrets replaced.

use serde_json::Value;

/// Longest body text kept for one call (a larger body is cut, and says so).
pub(super) const MAX_BODY_CHARS: usize = 256 * 1024;

/// What a secret is shown as.
pub const REDACTED: &str = "<redacted>";

/// Headers that always carry secrets.
pub(super) const SECRET_HEADERS: [&str; 6] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
    "api-key",
];

/// Form and JSON members that carry secrets (OAuth token requests and answers).
pub(super) const SECRET_MEMBERS: [&str; 5] = [
    "client_secret",
    "access_token",
    "refresh_token",
    "id_token",
    "password",
];

/// `value` pretty-printed.
pub fn pretty_value(value: &Value) -> String {
    cut(serde_json::to_string_pretty(value).unwrap_or_default())
}

/// `bytes` as text, pretty-printed when JSON.
pub(super) fn pretty_bytes(bytes: &[u8]) -> String {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => pretty_value(&redact_json(value)),
        Err(_) => cut(String::from_utf8_lossy(bytes).into_owned()),
    }
}

pub(super) fn cut(mut text: String) -> String {
    if text.len() > MAX_BODY_CHARS {
        let mut end = MAX_BODY_CHARS;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("\n… (cut: the body is longer)");
    }
    text
}

/// `value` with the members that carry secrets redacted, at any depth.
pub(super) fn redact_json(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(name, value)| {
                    if SECRET_MEMBERS.contains(&name.as_str()) && value.is_string() {
                        (name, Value::from(REDACTED))
                    } else {
                        (name, redact_json(value))
                    }
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(redact_json).collect()),
        other => other,
    }
}

pub(super) fn redact_form(form: &str) -> String {
    form.split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if SECRET_MEMBERS.contains(&name) => format!("{name}={REDACTED}"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}
