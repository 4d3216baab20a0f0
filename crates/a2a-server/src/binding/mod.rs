//! The HTTP bindings: JSON-RPC 2.0 and HTTP+JSON (REST) on axum, plus the agent card route.
//! Every route ends in the same [`RequestHandler`].

mod body;
mod call;
mod card;
mod decode;
mod dispatch;
mod jsonrpc;
mod jwks;
mod media;
mod response;
mod rest;
mod rest_query;
mod rest_route;
mod routes;
mod sse;

use a2a_types::error::RestStatusProfile;

use crate::handler::RequestHandler;

/// Where the public agent card is served by default (RFC 8615, spec §2.12).
pub use a2a_types::card::WELL_KNOWN_CARD_PATH;

/// The protocol binding of an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BindingKind {
    /// JSON-RPC 2.0 over HTTP POST.
    JsonRpc,
    /// HTTP+JSON (REST).
    HttpJson,
}

/// One served interface: a binding at a path (the card's interface URL, host ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The binding.
    pub binding: BindingKind,
    /// The path prefix, normalised: starts with `/`, no trailing `/` (except the root `/`).
    pub path: String,
    /// The interface's tenant, when the card names one.
    pub tenant: String,
}

/// Router-wide settings.
#[derive(Debug, Clone)]
pub(crate) struct RouterOptions {
    /// Where the public card is served.
    pub(crate) card_path: String,
    /// Request bodies larger than this are refused with PayloadTooLarge, never read in full;
    /// `ServerConfig::max_payload_size`.
    pub(crate) max_body_bytes: usize,
    /// HTTP statuses of errors on HTTP+JSON: `ServerConfig::rest_status_profile`.
    pub(crate) rest_status_profile: RestStatusProfile,
    /// Signs push deliveries; when set, its public keys are served at `jwks_path`.
    pub(crate) push_signer: Option<crate::push::signing::PushSigner>,
    /// Where the push signer's JWK Set is served: `/.well-known/jwks.json` under the base path.
    pub(crate) jwks_path: String,
}

/// `/a//b/` → `/a/b`; `""` → `/`.
pub(crate) fn normalize_path(path: &str) -> String {
    let joined: Vec<&str> = path
        .split('/')
        .filter(|segment| !segment.is_empty())
        .collect();
    format!("/{}", joined.join("/"))
}

/// Joins two normalised paths.
pub(crate) fn join_paths(base: &str, path: &str) -> String {
    normalize_path(&format!("{base}/{path}"))
}

/// The path of an interface URL: `https://host:8080/a2a/v1` → `/a2a/v1`; a bare path is
/// accepted as is. `None` when the text is neither.
pub(crate) fn url_path(url: &str) -> Option<String> {
    let url = url.trim();
    if url.starts_with('/') {
        return Some(normalize_path(
            url.split(['?', '#']).next().unwrap_or_default(),
        ));
    }
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if authority_end == 0 {
        return None;
    }
    let path = rest[authority_end..]
        .split(['?', '#'])
        .next()
        .unwrap_or_default();
    Some(normalize_path(path))
}

/// The router serving the card and every endpoint.
pub(crate) fn router(
    handler: RequestHandler,
    endpoints: &[Endpoint],
    options: &RouterOptions,
) -> axum::Router {
    routes::build(handler, endpoints, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_urls_give_their_paths() {
        let cases = [
            ("https://agent.example.com/a2a", Some("/a2a")),
            ("http://localhost:8080/a2a/v1/", Some("/a2a/v1")),
            ("http://localhost:8080", Some("/")),
            ("https://x.example/a?x=1", Some("/a")),
            ("/rest", Some("/rest")),
            ("grpc.example.com:443", None),
            ("https:///nohost", None),
        ];
        for (url, path) in cases {
            assert_eq!(url_path(url).as_deref(), path, "{url}");
        }
    }

    #[test]
    fn paths_join_without_doubled_slashes() {
        assert_eq!(join_paths("/", "/a2a"), "/a2a");
        assert_eq!(join_paths("/base/", "a2a/"), "/base/a2a");
        assert_eq!(normalize_path(""), "/");
    }
}
