//! Whether the tests run in CI, where no test may be skipped for a missing peer.

/// True when the tests run in CI (`CI=true`), where nothing may be skipped: a test whose
/// peer (PostgreSQL, the Python SDK) is missing fails there instead of passing with a notice.
#[must_use]
pub fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value.eq_ignore_ascii_case("true") || value == "1")
}
