//! Cross-origin resource sharing for browser clients: off by default; when on,
//! `tower_http::cors::CorsLayer` around the whole router answers preflights and marks
//! every response. A page may send the credentials the card asks for (`Authorization`,
//! each API-key header of its schemes) and read the A2A response headers; a preflight from
//! an origin that is not listed is refused with 403.
//!
//! ```
//! use a2a_server::cors::CorsConfig;
//!
//! let mut cors = CorsConfig::default();
//! cors.allow_origins = vec!["https://app.example".into()];
//! cors.allow_credentials = true;
//! let mut config = a2a_server::ServerConfig::default();
//! config.cors = Some(cors);
//! ```

use std::sync::Arc;
use std::time::Duration;

use a2a_types::AgentCard;
use a2a_types::card::{ApiKeyLocation, SecuritySchemeKind};
use axum::extract::{Request, State};
use axum::middleware::Next;
use http::header::{self, HeaderName, HeaderValue};
use http::{Method, Response, StatusCode};
use tower_http::cors::{AllowHeaders, AllowMethods, AllowOrigin, CorsLayer, ExposeHeaders, Vary};
use tower_http::set_header::SetResponseHeaderLayer;

/// CORS settings; the defaults allow any origin, every method, the A2A headers,
/// `Last-Event-ID` and `Authorization`, expose the A2A headers, `WWW-Authenticate` and
/// `Retry-After`, and are cached for an hour. The server adds the header of each API-key
/// scheme of its card to `allow_headers`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CorsConfig {
    /// `Access-Control-Allow-Origin`: `*` or a list of origins.
    pub allow_origins: Vec<String>,
    /// `Access-Control-Allow-Methods`.
    pub allow_methods: Vec<String>,
    /// `Access-Control-Allow-Headers`.
    pub allow_headers: Vec<String>,
    /// `Access-Control-Expose-Headers`: response headers a page's script may read.
    pub expose_headers: Vec<String>,
    /// `Access-Control-Max-Age`, in seconds.
    pub max_age_secs: u64,
    /// `Access-Control-Allow-Credentials`; dropped with a warning next to a `*` origin.
    pub allow_credentials: bool,
}

impl Default for CorsConfig {
    fn default() -> Self {
        let list = |items: &[&str]| items.iter().map(|item| (*item).to_owned()).collect();
        Self {
            allow_origins: list(&["*"]),
            allow_methods: list(&[
                "GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "OPTIONS", "CONNECT", "PATCH",
            ]),
            allow_headers: list(&[
                "Origin",
                "Accept",
                "X-Requested-With",
                "Content-Type",
                "Access-Control-Request-Method",
                "Access-Control-Request-Headers",
                "A2A-Version",
                "A2A-Extensions",
                "Last-Event-ID",
                "Authorization",
            ]),
            expose_headers: list(&[
                "A2A-Version",
                "A2A-Extensions",
                "WWW-Authenticate",
                "Retry-After",
            ]),
            max_age_secs: 3600,
            allow_credentials: false,
        }
    }
}

impl CorsConfig {
    /// Allows the request header `name` too, unless it is allowed already (in any case).
    pub fn allow_header(&mut self, name: &str) {
        let name = name.trim();
        let known = self
            .allow_headers
            .iter()
            .any(|header| header.trim() == "*" || header.trim().eq_ignore_ascii_case(name));
        if !known && !name.is_empty() {
            self.allow_headers.push(name.to_owned());
        }
    }

    /// This configuration with the header of each of `card`'s API-key schemes allowed, so a
    /// page can send the key the card asks for.
    #[must_use]
    pub fn with_card_credentials(mut self, card: &AgentCard) -> Self {
        for scheme in card.security_schemes.values() {
            if let SecuritySchemeKind::ApiKey(key) = &scheme.scheme
                && key.location == ApiKeyLocation::Header
            {
                self.allow_header(&key.name);
            }
        }
        self
    }
}

