//! [`JwtVerifier`]: signed JWT access tokens checked against a JWKS: signature, algorithm,
//! expiry, issuer and audience.

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::Algorithm;
use jsonwebtoken::jwk::JwkSet;
use serde_json::{Map, Value};
use url::Url;

use super::jwks::{JwksCache, JwksOptions};

mod claims;
mod config;
mod parse;
mod verified;
mod verifier;

pub(super) use self::claims::{check_audience, check_issuer, check_times};
use self::verified::VerifiedCache;

/// Where a [`JwtVerifier`] finds its keys.
#[derive(Clone)]
#[non_exhaustive]
pub enum JwksSource {
    /// A JWK Set document at this URL.
    Url(Url),
    /// OpenID Connect discovery under this issuer: the JWKS named by
    /// `{issuer}/.well-known/openid-configuration`, whose `issuer` must be this one.
    OidcIssuer(Url),
    /// OpenID Connect discovery at this full document URL: a card's `openIdConnectUrl`.
    OidcDiscovery(Url),
    /// These keys, never fetched (tests, or embedders that manage keys themselves).
    Keys(JwkSet),
}

/// The asymmetric algorithms accepted unless configured otherwise.
const ASYMMETRIC: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// What a [`JwtVerifier`] accepts.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct JwtConfig {
    /// Where the keys come from.
    pub source: JwksSource,
    /// The `iss` tokens must carry. When `None`, the issuer OpenID Connect discovery found;
    /// with neither, [`accept_any_issuer`](Self::accept_any_issuer) must be set.
    pub issuer: Option<String>,
    /// Accept tokens of any issuer when no issuer is configured or discovered. Default
    /// `false`.
    pub accept_any_issuer: bool,
    /// Tokens must name at least one of these in `aud`; required unless
    /// [`accept_any_audience`](Self::accept_any_audience) is set.
    pub audiences: Vec<String>,
    /// Skip the audience check. Default `false`.
    pub accept_any_audience: bool,
    /// Clock skew allowed when checking `exp`, `nbf` and `iat`. Default 60 seconds.
    pub leeway: Duration,
    /// The signature algorithms accepted. Default: every asymmetric one (RS256/384/512,
    /// PS256/384/512, ES256/384, EdDSA). HS* cannot be allowed; `none` never is.
    pub algorithms: Vec<Algorithm>,
    /// Longer tokens are refused as malformed without further work. Default 16 KiB.
    pub max_token_bytes: usize,
    /// How remote keys are fetched and cached.
    pub jwks: JwksOptions,
    /// How many verified tokens are remembered, so that a token presented again is not
    /// verified again: each until its `exp`, and only while the keys that verified it are
    /// the current ones (a JWKS fetched again means every token is verified again). When
    /// full, the token remembered first is forgotten. Zero: no token is remembered. Default
    /// 4 096.
    pub verified_tokens: usize,
}

/// Verifies JWT access tokens with keys from a JWKS. Cloning shares the key cache.
///
/// ```no_run
/// use a2a_server::auth::token::{JwksSource, JwtConfig, JwtVerifier, TokenVerifier};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let issuer = url::Url::parse("https://idp.example.com/realms/agents")?;
/// let verifier = JwtVerifier::new(
///     JwtConfig::new(JwksSource::OidcIssuer(issuer)).with_audience("https://agent.example.com"),
/// )?;
/// let token = verifier.verify("eyJhbGciOi…").await?;
/// println!("{:?} may use {:?}", token.subject, token.scopes);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct JwtVerifier {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    issuer: Option<String>,
    accept_any_issuer: bool,
    audiences: Vec<String>,
    leeway: Duration,
    algorithms: Vec<Algorithm>,
    max_token_bytes: usize,
    keys: JwksCache,
    /// `None` when [`JwtConfig::verified_tokens`] is zero.
    verified: Option<VerifiedCache>,
}

/// A JWS in compact form, split and decoded but not yet verified.
struct Token<'a> {
    alg: Algorithm,
    kid: Option<String>,
    claims: Map<String, Value>,
    /// `header.payload`, the bytes the signature covers.
    signing_input: &'a str,
    signature: &'a str,
}

#[cfg(test)]
mod tests;
