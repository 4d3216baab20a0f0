//! The [`CallContext`] of an HTTP request: service parameters from the headers, or the query
//! string for the version (spec §6; the `X-A2A-` header names are accepted too), and the
//! tenant.

use std::sync::Arc;

use http::Extensions;
use http::HeaderMap;
use http::header::HeaderValue;

use crate::auth::CallerProfile;
use crate::handler::{CallContext, CredentialNames, RequestHeaders, parse_extension_list};

/// The version parameter's name, as a header and as a query parameter.
const VERSION: &str = "a2a-version";
/// The v0.3-era header name some clients still send (a2a-java's REST transport accepts it).
const X_VERSION: &str = "x-a2a-version";
const EXTENSIONS: &str = "a2a-extensions";
const X_EXTENSIONS: &str = "x-a2a-extensions";

/// The caller authentication found, kept in the request's extensions on its way from the
/// router to the binding.
#[derive(Debug, Clone)]
pub(super) struct Authenticated(pub(super) Arc<CallerProfile>);

/// The call as the request describes it (its headers, or gRPC metadata, and the caller the
/// routes authenticated); the tenant is left for the binding, which knows where it comes
/// from. The headers the call carries for hooks lose the credentials `credentials` names.
pub(super) fn call_context(
    headers: &HeaderMap,
    extensions: &Extensions,
    query: &[(String, String)],
    credentials: &CredentialNames,
) -> CallContext {
    let call = headers_context(headers, query)
        .with_headers(RequestHeaders::without_credentials(headers, credentials));
    match extensions.get::<Authenticated>() {
        Some(Authenticated(caller)) => call.with_caller(Arc::clone(caller)),
        None => call,
    }
}

/// The call as the headers and query describe it.
fn headers_context(headers: &HeaderMap, query: &[(String, String)]) -> CallContext {
    CallContext {
        version: version(headers, query),
        requested_extensions: parse_extension_list(
            [EXTENSIONS, X_EXTENSIONS]
                .into_iter()
                .flat_map(|name| headers.get_all(name))
                .map(header_text),
        ),
        activated_extensions: Vec::new(),
        tenant: String::new(),
        owner: None,
        caller: None,
        last_event_id: last_event_id(headers),
        headers: RequestHeaders::default(),
    }
}

/// The SSE `Last-Event-ID` a reconnecting client sends (our ids are event sequence numbers);
/// anything else is ignored, as the SSE specification asks of unknown ids.
fn last_event_id(headers: &HeaderMap) -> Option<u64> {
    headers
        .get("last-event-id")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse().ok())
}

/// The tenant of a request: the REST path's, else the request message's, else the one the
/// card names for the interface.
pub(super) fn resolve_tenant(path: Option<String>, request: &str, endpoint: &str) -> String {
    match path {
        Some(tenant) => tenant,
        None if !request.is_empty() => request.to_owned(),
        None => endpoint.to_owned(),
    }
}

/// The first non-empty version among `A2A-Version`, `X-A2A-Version` and the `A2A-Version`
/// query parameter (any case). An empty value counts as absent, as the spec reads it as 0.3.
fn version(headers: &HeaderMap, query: &[(String, String)]) -> Option<String> {
    let from_headers = [VERSION, X_VERSION]
        .into_iter()
        .flat_map(|name| headers.get_all(name))
        .map(header_text);
    let from_query = query
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case(VERSION))
        .map(|(_, value)| value.clone());
    from_headers
        .chain(from_query)
        .map(|value| value.trim().to_owned())
        .find(|value| !value.is_empty())
}

/// Header values are bytes; anything not UTF-8 is kept lossily so it still reaches the
/// version check (and fails it) rather than vanishing.
fn header_text(value: &HeaderValue) -> String {
    String::from_utf8_lossy(value.as_bytes()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn query(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn version_comes_from_either_header_then_the_query() {
        let cases = [
            (headers(&[("A2A-Version", "1.0")]), query(&[]), Some("1.0")),
            (
                headers(&[("x-a2a-version", "1.1")]),
                query(&[]),
                Some("1.1"),
            ),
            (headers(&[]), query(&[("a2a-version", "1.0")]), Some("1.0")),
            (
                headers(&[("A2A-Version", " ")]),
                query(&[("A2A-VERSION", "1.0")]),
                Some("1.0"),
            ),
            (
                headers(&[("A2A-Version", "0.3")]),
                query(&[("A2A-Version", "1.0")]),
                Some("0.3"),
            ),
            (headers(&[]), query(&[("version", "1.0")]), None),
        ];
        for (headers, query, expected) in cases {
            let call = headers_context(&headers, &query);
            assert_eq!(call.version.as_deref(), expected, "{headers:?} {query:?}");
        }
    }

    #[test]
    fn extension_header_lines_are_merged() {
        let map = headers(&[
            ("A2A-Extensions", "urn:a, urn:b"),
            ("a2a-extensions", "urn:b,urn:c"),
            ("X-A2A-Extensions", "urn:d"),
        ]);
        let call = headers_context(&map, &[]);
        assert_eq!(
            call.requested_extensions,
            ["urn:a", "urn:b", "urn:c", "urn:d"]
        );
        assert_eq!(call.owner, None);
    }

    #[test]
    fn the_path_tenant_wins_then_the_request_then_the_card() {
        assert_eq!(resolve_tenant(Some("p".into()), "r", "e"), "p");
        assert_eq!(resolve_tenant(None, "r", "e"), "r");
        assert_eq!(resolve_tenant(None, "", "e"), "e");
        assert_eq!(resolve_tenant(None, "", ""), "");
    }
}