/// A [`CorsConfig`] turned into layers once, at build time.
#[derive(Debug)]
pub(crate) struct CorsPolicy {
    layer: CorsLayer,
    /// `Access-Control-Allow-Headers` as configured. tower-http would spell the names in
    /// lower case; operators see what they wrote.
    allow_headers: Option<HeaderValue>,
    /// The origins allowed, when they are listed (`None`: any origin). Listed origins make
    /// the answer depend on the `Origin`, so caches must key on it even when it is refused.
    listed: Option<Arc<[HeaderValue]>>,
}

impl CorsPolicy {
    /// Prepares `config`'s layer. Entries that are not valid header text are skipped, and
    /// credentials next to a `*` are dropped (browsers refuse the pair), each with a warning.
    pub(crate) fn new(config: &CorsConfig) -> Self {
        let is_wildcard = |items: &[String]| items.iter().any(|item| item.trim() == "*");
        let any_origin = is_wildcard(&config.allow_origins);
        let listed: Option<Arc<[HeaderValue]>> = (!any_origin).then(|| {
            config
                .allow_origins
                .iter()
                .filter_map(|origin| header_text("allow_origins", origin.trim()))
                .collect()
        });
        let origins = match &listed {
            None => AllowOrigin::any(),
            Some(listed) => {
                let listed = Arc::clone(listed);
                AllowOrigin::predicate(move |origin: &HeaderValue, _| is_listed(&listed, origin))
            }
        };
        let any_method = is_wildcard(&config.allow_methods);
        let methods = if any_method {
            AllowMethods::any()
        } else {
            AllowMethods::list(config.allow_methods.iter().filter_map(|method| {
                let method = method.trim();
                let parsed = Method::from_bytes(method.as_bytes()).ok();
                if parsed.is_none() {
                    tracing::warn!(
                        setting = "allow_methods",
                        value = method,
                        "CORS entry skipped: not an HTTP method"
                    );
                }
                parsed
            }))
        };
        let any_header = is_wildcard(&config.allow_headers);
        let credentials = if config.allow_credentials && (any_origin || any_method || any_header) {
            tracing::warn!(
                "CORS allow_credentials is ignored: browsers refuse credentials with a `*` entry"
            );
            false
        } else {
            config.allow_credentials
        };
        let allow_headers: Vec<&str> = config
            .allow_headers
            .iter()
            .map(|item| item.trim())
            .filter(|item| header_text("allow_headers", item).is_some())
            .collect();
        let allow_headers = HeaderValue::from_str(&allow_headers.join(", "))
            .ok()
            .filter(|value| !value.is_empty());
        let expose: Vec<HeaderName> = config
            .expose_headers
            .iter()
            .filter_map(|name| {
                let parsed = HeaderName::from_bytes(name.trim().as_bytes()).ok();
                if parsed.is_none() {
                    tracing::warn!(
                        setting = "expose_headers",
                        value = name.as_str(),
                        "CORS entry skipped: not a header name"
                    );
                }
                parsed
            })
            .collect();
        let layer = CorsLayer::new()
            .allow_origin(origins)
            .allow_methods(methods)
            .allow_headers(AllowHeaders::list([]))
            .expose_headers(ExposeHeaders::list(expose))
            .max_age(Duration::from_secs(config.max_age_secs))
            .allow_credentials(credentials)
            .vary(Vary::list([]));
        Self {
            layer,
            allow_headers,
            listed,
        }
    }

    /// Wraps `router` so every path answers preflights (every OPTIONS request: A2A defines
    /// no OPTIONS operation, so nothing behind it is lost) and every response carries the
    /// headers, including the router's own 404s.
    pub(crate) fn apply(self: Arc<Self>, router: axum::Router) -> axum::Router {
        let allow_headers = self.allow_headers.clone();
        // Only preflight answers carry Access-Control-Allow-Methods.
        let on_preflight = move |response: &Response<axum::body::Body>| {
            response
                .headers()
                .contains_key(header::ACCESS_CONTROL_ALLOW_METHODS)
                .then(|| allow_headers.clone())
                .flatten()
        };
        let router =
            router
                .layer(self.layer.clone())
                .layer(SetResponseHeaderLayer::if_not_present(
                    header::ACCESS_CONTROL_ALLOW_HEADERS,
                    on_preflight,
                ));
        match &self.listed {
            Some(listed) => router
                .layer(axum::middleware::from_fn_with_state(
                    Arc::clone(listed),
                    refuse_unlisted_preflights,
                ))
                .layer(SetResponseHeaderLayer::appending(
                    header::VARY,
                    HeaderValue::from_static("Origin"),
                )),
            None => router,
        }
    }
}

