//! Bearer tokens issued by someone else: JWTs checked against a JWKS (found directly or
//! through OpenID Connect discovery) and opaque tokens checked by RFC 7662 introspection
//! What a verifier learns becomes the caller's profile.

mod introspection;
mod jwks;
mod jwt;
mod oidc;

use std::fmt;
use std::time::Duration;

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

impl VerifiedToken {
    /// Maps the claims of an accepted token; `username` only when the claims come from an
    /// introspection response, the one source that defines it (RFC 7662 §2.2).
    fn from_claims(claims: Map<String, Value>, with_username: bool) -> Self {
        let text = |name: &str| match claims.get(name) {
            Some(Value::String(value)) if !value.is_empty() => Some(value.clone()),
            _ => None,
        };
        let strings = |value: &Value| match value {
            Value::String(one) => split_spaces(one),
            Value::Array(items) => items
                .iter()
                .filter_map(Value::as_str)
                .filter(|item| !item.is_empty())
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        let scopes = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(scope)), _) => split_spaces(scope),
            (_, Some(scp)) => strings(scp),
            (_, None) => Vec::new(),
        };
        let audience = match claims.get("aud") {
            Some(Value::String(one)) if !one.is_empty() => vec![one.clone()],
            Some(list @ Value::Array(_)) => strings(list),
            _ => Vec::new(),
        };
        Self {
            issuer: text("iss"),
            subject: text("sub"),
            username: if with_username {
                text("username")
            } else {
                None
            },
            client_id: text("client_id").or_else(|| text("azp")),
            audience,
            scopes,
            claims,
        }
    }
}

fn split_spaces(value: &str) -> Vec<String> {
    value
        .split(' ')
        .filter(|part| !part.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Which redirects an outbound client follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Redirects {
    /// Up to five, all to the origin of the first request.
    SameOrigin,
    /// None: the redirect response itself is the answer.
    Never,
}

/// The client for JWKS, discovery and introspection requests: every request is bounded by
/// `timeout`, and a redirect never leads to another origin.
fn http_client(
    timeout: Duration,
    redirects: Redirects,
) -> Result<reqwest::Client, TokenConfigError> {
    if timeout.is_zero() {
        return Err(TokenConfigError::Zero("the request timeout"));
    }
    let policy = match redirects {
        Redirects::Never => reqwest::redirect::Policy::none(),
        Redirects::SameOrigin => reqwest::redirect::Policy::custom(|attempt| {
            let same_origin = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if same_origin && attempt.previous().len() <= 5 {
                attempt.follow()
            } else {
                attempt.stop()
            }
        }),
    };
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .redirect(policy)
        .build()
        .map_err(|_| TokenConfigError::HttpClient)
}

/// Why an outbound request failed, in words that name no URL, header or body.
/// Sends `request` and keeps the response only when its status is a success; the error
/// says why in words safe to show a caller (no URL, no body).
async fn send_checked(request: reqwest::RequestBuilder) -> Result<reqwest::Response, String> {
    let response = request
        .send()
        .await
        .map_err(|error| describe_request_error(&error).to_owned())?;
    let status = response.status();
    if status.is_success() {
        Ok(response)
    } else {
        Err(format!("the endpoint answered {}", status.as_u16()))
    }
}

fn describe_request_error(error: &reqwest::Error) -> &'static str {
    if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "connection failed"
    } else if error.is_redirect() {
        "too many redirects"
    } else if error.is_body() || error.is_decode() {
        "the response body could not be read"
    } else {
        "the request failed"
    }
}

/// Reads a response body of at most `limit` bytes.
async fn read_limited(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, &'static str> {
    const TOO_LARGE: &str = "the response is too large";
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(TOO_LARGE);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| describe_request_error(&error))?
    {
        if body.len() + chunk.len() > limit {
            return Err(TOO_LARGE);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
