//! Interface paths: normalising and joining them, reading them from interface URLs, and the
//! router over every endpoint.

use super::{Endpoint, RouterOptions, routes};
use crate::handler::RequestHandler;

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
