//! The axum router: which request goes to the card, a JSON-RPC endpoint or an HTTP+JSON
//! endpoint. Axum only sees each endpoint's prefix; the rest of the path is matched here.

use std::collections::BTreeSet;
use std::sync::Arc;

use a2a_types::A2aError;
use axum::extract::Request;
use axum::response::{IntoResponse as _, Response};
use axum::routing::any;
use http::StatusCode;

use a2a_types::jsonrpc::RequestId;
use http::request::Parts;

use super::call::Authenticated;
use super::response::{self, RestErrors};
use super::state::Bindings;
use super::{BindingKind, Endpoint, RouterOptions, jsonrpc, media, rest, v03};
use crate::auth::AuthFailure;
use crate::handler::RequestHandler;
use crate::health::{self, Probe};

/// The router for `endpoints` and the card.
pub(super) fn build(
    handler: RequestHandler,
    endpoints: &[Endpoint],
    options: &RouterOptions,
) -> axum::Router {
    let bindings = Arc::new(Bindings::new(handler, endpoints, options));
    let mut patterns = BTreeSet::new();
    patterns.insert(health::HEALTHZ_PATH.to_owned());
    patterns.insert(health::READYZ_PATH.to_owned());
    if bindings.metrics.is_some() {
        patterns.insert(METRICS_PATH.to_owned());
    }
    patterns.insert(escape(&bindings.card_path));
    if let Some(jwks) = &bindings.jwks {
        patterns.insert(escape(&jwks.path));
    }
    for endpoint in endpoints {
        let path = escape(&endpoint.path);
        let base = path.trim_end_matches('/');
        patterns.insert(path.clone());
        match endpoint.binding {
            // JSON-RPC: the path and the path with a trailing `/`.
            BindingKind::JsonRpc => {
                patterns.insert(format!("{base}/"));
            }
            BindingKind::HttpJson => {
                patterns.insert(format!("{base}/"));
                patterns.insert(format!("{base}/{{*a2a_operation_path}}"));
            }
        }
    }
    let mut router = axum::Router::new();
    // A card URL may have a path segment that starts with `:` or `*`, which axum refuses
    // by default (its 0.7 migration check); here they are literal text.
    if patterns.iter().any(|pattern| {
        pattern
            .split('/')
            .any(|segment| segment.starts_with([':', '*']))
    }) {
        router = router.without_v07_checks();
    }
    for pattern in patterns {
        let bindings = Arc::clone(&bindings);
        router = router.route(
            &pattern,
            any(move |request: Request| {
                let bindings = Arc::clone(&bindings);
                async move { dispatch(&bindings, request).await }
            }),
        );
    }
    router
}

/// Where the metrics page is served, when it is.
pub(crate) const METRICS_PATH: &str = "/metrics";

