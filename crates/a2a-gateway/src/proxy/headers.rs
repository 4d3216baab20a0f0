//! Which headers cross the gateway, in each direction.

use http::header::{HeaderMap, HeaderName, HeaderValue};

/// The header that tells an agent who called, since it never sees the caller's credentials
/// (`Authorization` and cookies stay behind). A value sent by the client is replaced, never
/// forwarded.
pub const CALLER_ID_HEADER: &str = "x-kubemq-caller-id";

/// The request header naming the protocol version (v1.0).
pub(crate) const VERSION_HEADER: &str = "a2a-version";

/// Headers forwarded to the agent besides `X-*`.
const TO_AGENT: [&str; 4] = ["content-type", "accept", "a2a-version", "a2a-extensions"];

/// Headers relayed back to the client besides `X-*`.
const TO_CLIENT: [&str; 4] = [
    "content-type",
    "cache-control",
    "a2a-version",
    "a2a-extensions",
];

/// `X-*` headers that are never forwarded: the client's idea of its address, and the caller
/// id only the gateway may set. `Authorization`, `Cookie` and `Proxy-Authorization` are not
/// `X-*` and not listed, so they never pass either.
const STRIPPED: [&str; 2] = ["x-forwarded-for", CALLER_ID_HEADER];

/// The headers of a request to an agent: the client's `X-*` (less [`STRIPPED`]),
/// `Content-Type`, `Accept`, `A2A-Version` and `A2A-Extensions`, plus the caller id, and the
/// trace context of the gateway's span (the caller's, carried on, when nothing records spans).
pub(crate) fn to_agent(from_client: &HeaderMap, caller_id: &str) -> HeaderMap {
    let mut headers = filtered(from_client, &TO_AGENT);
    a2a_server::trace::forward(&tracing::Span::current(), from_client, &mut headers);
    match HeaderValue::from_str(caller_id) {
        Ok(value) => {
            headers.insert(HeaderName::from_static(CALLER_ID_HEADER), value);
        }
        // A token's subject is not guaranteed to be header text; say who, as best we can.
        Err(_) => {
            headers.insert(
                HeaderName::from_static(CALLER_ID_HEADER),
                HeaderValue::from_static("unprintable"),
            );
        }
    }
    headers
}

/// The agent's response headers a client sees: `X-*`, `Content-Type`, `Cache-Control`,
/// `A2A-Version` and `A2A-Extensions`. Cookies, hop-by-hop and auth challenges stay behind.
pub(crate) fn to_client(from_agent: &HeaderMap) -> HeaderMap {
    filtered(from_agent, &TO_CLIENT)
}

fn filtered(headers: &HeaderMap, listed: &[&str]) -> HeaderMap {
    let mut kept = HeaderMap::new();
    for (name, value) in headers {
        let name_text = name.as_str();
        let custom = name_text.starts_with("x-") && !STRIPPED.contains(&name_text);
        if custom || listed.contains(&name_text) {
            kept.append(name.clone(), value.clone());
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_forwarding_headers_are_stripped() {
        let mut incoming = HeaderMap::new();
        for (name, value) in [
            ("authorization", "Bearer secret"),
            ("cookie", "session=1"),
            ("proxy-authorization", "Basic x"),
            ("x-forwarded-for", "10.0.0.1"),
            ("x-kubemq-caller-id", "mallory"),
            ("x-request-id", "r-1"),
            ("content-type", "application/json"),
            ("accept", "text/event-stream"),
            ("a2a-version", "1.0"),
            ("a2a-extensions", "urn:x"),
            ("connection", "keep-alive"),
            ("host", "gateway"),
        ] {
            incoming.append(name, HeaderValue::from_static(value));
        }
        let outgoing = to_agent(&incoming, "alice");
        let mut names: Vec<&str> = outgoing.keys().map(HeaderName::as_str).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "a2a-extensions",
                "a2a-version",
                "accept",
                "content-type",
                "x-kubemq-caller-id",
                "x-request-id"
            ]
        );
        assert_eq!(outgoing[CALLER_ID_HEADER], "alice");
    }
}
