//! The text of `a2a --version`: the crate's version, the git commit it was built from (see
//! `build.rs`) and the A2A protocol versions `a2a serve` answers.

use std::sync::LazyLock;

/// The git commit of the build, or `unknown` when it was built outside a checkout and not
/// from a packaged crate.
pub(crate) const COMMIT: &str = env!("A2A_GIT_COMMIT");

/// The earlier protocol version `a2a serve` answers beside the current one, unless
/// `--protocol-versions 1.0` turns it off.
const EARLIER_VERSION: &str = "0.3";

/// `0.1.0 (commit 0123456789ab; A2A 1.0, 0.3)`.
pub(crate) fn text() -> &'static str {
    static TEXT: LazyLock<String> = LazyLock::new(|| {
        format!(
            "{} (commit {COMMIT}; A2A {}, {})",
            env!("CARGO_PKG_VERSION"),
            a2a_types::PROTOCOL_VERSION,
            EARLIER_VERSION,
        )
    });
    TEXT.as_str()
}
