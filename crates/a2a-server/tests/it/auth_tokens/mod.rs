//! Token verification with real signed tokens: JWTs against a JWKS served
//! over HTTP, found directly or through OpenID Connect discovery, and opaque tokens checked
//! by RFC 7662 introspection.

mod fuzz;
mod idp;
mod introspection;
mod jwt;
mod key_sources;
mod keys;

use std::time::Duration;

use a2a_server::auth::token::{JwksOptions, JwksSource, JwtConfig, JwtVerifier};
use serde_json::{Value, json};

use self::idp::Idp;
use self::keys::now;

const AUDIENCE: &str = "https://agent.example/a2a";

/// Claims a well-behaved issuer would put in an access token.
fn claims(issuer: &str) -> Value {
    json!({
        "iss": issuer,
        "sub": "user-42",
        "aud": [AUDIENCE, "https://other.example"],
        "azp": "web-app",
        "scope": "tasks:read tasks:write",
        "exp": now() + 300,
        "iat": now(),
    })
}

/// A verifier of tokens from `idp`, reading its JWKS directly.
fn verifier(idp: &Idp, options: JwksOptions) -> JwtVerifier {
    JwtVerifier::new(
        JwtConfig::new(JwksSource::Url(idp.url("/jwks")))
            .with_issuer(idp.issuer())
            .with_audience(AUDIENCE)
            .with_jwks_options(options),
    )
    .unwrap()
}

fn quick_cooldown(cooldown: Duration) -> JwksOptions {
    JwksOptions::default().with_refresh_cooldown(cooldown)
}
