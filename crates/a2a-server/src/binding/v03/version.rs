//! Whether a request that names a v0.3 method speaks v0.3.

use crate::handler::RequestHandler;

/// Whether a request that names a v0.3 method (or REST path) is v0.3: it carries no
/// version (spec: a missing version is 0.3), or a 0.x one. A request that says 1.x and
/// uses a v0.3 name is left to the 1.0 binding, which refuses it as before.
pub(crate) fn speaks_v03(handler: &RequestHandler, version: Option<&str>) -> bool {
    handler.config().protocol_versions.v0_3
        && version
            .map(str::trim)
            .is_none_or(|version| version.is_empty() || version.starts_with("0."))
}