/// Sends a request to its route. Reads of `/healthz` and `/readyz` win over everything,
/// unauthenticated (an HTTP+JSON endpoint at `/` would read them as tenants); the card wins
/// for reads of its path; then JSON-RPC endpoints, which own exactly their path; then
/// HTTP+JSON endpoints, by prefix. The card is public, and so is the push signer's key set,
/// which owns its path; every endpoint request is authenticated first, before its body is
/// read.
async fn dispatch(bindings: &Bindings, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    match health::probe(request.method(), &path) {
        Some(Probe::Live) => return health::live_response(),
        Some(Probe::Ready) => return health::ready_response(bindings.handler.readiness().await),
        None => {}
    }
    if let Some(render) = &bindings.metrics
        && path == METRICS_PATH
        && request.method() == http::Method::GET
    {
        return (
            [(
                http::header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            render.render(),
        )
            .into_response();
    }
    if let Some(jwks) = &bindings.jwks
        && path == jwks.path
    {
        return jwks.serve(&request);
    }
    let is_card = path == bindings.card_path;
    if is_card && super::card::is_read(request.method()) {
        return bindings.card.serve(&request);
    }
    let jsonrpc_endpoint = bindings.endpoints.iter().find(|endpoint| {
        endpoint.binding == BindingKind::JsonRpc && owns_exactly(&endpoint.path, &path)
    });
    if jsonrpc_endpoint.is_none() && is_card {
        return bindings.card.serve(&request);
    }
    // The most specific endpoint wins: `/rest/v2/tasks` belongs to `/rest/v2`, not to
    // `/rest` with tenant `v2`.
    let rest_endpoint = bindings
        .endpoints
        .iter()
        .filter(|endpoint| endpoint.binding == BindingKind::HttpJson)
        .filter_map(|endpoint| Some((endpoint, remainder(&endpoint.path, &path)?)))
        .max_by_key(|(endpoint, _)| endpoint.path.len());
    if jsonrpc_endpoint.is_none() && rest_endpoint.is_none() {
        // Only reachable through a pattern no endpoint owns, which `build` does not make;
        // still an A2A-shaped answer rather than a panic.
        let errors = RestErrors {
            negotiated: media::negotiate(request.headers()),
            profile: bindings.profile,
            instance: &path,
        };
        return errors.response_with_status(
            &A2aError::method_not_found(&path),
            StatusCode::NOT_FOUND.as_u16(),
        );
    }
    let (mut parts, body) = request.into_parts();
    match bindings.handler.authenticator().authenticate(&parts).await {
        Ok(Some(caller)) => {
            parts.extensions.insert(Authenticated(caller));
        }
        Ok(None) => {}
        Err(failure) => {
            let v03_rest = jsonrpc_endpoint.is_none()
                && rest_endpoint.as_ref().is_some_and(|(_, rest)| {
                    v03::wants_rest(bindings, rest, &parts.headers, &parts.uri)
                });
            return refuse(
                bindings,
                &parts,
                jsonrpc_endpoint.is_some(),
                v03_rest,
                failure,
            );
        }
    }
    let request = Request::from_parts(parts, body);
    match (jsonrpc_endpoint, rest_endpoint) {
        (Some(endpoint), _) => jsonrpc::serve(bindings, endpoint, request).await,
        (None, Some((endpoint, rest))) => rest::serve(bindings, endpoint, rest, request).await,
        (None, None) => response::empty(StatusCode::NOT_FOUND),
    }
}

/// The answer to a request authentication refused: 401 (or 403 for a missing
/// scope) with `WWW-Authenticate`, the body in the binding's error shape. The request's
/// id is not known, as its body is never read.
fn refuse(
    bindings: &Bindings,
    parts: &Parts,
    jsonrpc: bool,
    v03_rest: bool,
    failure: AuthFailure,
) -> Response {
    let mut response = if jsonrpc {
        response::jsonrpc_error_with_status(RequestId::Null, &failure.error, failure.status)
    } else if v03_rest {
        // A v0.3 REST path: the v0.3 error body (JSON-RPC's codes agree for these errors).
        v03::rest_refusal(&failure.error, failure.status)
    } else {
        let errors = RestErrors {
            negotiated: media::negotiate(&parts.headers),
            profile: bindings.profile,
            instance: parts.uri.path(),
        };
        errors.response_with_status(&failure.error, failure.status.as_u16())
    };
    for challenge in failure.challenges {
        response
            .headers_mut()
            .append(http::header::WWW_AUTHENTICATE, challenge);
    }
    response
}

/// `path` is the endpoint's path, or that path with a trailing `/`.
fn owns_exactly(endpoint: &str, path: &str) -> bool {
    path == endpoint || path.strip_suffix('/') == Some(endpoint)
}

/// What follows the endpoint's path, without the separating `/`; `None` when the path is not
/// under the endpoint.
fn remainder<'a>(endpoint: &str, path: &'a str) -> Option<&'a str> {
    if endpoint == "/" {
        return path.strip_prefix('/');
    }
    let rest = path.strip_prefix(endpoint)?;
    if rest.is_empty() {
        Some(rest)
    } else {
        rest.strip_prefix('/')
    }
}

/// Axum reads `{` and `}` as parameter markers; in a card URL they are literal.
fn escape(path: &str) -> String {
    path.replace('{', "{{").replace('}', "}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_paths_own_their_subpaths() {
        assert!(owns_exactly("/a2a", "/a2a"));
        assert!(owns_exactly("/a2a", "/a2a/"));
        assert!(owns_exactly("/", "/"));
        assert!(!owns_exactly("/a2a", "/a2a/x"));
        assert_eq!(remainder("/rest", "/rest/tasks/t1"), Some("tasks/t1"));
        assert_eq!(remainder("/rest", "/rest"), Some(""));
        assert_eq!(remainder("/rest", "/restx/tasks"), None);
        assert_eq!(remainder("/", "/tasks"), Some("tasks"));
        assert_eq!(escape("/a{b}"), "/a{{b}}");
    }
}
