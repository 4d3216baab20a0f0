//! Cross-origin resource sharing for browser clients: off by default; when on,
//! `tower_http::cors::CorsLayer` around the whole router answers preflights and marks
//! every response.
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

use http::header::{self, HeaderValue};
use http::{Method, Response};
use tower_http::cors::{AllowHeaders, AllowMethods, AllowOrigin, CorsLayer, Vary};
use tower_http::set_header::SetResponseHeaderLayer;

/// CORS settings; the defaults allow any origin, every method, the A2A headers and
/// `Authorization`, cached for an hour.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CorsConfig {
    /// `Access-Control-Allow-Origin`: `*` or a list of origins.
    pub allow_origins: Vec<String>,
    /// `Access-Control-Allow-Methods`.
    pub allow_methods: Vec<String>,
    /// `Access-Control-Allow-Headers`.
    pub allow_headers: Vec<String>,
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
                "Authorization",
            ]),
            max_age_secs: 3600,
            allow_credentials: false,
        }
    }
}

/// A [`CorsConfig`] turned into layers once, at build time.
#[derive(Debug)]
pub(crate) struct CorsPolicy {
    layer: CorsLayer,
    /// `Access-Control-Allow-Headers` as configured. tower-http would spell the names in
    /// lower case; operators see what they wrote.
    allow_headers: Option<HeaderValue>,
    /// Listed origins make the answer depend on the `Origin`, so caches must key on it
    /// even when it is refused.
    vary_origin: bool,
}

impl CorsPolicy {
    /// Prepares `config`'s layer. Entries that are not valid header text are skipped, and
    /// credentials next to a `*` are dropped (browsers refuse the pair), each with a warning.
    pub(crate) fn new(config: &CorsConfig) -> Self {
        let is_wildcard = |items: &[String]| items.iter().any(|item| item.trim() == "*");
        let any_origin = is_wildcard(&config.allow_origins);
        let origins = if any_origin {
            AllowOrigin::any()
        } else {
            let listed: Vec<HeaderValue> = config
                .allow_origins
                .iter()
                .filter_map(|origin| header_text("allow_origins", origin.trim()))
                .collect();
            AllowOrigin::predicate(move |origin: &HeaderValue, _| {
                listed
                    .iter()
                    .any(|known| known.as_bytes().eq_ignore_ascii_case(origin.as_bytes()))
            })
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
        let layer = CorsLayer::new()
            .allow_origin(origins)
            .allow_methods(methods)
            .allow_headers(AllowHeaders::list([]))
            .max_age(Duration::from_secs(config.max_age_secs))
            .allow_credentials(credentials)
            .vary(Vary::list([]));
        Self {
            layer,
            allow_headers,
            vary_origin: !any_origin,
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
        if self.vary_origin {
            router.layer(SetResponseHeaderLayer::appending(
                header::VARY,
                HeaderValue::from_static("Origin"),
            ))
        } else {
            router
        }
    }
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
