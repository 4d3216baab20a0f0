//! The JWS algorithms this crate signs and checks with, by name.

use jsonwebtoken::Algorithm;

/// The JWS algorithm `name` names, when it is one this crate signs or checks with: ES256,
/// ES384, EdDSA, RS256/384/512 and PS256/384/512. `none` and the HMAC family are not (a
/// shared secret cannot be published beside what it protects).
#[must_use]
pub fn algorithm(name: &str) -> Option<Algorithm> {
    Some(match name {
        "ES256" => Algorithm::ES256,
        "ES384" => Algorithm::ES384,
        "EdDSA" => Algorithm::EdDSA,
        "RS256" => Algorithm::RS256,
        "RS384" => Algorithm::RS384,
        "RS512" => Algorithm::RS512,
        "PS256" => Algorithm::PS256,
        "PS384" => Algorithm::PS384,
        "PS512" => Algorithm::PS512,
        _ => return None,
    })
}

/// The JWS name of `algorithm` (`"ES256"`, `"EdDSA"` …).
#[must_use]
pub fn algorithm_name(algorithm: Algorithm) -> &'static str {
    match algorithm {
        Algorithm::HS256 => "HS256",
        Algorithm::HS384 => "HS384",
        Algorithm::HS512 => "HS512",
        Algorithm::ES256 => "ES256",
        Algorithm::ES384 => "ES384",
        Algorithm::EdDSA => "EdDSA",
        Algorithm::RS256 => "RS256",
        Algorithm::RS384 => "RS384",
        Algorithm::RS512 => "RS512",
        Algorithm::PS256 => "PS256",
        Algorithm::PS384 => "PS384",
        Algorithm::PS512 => "PS512",
    }
}
