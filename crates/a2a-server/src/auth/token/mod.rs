//! Bearer tokens issued by someone else: JWTs checked against a JWKS (found directly or
//! through OpenID Connect discovery) and opaque tokens checked by RFC 7662 introspection
//! What a verifier learns becomes the caller's profile.

mod claims;
mod http;
mod introspection;
mod jwks;
mod jwt;
mod oidc;
mod shared;

use std::fmt;

use serde_json::{Map, Value};

pub use self::introspection::{ClientAuthentication, IntrospectionConfig, Introspector};
pub use self::jwks::JwksOptions;
pub use self::jwt::{JwksSource, JwtConfig, JwtVerifier};
pub use jsonwebtoken::Algorithm;
pub use jsonwebtoken::jwk::{Jwk, JwkSet};

/// Checks one bearer token. Implementations never log or return the token itself.
#[async_trait::async_trait]
pub trait TokenVerifier: Send + Sync + fmt::Debug + 'static {
    /// What the token says about its holder, once its signature (or the introspection
    /// endpoint) vouched for it and its time, issuer and audience are acceptable.
    ///
    /// # Errors
    /// [`TokenError`] saying why the token is refused; never the token itself.
    async fn verify(&self, token: &str) -> Result<VerifiedToken, TokenError>;
}

/// The claims of an accepted token that authentication uses.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct VerifiedToken {
    /// `iss`, when present.
    pub issuer: Option<String>,
    /// `sub`, when present and non-empty.
    pub subject: Option<String>,
    /// The introspection response's `username`, when present and non-empty.
    pub username: Option<String>,
    /// `client_id`, else `azp`, when present and non-empty.
    pub client_id: Option<String>,
    /// `aud` as a list (a single string becomes one member).
    pub audience: Vec<String>,
    /// The granted scopes: `scope` split on spaces, or `scp` as a list or a string.
    pub scopes: Vec<String>,
    /// Every claim, as received.
    pub claims: Map<String, Value>,
}

/// Why a token was refused. The messages are safe to send to the caller: they name the
/// failed check, never the token or a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// Not a token this verifier can read (bad segments, base64, JSON, header).
    #[error("the token is malformed: {0}")]
    Malformed(String),
    /// The algorithm is `none`, symmetric where keys are asymmetric, or not allowed.
    #[error("the token's algorithm is not accepted: {0}")]
    Algorithm(String),
    /// No key of the JWKS matches the token's `kid` and algorithm, even after a refresh.
    #[error("no key matches the token's key id")]
    UnknownKey,
    /// The signature does not verify.
    #[error("the token's signature is invalid")]
    Signature,
    /// `exp` is past (beyond the leeway).
    #[error("the token has expired")]
    Expired,
    /// `nbf` (or `iat`) is in the future (beyond the leeway).
    #[error("the token is not valid yet")]
    NotYetValid,
    /// `iss` is missing or not the expected issuer.
    #[error("the token's issuer is not accepted")]
    Issuer,
    /// `aud` is missing or names none of the expected audiences.
    #[error("the token's audience is not accepted")]
    Audience,
    /// A required claim is missing or has the wrong type.
    #[error("the token lacks a valid {0} claim")]
    Claim(String),
    /// The introspection endpoint says the token is not active.
    #[error("the token is not active")]
    Inactive,
    /// Keys or introspection could not be reached or read; the caller may retry later.
    #[error("the token cannot be checked now: {0}")]
    Unavailable(String),
}

/// A verifier configuration that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenConfigError {
    /// No expected issuer, and accepting any issuer was not asked for.
    #[error("no expected issuer is configured; set one or allow any issuer explicitly")]
    MissingIssuer,
    /// No accepted audience, and accepting any audience was not asked for.
    #[error("no accepted audience is configured; set one or allow any audience explicitly")]
    MissingAudience,
    /// The allowed algorithms are empty.
    #[error("no signature algorithm is allowed")]
    NoAlgorithm,
    /// A symmetric (HS*) algorithm was allowed; keys from a JWKS are public, so an HMAC
    /// signature made with them proves nothing.
    #[error("the symmetric algorithm {0:?} cannot be used with a JWKS")]
    SymmetricAlgorithm(Algorithm),
    /// A URL does not parse or is not http(s).
    #[error("{what} is not an absolute http(s) url")]
    InvalidUrl {
        /// Which URL of the configuration.
        what: &'static str,
    },
    /// A size limit, timeout or cache bound is zero where it must not be.
    #[error("{0} must not be zero")]
    Zero(&'static str),
    /// The HTTP client could not be built (for example, no TLS backend).
    #[error("the http client cannot be built")]
    HttpClient,
}
