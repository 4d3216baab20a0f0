//! The [`CallContext`] of a gRPC call: service parameters from the metadata (`a2a-version`,
//! `a2a-extensions`; the `x-a2a-` names are accepted too), the caller authentication found,
//! and the tenant.

use std::sync::Arc;

use http::HeaderMap;

use crate::auth::CallerProfile;
use crate::handler::{CallContext, parse_extension_list};

const VERSION: [&str; 2] = ["a2a-version", "x-a2a-version"];
const EXTENSIONS: [&str; 2] = ["a2a-extensions", "x-a2a-extensions"];

/// The caller authentication found, kept in the request's extensions on its way from the
/// routes to the service.
#[derive(Debug, Clone)]
pub(super) struct Authenticated(pub(super) Arc<CallerProfile>);

/// The call as the metadata describes it, with the tenant the request names, else the one
/// the card gives the gRPC interface.
pub(super) fn call_context(
    metadata: &HeaderMap,
    caller: Option<&Authenticated>,
    request_tenant: &str,
    interface_tenant: &str,
) -> CallContext {
    let version = VERSION
        .into_iter()
        .flat_map(|name| metadata.get_all(name))
        .map(|value| String::from_utf8_lossy(value.as_bytes()).trim().to_owned())
        .find(|value| !value.is_empty());
    let extensions = EXTENSIONS
        .into_iter()
        .flat_map(|name| metadata.get_all(name))
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
    let mut call = CallContext {
        version,
        requested_extensions: parse_extension_list(extensions),
        ..CallContext::default()
    };
    call.tenant = if request_tenant.is_empty() {
        interface_tenant.to_owned()
    } else {
        request_tenant.to_owned()
    };
    match caller {
        Some(Authenticated(caller)) => call.with_caller(Arc::clone(caller)),
        None => call,
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    #[test]
    fn metadata_gives_version_extensions_and_the_tenant() {
        let mut metadata = HeaderMap::new();
        metadata.append("a2a-version", HeaderValue::from_static(" 1.0 "));
        metadata.append("a2a-extensions", HeaderValue::from_static("urn:a, urn:b"));
        metadata.append("x-a2a-extensions", HeaderValue::from_static("urn:b,urn:c"));
        let call = call_context(&metadata, None, "", "card-tenant");
        assert_eq!(call.version.as_deref(), Some("1.0"));
        assert_eq!(call.requested_extensions, ["urn:a", "urn:b", "urn:c"]);
        assert_eq!(call.tenant, "card-tenant");
        let call = call_context(&HeaderMap::new(), None, "mine", "card-tenant");
        assert_eq!(call.version, None);
        assert_eq!(call.tenant, "mine");
    }
}
