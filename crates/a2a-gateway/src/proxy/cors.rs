//! Cross-origin access for browser pages of the gateway's trusted origins, through
//! `tower_http::cors::CorsLayer`.

use std::time::Duration;

use http::Method;
use http::header::{self, HeaderValue};
use tower_http::cors::{AllowHeaders, AllowMethods, AllowOrigin, CorsLayer, Vary};
use tower_http::set_header::SetResponseHeaderLayer;

/// Methods a trusted page may use: those of both bindings.
const ALLOWED_METHODS: [Method; 6] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
    Method::OPTIONS,
];

/// Preflight answers may be cached this long (an hour, as on the agent server).
const MAX_AGE: Duration = Duration::from_secs(3600);

/// `routes` with CORS headers for `trusted_origins` (`*` trusts any); unchanged when the
/// list is empty. A trusted origin is echoed, compared without regard to case; a preflight
/// is allowed the headers it asks for; every response says `Vary: Origin`.
pub(crate) fn apply(routes: axum::Router, trusted_origins: &[String]) -> axum::Router {
    if trusted_origins.is_empty() {
        return routes;
    }
    let origins = if trusted_origins.iter().any(|origin| origin.trim() == "*") {
        AllowOrigin::mirror_request()
    } else {
        let listed: Vec<String> = trusted_origins
            .iter()
            .map(|origin| origin.trim().trim_end_matches('/').to_owned())
            .collect();
        AllowOrigin::predicate(move |origin: &HeaderValue, _| {
            origin.to_str().is_ok_and(|origin| {
                listed
                    .iter()
                    .any(|known| known.eq_ignore_ascii_case(origin))
            })
        })
    };
    let cors = CorsLayer::new()
        .allow_origin(origins)
        .allow_methods(AllowMethods::list(ALLOWED_METHODS))
        .allow_headers(AllowHeaders::mirror_request())
        .max_age(MAX_AGE)
        // tower-http spells `origin` in lower case; the header below keeps our spelling.
        .vary(Vary::list([]));
    routes.layer(cors).layer(SetResponseHeaderLayer::appending(
        header::VARY,
        HeaderValue::from_static("Origin"),
    ))
}
