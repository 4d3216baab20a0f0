//! What an accepted token's claims say about its holder.

use serde_json::{Map, Value};

use super::VerifiedToken;

impl VerifiedToken {
    /// Maps the claims of an accepted token; `username` only when the claims come from an
    /// introspection response, the one source that defines it (RFC 7662 §2.2).
    pub(super) fn from_claims(claims: Map<String, Value>, with_username: bool) -> Self {
        let text = |name: &str| match claims.get(name) {
            Some(Value::String(value)) if !value.is_empty() => Some(value.clone()),
            _ => None,
        };
        let strings = |value: &Value| match value {
            Value::String(one) => split_spaces(one),
            Value::Array(items) => items
                .iter()
                .filter_map(Value::as_str)
                .filter(|item| !item.is_empty())
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        let scopes = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(scope)), _) => split_spaces(scope),
            (_, Some(scp)) => strings(scp),
            (_, None) => Vec::new(),
        };
        let audience = match claims.get("aud") {
            Some(Value::String(one)) if !one.is_empty() => vec![one.clone()],
            Some(list @ Value::Array(_)) => strings(list),
            _ => Vec::new(),
        };
        Self {
            issuer: text("iss"),
            subject: text("sub"),
            username: if with_username {
                text("username")
            } else {
                None
            },
            client_id: text("client_id").or_else(|| text("azp")),
            audience,
            scopes,
            claims,
        }
    }
}

fn split_spaces(value: &str) -> Vec<String> {
    value
        .split(' ')
        .filter(|part| !part.is_empty())
        .map(str::to_owned)
        .collect()
}
