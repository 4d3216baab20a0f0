//! Reading answers: the error a non-2xx answer carries, and decoding a JSON value.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ClientError;

/// The error of a non-2xx answer: an A2A error when the body is one of the A2A error formats
/// (JSON-RPC error, `google.rpc.Status`, RFC 9457 problem, legacy `{"error","message"}`),
/// else a plain HTTP error. A 3xx is an error too: redirects are never followed.
pub(crate) fn error_from_answer(status: u16, location: Option<&str>, body: &[u8]) -> ClientError {
    if (300..400).contains(&status) {
        return ClientError::Redirect {
            status,
            location: location.map(strip_query),
        };
    }
    if is_error_body(body) {
        ClientError::Agent(a2a_types::A2aError::from_http_body(status, body))
    } else {
        ClientError::http(status, body)
    }
}

/// Whether `body` is JSON in one of the A2A error formats.
fn is_error_body(body: &[u8]) -> bool {
    let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    let has = |member: &str| object.contains_key(member);
    let problem =
        (has("type") || has("title")) && (has("status") || has("detail") || has("details"));
    has("error") || has("jsonrpc") || problem
}

fn strip_query(location: &str) -> String {
    location
        .split(['?', '#'])
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Decodes `value` as `T`, naming `what` on failure.
pub(crate) fn decode_value<T: DeserializeOwned>(
    what: &str,
    value: Value,
) -> Result<T, ClientError> {
    a2a_types::json::from_value(value).map_err(|error| ClientError::decode(what, error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_are_recognised_in_every_format() {
        let status = br#"{"error":{"code":404,"status":"NOT_FOUND","message":"no","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
        let problem = br#"{"type":"https://a2a-protocol.org/errors/task-not-cancelable","title":"x","status":409}"#;
        let legacy = br#"{"error":"TaskNotFoundError","message":"gone"}"#;
        for (body, kind) in [
            (&status[..], a2a_types::ErrorKind::TaskNotFound),
            (&problem[..], a2a_types::ErrorKind::TaskNotCancelable),
            (&legacy[..], a2a_types::ErrorKind::TaskNotFound),
        ] {
            let error = error_from_answer(404, None, body);
            assert_eq!(
                error.kind(),
                Some(kind),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        assert!(matches!(
            error_from_answer(502, None, b"Bad Gateway"),
            ClientError::Http { status: 502, .. }
        ));
        assert!(matches!(
            error_from_answer(404, None, br#"{"detail":"Not Found"}"#),
            ClientError::Http { status: 404, .. }
        ));
        assert!(matches!(
            error_from_answer(302, Some("https://x/y?token=1"), b""),
            ClientError::Redirect { status: 302, location: Some(location) } if location == "https://x/y"
        ));
    }
}
