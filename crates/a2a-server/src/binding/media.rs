//! Media types of the HTTP+JSON binding: which request bodies are JSON (`application/a2a+json`
//! and `application/json`, any charset), and which content type and error format to answer
//! in.

use a2a_types::error::PROBLEM_JSON;
use a2a_types::{A2aError, ErrorKind};
use http::HeaderMap;
use http::header::{ACCEPT, CONTENT_TYPE};

/// `application/json`: JSON-RPC bodies, and accepted on HTTP+JSON.
pub(super) const APPLICATION_JSON: &str = "application/json";
/// `application/a2a+json`: the HTTP+JSON media type (spec §4.1).
pub(super) const A2A_JSON: &str = "application/a2a+json";

/// The two JSON media types an HTTP+JSON request may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JsonMedia {
    /// `application/json`.
    Json,
    /// `application/a2a+json`.
    A2aJson,
}

impl JsonMedia {
    pub(super) const fn as_str(self) -> &'static str {
        match self {
            Self::Json => APPLICATION_JSON,
            Self::A2aJson => A2A_JSON,
        }
    }

    fn from_essence(essence: &str) -> Option<Self> {
        if essence == APPLICATION_JSON {
            Some(Self::Json)
        } else if essence == A2A_JSON {
            Some(Self::A2aJson)
        } else {
            None
        }
    }
}

/// How to answer one HTTP+JSON request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Negotiated {
    /// The content type of success bodies; `google.rpc.Status` error bodies are always
    /// `application/json` (an error body is not an A2A document).
    pub(super) media: JsonMedia,
    /// Errors as RFC 9457 `application/problem+json` instead of `google.rpc.Status`.
    pub(super) problem: bool,
}

/// The request's `Content-Type` without parameters, lowercased; `None` when absent.
pub(super) fn content_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_TYPE)?;
    let text = String::from_utf8_lossy(value.as_bytes());
    Some(essence(&text))
}

/// Whether a `Content-Type` essence is one of the JSON types (any charset).
pub(super) fn is_json(essence: &str) -> bool {
    JsonMedia::from_essence(essence).is_some()
}

/// ContentTypeNotSupported when the request names a `Content-Type` that is not one of the
/// JSON types; both bindings check it before reading the body, so a body in another
/// format is refused for its type, not for failing to parse. A request that names no type
/// is read as JSON.
pub(super) fn check_request_type(headers: &HeaderMap) -> Result<(), A2aError> {
    match content_type(headers) {
        None => Ok(()),
        Some(essence) if is_json(&essence) => Ok(()),
        Some(essence) => Err(A2aError::new(
            ErrorKind::ContentTypeNotSupported,
            format!(
                "content type {essence} is not supported; send {A2A_JSON} or {APPLICATION_JSON}"
            ),
        )
        .with_metadata("mediaType", essence)),
    }
}

/// Answers in the JSON type the request body used; otherwise in the one `Accept` prefers,
/// `application/a2a+json` when it names neither. Errors are problem details only when
/// `Accept` names `application/problem+json` ahead of both JSON types.
pub(super) fn negotiate(headers: &HeaderMap) -> Negotiated {
    let accept: Vec<MediaRange> = headers
        .get_all(ACCEPT)
        .iter()
        .flat_map(|value| parse_accept(&String::from_utf8_lossy(value.as_bytes())))
        .enumerate()
        .map(|(index, mut range)| {
            range.index = index;
            range
        })
        .collect();
    let json = preference(&accept, APPLICATION_JSON);
    let a2a_json = preference(&accept, A2A_JSON);
    let media = content_type(headers)
        .and_then(|essence| JsonMedia::from_essence(&essence))
        .unwrap_or(match (json, a2a_json) {
            (Some(json), Some(a2a)) if json.explicit && json.beats(&a2a) => JsonMedia::Json,
            (Some(json), None) if json.explicit => JsonMedia::Json,
            _ => JsonMedia::A2aJson,
        });
    let best_json = match (json, a2a_json) {
        (Some(json), Some(a2a)) => Some(if json.beats(&a2a) { json } else { a2a }),
        (one, other) => one.or(other),
    };
    let problem = preference(&accept, PROBLEM_JSON).is_some_and(|problem| {
        problem.explicit && best_json.is_none_or(|json| problem.beats(&json))
    });
    Negotiated { media, problem }
}

