//! The names a push delivery carries on the wire.

/// The header carrying a delivery's detached JWS.
pub const SIGNATURE_HEADER: &str = "A2A-Notification-Signature";
/// The header carrying the push config's token.
pub const TOKEN_HEADER: &str = "A2A-Notification-Token";
/// The token header of v0.3 and the Python SDK, sent too.
pub const LEGACY_TOKEN_HEADER: &str = "X-A2A-Notification-Token";
/// The `typ` of the protected header.
pub const SIGNATURE_TYPE: &str = "a2a-push+jws";
/// Where an agent serves its push keys, relative to its base URL.
pub const JWKS_PATH: &str = "/.well-known/jwks.json";
