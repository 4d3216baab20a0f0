//! Cross-origin resource sharing for browser clients: off by default; when
//! on, a middleware around the whole router answers preflights and marks every response.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, StatusCode};

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

/// Which origins may read responses.
#[derive(Debug)]
enum AllowedOrigins {
    /// `*`.
    Any,
    /// Only these; the request's `Origin` is echoed when listed.
    Listed(Vec<HeaderValue>),
}

/// A [`CorsConfig`] turned into header values once, at build time.
#[derive(Debug)]
pub(crate) struct CorsPolicy {
    origins: AllowedOrigins,
    methods: HeaderValue,
    headers: HeaderValue,
    max_age: HeaderValue,
    credentials: bool,
}

impl CorsPolicy {
    /// Prepares `config`'s headers. Entries that are not valid header text are skipped and
    /// credentials next to a `*` origin are dropped (browsers refuse the pair), each with a
    /// warning.
    pub(crate) fn new(config: &CorsConfig) -> Self {
        let origins = if config
            .allow_origins
            .iter()
            .any(|origin| origin.trim() == "*")
        {
            AllowedOrigins::Any
        } else {
            AllowedOrigins::Listed(
                config
                    .allow_origins
                    .iter()
                    .filter_map(|origin| header_text("allow_origins", origin.trim()))
                    .collect(),
            )
        };
        let credentials = match origins {
            AllowedOrigins::Any if config.allow_credentials => {
                tracing::warn!(
                    "CORS allow_credentials is ignored: browsers refuse credentials with a `*` origin"
                );
                false
            }
            AllowedOrigins::Any | AllowedOrigins::Listed(_) => config.allow_credentials,
        };
        let list = |name: &str, items: &[String]| {
            let items: Vec<&str> = items
                .iter()
                .map(|item| item.trim())
                .filter(|item| header_text(name, item).is_some())
                .collect();
            HeaderValue::from_str(&items.join(", ")).unwrap_or(HeaderValue::from_static(""))
        };
        Self {
            origins,
            methods: list("allow_methods", &config.allow_methods),
            headers: list("allow_headers", &config.allow_headers),
            max_age: HeaderValue::from(config.max_age_secs),
            credentials,
        }
    }

    /// Wraps `router` so every path answers preflights and every response carries the
    /// headers, including the router's own 404s.
    pub(crate) fn apply(self: Arc<Self>, router: axum::Router) -> axum::Router {
        router.layer(axum::middleware::from_fn_with_state(self, cors))
    }

    /// The origin headers of a response to a request from `origin`.
    fn mark(&self, headers: &mut HeaderMap, origin: Option<&HeaderValue>) {
        match &self.origins {
            AllowedOrigins::Any => {
                headers.insert(
                    header::ACCESS_CONTROL_ALLOW_ORIGIN,
                    HeaderValue::from_static("*"),
                );
            }
            AllowedOrigins::Listed(listed) => {
                // The answer depends on the Origin, so caches must key on it even when it is
                // refused.
                headers.append(header::VARY, HeaderValue::from_static("Origin"));
                let Some(origin) = origin.filter(|origin| {
                    listed
                        .iter()
                        .any(|known| known.as_bytes().eq_ignore_ascii_case(origin.as_bytes()))
                }) else {
                    return;
                };
                headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
            }
        }
        if self.credentials {
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
                HeaderValue::from_static("true"),
            );
        }
    }

    /// The answer to a preflight: 200, empty body.
    fn preflight(&self, origin: Option<&HeaderValue>) -> Response {
        let mut response = Response::new(axum::body::Body::empty());
        *response.status_mut() = StatusCode::OK;
        let headers = response.headers_mut();
        self.mark(headers, origin);
        headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, self.methods.clone());
        headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, self.headers.clone());
        headers.insert(header::ACCESS_CONTROL_MAX_AGE, self.max_age.clone());
        response
    }
}

/// The middleware. Every OPTIONS request is taken as a preflight: A2A defines no OPTIONS
/// operation, so nothing behind it is lost.
async fn cors(State(policy): State<Arc<CorsPolicy>>, request: Request, next: Next) -> Response {
    let origin = request.headers().get(header::ORIGIN).cloned();
    if request.method() == Method::OPTIONS {
        return policy.preflight(origin.as_ref());
    }
    let mut response = next.run(request).await;
    policy.mark(response.headers_mut(), origin.as_ref());
    response
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
    use super::*;

    #[test]
    fn credentials_are_dropped_next_to_a_wildcard_origin_only() {
        let mut config = CorsConfig {
            allow_credentials: true,
            ..CorsConfig::default()
        };
        assert!(!CorsPolicy::new(&config).credentials);
        config.allow_origins = vec!["https://app.example".into()];
        assert!(CorsPolicy::new(&config).credentials);
    }

    #[test]
    fn listed_origins_are_echoed_and_others_get_no_allow_origin() {
        let config = CorsConfig {
            allow_origins: vec!["https://app.example".into(), "bad\norigin".into()],
            ..CorsConfig::default()
        };
        let policy = CorsPolicy::new(&config);
        let mut headers = HeaderMap::new();
        let listed = HeaderValue::from_static("https://APP.example");
        policy.mark(&mut headers, Some(&listed));
        assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], listed);
        assert_eq!(headers[header::VARY], "Origin");
        let mut headers = HeaderMap::new();
        policy.mark(
            &mut headers,
            Some(&HeaderValue::from_static("https://evil.example")),
        );
        assert!(!headers.contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));
        assert_eq!(headers[header::VARY], "Origin");
    }
}