/// True when `origin` is one of `listed`, in any case.
fn is_listed(listed: &[HeaderValue], origin: &HeaderValue) -> bool {
    listed
        .iter()
        .any(|known| known.as_bytes().eq_ignore_ascii_case(origin.as_bytes()))
}

/// A preflight (an OPTIONS request naming the method it asks for) from an origin that is not
/// listed is answered 403 with no CORS header, so the browser's refusal has a clear cause
/// in its network log; every other request goes on.
async fn refuse_unlisted_preflights(
    State(listed): State<Arc<[HeaderValue]>>,
    request: Request,
    next: Next,
) -> Response<axum::body::Body> {
    let headers = request.headers();
    let refused = request.method() == Method::OPTIONS
        && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
        && headers
            .get(header::ORIGIN)
            .is_some_and(|origin| !is_listed(&listed, origin));
    if refused {
        let mut response = Response::new(axum::body::Body::empty());
        *response.status_mut() = StatusCode::FORBIDDEN;
        return response;
    }
    next.run(request).await
}

/// `value` as a header value, or `None` with a warning naming the setting.
fn header_text(setting: &str, value: &str) -> Option<HeaderValue> {
    match HeaderValue::from_str(value) {
        Ok(value) if !value.is_empty() => Some(value),
        Ok(_) | Err(_) => {
            tracing::warn!(
                setting,
                value,
                "CORS entry skipped: not a valid header value"
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use tower::ServiceExt as _;

    use super::*;

    /// The response to a request from `origin` through `config`'s layers.
    async fn answer(
        config: &CorsConfig,
        method: Method,
        origin: &str,
    ) -> Response<axum::body::Body> {
        let router = Arc::new(CorsPolicy::new(config)).apply(axum::Router::new());
        let request = http::Request::builder()
            .method(method)
            .uri("/")
            .header(header::ORIGIN, origin)
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .body(axum::body::Body::empty())
            .unwrap_or_default();
        match router.oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }

    #[tokio::test]
    async fn credentials_are_dropped_next_to_a_wildcard_only() {
        let credentials = |response: Response<axum::body::Body>| {
            response
                .headers()
                .contains_key(header::ACCESS_CONTROL_ALLOW_CREDENTIALS)
        };
        let origin = "https://app.example";
        let mut config = CorsConfig {
            allow_credentials: true,
            ..CorsConfig::default()
        };
        assert!(!credentials(answer(&config, Method::OPTIONS, origin).await));
        config.allow_origins = vec![origin.into()];
        assert!(credentials(answer(&config, Method::OPTIONS, origin).await));
        config.allow_headers = vec!["*".into()];
        assert!(!credentials(answer(&config, Method::OPTIONS, origin).await));
    }

    #[tokio::test]
    async fn listed_origins_are_echoed_without_regard_to_case_and_others_are_not() {
        let config = CorsConfig {
            allow_origins: vec!["https://app.example".into(), "bad\norigin".into()],
            ..CorsConfig::default()
        };
        let listed = answer(&config, Method::GET, "https://APP.example").await;
        assert_eq!(
            listed.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "https://APP.example"
        );
        assert_eq!(listed.headers()[header::VARY], "Origin");
        let other = answer(&config, Method::GET, "https://evil.example").await;
        assert!(
            !other
                .headers()
                .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN)
        );
        assert_eq!(other.headers()[header::VARY], "Origin");
    }
}
