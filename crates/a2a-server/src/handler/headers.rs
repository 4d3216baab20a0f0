//! [`RequestHeaders`]: the headers of a request as hooks and executors read them, with the
//! credentials the server checks taken out.

use std::fmt;
use std::sync::Arc;

use a2a_types::AgentCard;
use a2a_types::card::{ApiKeyLocation, SecuritySchemeKind};
use http::header::{self, HeaderMap, HeaderName, HeaderValue};

/// The request's headers (or gRPC metadata), read-only, without its credentials:
/// `Authorization`, `Proxy-Authorization`, every header an API-key scheme of the card
/// names, and every cookie such a scheme names (the other cookies stay, so a session cookie
/// can say who the caller is). The authenticated caller is
/// [`CallContext::caller`](super::CallContext::caller); these are for what else a request
/// carries: a session, a trace tag, the caller id a gateway forwards.
///
/// Cloning is cheap (the map is shared). `Debug` shows the header names, never their values.
///
/// ```
/// use a2a_server::handler::RequestHeaders;
/// use http::HeaderMap;
///
/// let mut map = HeaderMap::new();
/// map.insert("authorization", "Bearer secret".parse().unwrap());
/// map.insert("cookie", "session=s-1; theme=dark".parse().unwrap());
/// map.insert("x-kubemq-caller-id", "alice".parse().unwrap());
/// let headers = RequestHeaders::from_map(&map);
/// assert_eq!(headers.get("authorization"), None);
/// assert_eq!(headers.cookie("session"), Some("s-1"));
/// assert_eq!(headers.get("X-KubeMQ-Caller-ID"), Some("alice"));
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct RequestHeaders {
    map: Arc<HeaderMap>,
}

/// The headers and cookies that carry credentials for `card`'s schemes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CredentialNames {
    headers: Vec<HeaderName>,
    cookies: Vec<String>,
}

impl CredentialNames {
    /// `Authorization` and `Proxy-Authorization`, and the header or cookie of each API-key
    /// scheme of `cards`.
    pub(crate) fn of<'a>(cards: impl IntoIterator<Item = &'a AgentCard>) -> Self {
        let mut names = Self {
            headers: vec![header::AUTHORIZATION, header::PROXY_AUTHORIZATION],
            cookies: Vec::new(),
        };
        let keys = cards
            .into_iter()
            .flat_map(|card| card.security_schemes.values())
            .filter_map(|scheme| match &scheme.scheme {
                SecuritySchemeKind::ApiKey(key) => Some(key),
                SecuritySchemeKind::HttpAuth(_)
                | SecuritySchemeKind::OAuth2(_)
                | SecuritySchemeKind::OpenIdConnect(_)
                | SecuritySchemeKind::MutualTls(_) => None,
            });
        for key in keys {
            match key.location {
                ApiKeyLocation::Header => {
                    if let Ok(name) = HeaderName::from_bytes(key.name.trim().as_bytes())
                        && !names.headers.contains(&name)
                    {
                        names.headers.push(name);
                    }
                }
                ApiKeyLocation::Cookie => names.cookies.push(key.name.trim().to_owned()),
                // A key in the query string is not a header.
                ApiKeyLocation::Query => {}
                _ => {}
            }
        }
        names
    }
}

impl RequestHeaders {
    /// `map` without `Authorization` and `Proxy-Authorization`, for hooks and executors
    /// run in-process and for tests.
    #[must_use]
    pub fn from_map(map: &HeaderMap) -> Self {
        Self::without_credentials(map, &CredentialNames::of([]))
    }

    /// `map` without the credentials `names` lists.
    pub(crate) fn without_credentials(map: &HeaderMap, names: &CredentialNames) -> Self {
        let mut kept = HeaderMap::with_capacity(map.len());
        for (name, value) in map {
            if names.headers.contains(name) {
                continue;
            }
            if name == header::COOKIE && !names.cookies.is_empty() {
                if let Some(value) = without_cookies(value, &names.cookies) {
                    kept.append(name.clone(), value);
                }
                continue;
            }
            kept.append(name.clone(), value.clone());
        }
        Self {
            map: Arc::new(kept),
        }
    }

    /// The first value of the header `name` (any case), when it is text.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(name).and_then(|value| value.to_str().ok())
    }

    /// Every value of the header `name` (any case) that is text, in order.
    pub fn get_all(&self, name: &str) -> impl Iterator<Item = &str> {
        self.map
            .get_all(name)
            .into_iter()
            .filter_map(|value| value.to_str().ok())
    }

    /// The value of the cookie `name` (case-sensitive, as cookie names are), from any
    /// `Cookie` header.
    #[must_use]
    pub fn cookie(&self, name: &str) -> Option<&str> {
        self.get_all("cookie")
            .flat_map(|line| line.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(cookie, _)| *cookie == name)
            .map(|(_, value)| value.trim_matches('"'))
    }

    /// The headers, as a map to read.
    #[must_use]
    pub fn as_map(&self) -> &HeaderMap {
        &self.map
    }

    /// True when the request carried no header besides its credentials.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The `Cookie` line without the cookies in `removed`; `None` when nothing is left.
fn without_cookies(value: &HeaderValue, removed: &[String]) -> Option<HeaderValue> {
    let text = value.to_str().ok()?;
    let kept: Vec<&str> = text
        .split(';')
        .map(str::trim)
        .filter(|pair| !pair.is_empty())
        .filter(|pair| {
            let name = pair.split_once('=').map_or(*pair, |(name, _)| name);
            !removed.iter().any(|removed| removed == name.trim())
        })
        .collect();
    if kept.is_empty() {
        return None;
    }
    HeaderValue::from_str(&kept.join("; ")).ok()
}

impl fmt::Debug for RequestHeaders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.map.keys()).finish()
    }
}

#[cfg(test)]
mod tests {
    use a2a_types::card::SecurityScheme;

    use super::*;

    #[test]
    fn the_cards_api_key_header_and_cookie_are_taken_out_and_the_rest_kept() {
        let mut card = AgentCard::new("a", "b", "1");
        card.security_schemes.insert(
            "key".into(),
            SecurityScheme::api_key(ApiKeyLocation::Header, "X-Team-Key"),
        );
        card.security_schemes.insert(
            "cookie-key".into(),
            SecurityScheme::api_key(ApiKeyLocation::Cookie, "api_key"),
        );
        let mut map = HeaderMap::new();
        map.insert("x-team-key", HeaderValue::from_static("k"));
        map.insert("proxy-authorization", HeaderValue::from_static("Basic x"));
        map.insert("cookie", HeaderValue::from_static("api_key=k; session=s-1"));
        map.insert("x-trace", HeaderValue::from_static("t"));
        let headers = RequestHeaders::without_credentials(&map, &CredentialNames::of([&card]));
        assert_eq!(headers.get("x-team-key"), None);
        assert_eq!(headers.get("proxy-authorization"), None);
        assert_eq!(headers.cookie("api_key"), None);
        assert_eq!(headers.cookie("session"), Some("s-1"));
        assert_eq!(headers.get("X-Trace"), Some("t"));
        assert_eq!(format!("{headers:?}"), r#"{"cookie", "x-trace"}"#);
        let mut only_key = HeaderMap::new();
        only_key.insert("cookie", HeaderValue::from_static("api_key=k"));
        let headers = RequestHeaders::without_credentials(&only_key, &CredentialNames::of([&card]));
        assert!(headers.is_empty());
    }
}
