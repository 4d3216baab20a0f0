//! Cross-origin access for browser pages of the gateway's trusted origins.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, StatusCode};

/// Methods a trusted page may use: those of both bindings.
const ALLOWED_METHODS: &str = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

/// Headers a trusted page may send when its preflight names none.
const ALLOWED_HEADERS: &str = "Accept, Content-Type, Authorization, A2A-Version, A2A-Extensions";

/// Preflight answers may be cached this long, in seconds (an hour, as on the agent server).
const MAX_AGE: &str = "3600";

/// `routes` with CORS headers for `trusted_origins`; unchanged when the list is empty.
pub(crate) fn apply(routes: axum::Router, trusted_origins: &[String]) -> axum::Router {
    if trusted_origins.is_empty() {
        return routes;
    }
    let trusted = Arc::new(Trusted::new(trusted_origins));
    routes.layer(axum::middleware::from_fn_with_state(trusted, cors))
}

/// The trusted origins.
#[derive(Debug)]
enum Trusted {
    /// `*`: any origin.
    Any,
    /// These, compared without regard to case.
    Listed(Vec<String>),
}

impl Trusted {
    fn new(origins: &[String]) -> Self {
        if origins.iter().any(|origin| origin.trim() == "*") {
            Self::Any
        } else {
            Self::Listed(
                origins
                    .iter()
                    .map(|origin| origin.trim().trim_end_matches('/').to_owned())
                    .collect(),
            )
        }
    }

    fn allows(&self, origin: &HeaderValue) -> bool {
        match self {
            Self::Any => true,
            Self::Listed(listed) => origin.to_str().is_ok_and(|origin| {
                listed
                    .iter()
                    .any(|known| known.eq_ignore_ascii_case(origin))
            }),
        }
    }
}

async fn cors(State(trusted): State<Arc<Trusted>>, request: Request, next: Next) -> Response {
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .filter(|origin| trusted.allows(origin))
        .cloned();
    let is_preflight = request.method() == Method::OPTIONS
        && request
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    if is_preflight {
        let requested_headers = request
            .headers()
            .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
            .cloned();
        let mut response = Response::new(axum::body::Body::empty());
        *response.status_mut() = StatusCode::NO_CONTENT;
        let headers = response.headers_mut();
        mark(headers, origin.as_ref());
        if origin.is_some() {
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static(ALLOWED_METHODS),
            );
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                requested_headers.unwrap_or(HeaderValue::from_static(ALLOWED_HEADERS)),
            );
            headers.insert(
                header::ACCESS_CONTROL_MAX_AGE,
                HeaderValue::from_static(MAX_AGE),
            );
        }
        return response;
    }
    let mut response = next.run(request).await;
    mark(response.headers_mut(), origin.as_ref());
    response
}

/// `Vary: Origin` always, and the allowed origin when it is trusted.
fn mark(headers: &mut HeaderMap, trusted_origin: Option<&HeaderValue>) {
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
    if let Some(origin) = trusted_origin {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    }
}