/// One entry of an `Accept` header.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MediaRange {
    essence: String,
    /// The quality in thousandths (`q=0.5` → 500), so it compares exactly.
    quality: u16,
    index: usize,
}

/// How well `Accept` admits one media type: the quality of the most specific range that
/// matches it, and where that range was listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Preference {
    quality: u16,
    index: usize,
    /// Named exactly rather than through `*/*` or `application/*`.
    explicit: bool,
}

impl Preference {
    /// Higher quality wins; at equal quality the one listed first.
    fn beats(&self, other: &Self) -> bool {
        self.quality > other.quality || (self.quality == other.quality && self.index < other.index)
    }
}

fn preference(accept: &[MediaRange], media: &str) -> Option<Preference> {
    let kind = media.split('/').next().unwrap_or_default();
    let wildcard = format!("{kind}/*");
    let found = [media, wildcard.as_str(), "*/*"]
        .into_iter()
        .enumerate()
        .find_map(|(rank, pattern)| {
            accept
                .iter()
                .find(|range| range.essence == pattern)
                .map(|range| (rank, range))
        })?;
    let (rank, range) = found;
    (range.quality > 0).then_some(Preference {
        quality: range.quality,
        index: range.index,
        explicit: rank == 0,
    })
}

fn parse_accept(header: &str) -> Vec<MediaRange> {
    header
        .split(',')
        .filter(|item| !item.trim().is_empty())
        .map(|item| {
            let quality = item
                .split(';')
                .skip(1)
                .filter_map(|parameter| parameter.split_once('='))
                .find(|(name, _)| name.trim().eq_ignore_ascii_case("q"))
                .map_or(1000, |(_, value)| quality(value));
            MediaRange {
                essence: essence(item),
                quality,
                index: 0,
            }
        })
        .collect()
}

/// `q` values are `0`…`1` with up to three decimals; anything unreadable counts as 1.
fn quality(value: &str) -> u16 {
    match value.trim().parse::<f32>() {
        Ok(number) if number.is_finite() => (number.clamp(0.0, 1.0) * 1000.0).round() as u16,
        _ => 1000,
    }
}

fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use http::header::HeaderValue;

    use super::*;

    fn negotiated(content_type: Option<&'static str>, accept: Option<&'static str>) -> Negotiated {
        let mut headers = HeaderMap::new();
        if let Some(value) = content_type {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(value));
        }
        if let Some(value) = accept {
            headers.insert(ACCEPT, HeaderValue::from_static(value));
        }
        negotiate(&headers)
    }

    #[test]
    fn answers_in_the_type_the_request_used() {
        use JsonMedia::{A2aJson, Json};
        let cases = [
            (None, None, A2aJson),
            (Some("application/json; charset=utf-8"), None, Json),
            (
                Some("Application/A2A+JSON"),
                Some("application/json"),
                A2aJson,
            ),
            (Some("text/plain"), None, A2aJson),
            (None, Some("application/json"), Json),
            (
                None,
                Some("application/json;q=0.5, application/a2a+json"),
                A2aJson,
            ),
            (
                None,
                Some("application/a2a+json, application/json"),
                A2aJson,
            ),
            (None, Some("*/*"), A2aJson),
        ];
        for (content_type, accept, expected) in cases {
            assert_eq!(
                negotiated(content_type, accept).media,
                expected,
                "{content_type:?} {accept:?}"
            );
        }
    }

    #[test]
    fn problem_details_only_when_accept_prefers_them() {
        let cases = [
            (None, false),
            (Some("*/*"), false),
            (Some("application/problem+json"), true),
            (Some("application/problem+json, application/json"), true),
            (Some("application/json, application/problem+json"), false),
            (
                Some("application/json;q=0.5, application/problem+json"),
                true,
            ),
            (Some("application/problem+json;q=0.4, */*"), false),
            (Some("application/problem+json;q=0, */*"), false),
            (Some("application/*, application/problem+json"), false),
        ];
        for (accept, expected) in cases {
            assert_eq!(negotiated(None, accept).problem, expected, "{accept:?}");
        }
    }

    #[test]
    fn json_types_are_recognised_with_any_charset() {
        for value in [
            "application/json",
            "application/json; charset=UTF-8",
            "APPLICATION/A2A+JSON",
        ] {
            assert!(is_json(&essence(value)), "{value}");
        }
        for value in [
            "text/plain",
            "application/jsonl",
            "application/x-www-form-urlencoded",
        ] {
            assert!(!is_json(&essence(value)), "{value}");
        }
    }
}
