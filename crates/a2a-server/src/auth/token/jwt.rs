//! [`JwtVerifier`]: signed JWT access tokens checked against a JWKS: signature, algorithm,
//! expiry, issuer and audience.

use std::fmt;
use std::str::FromStr as _;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::Algorithm;
use jsonwebtoken::jwk::JwkSet;
use serde_json::{Map, Value};
use url::Url;

use super::jwks::{JwksCache, JwksOptions, KeyMiss, KeySet, Refresh};
use super::oidc::DiscoveryTarget;
use super::{Redirects, TokenConfigError, TokenError, TokenVerifier, VerifiedToken};

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

impl fmt::Debug for JwksSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Url(url) => f.debug_tuple("Url").field(&url.as_str()).finish(),
            Self::OidcIssuer(url) => f.debug_tuple("OidcIssuer").field(&url.as_str()).finish(),
            Self::OidcDiscovery(url) => {
                f.debug_tuple("OidcDiscovery").field(&url.as_str()).finish()
            }
            Self::Keys(set) => write!(f, "Keys({} keys)", set.keys.len()),
        }
    }
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
}

impl JwtConfig {
    /// Defaults, with keys from `source` and no issuer or audience yet.
    #[must_use]
    pub fn new(source: JwksSource) -> Self {
        Self {
            source,
            issuer: None,
            accept_any_issuer: false,
            audiences: Vec::new(),
            accept_any_audience: false,
            leeway: Duration::from_secs(60),
            algorithms: ASYMMETRIC.to_vec(),
            max_token_bytes: 16 * 1024,
            jwks: JwksOptions::default(),
        }
    }

    /// Sets [`issuer`](Self::issuer).
    #[must_use]
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Sets [`accept_any_issuer`](Self::accept_any_issuer).
    #[must_use]
    pub fn with_any_issuer(mut self) -> Self {
        self.accept_any_issuer = true;
        self
    }

    /// Adds one of [`audiences`](Self::audiences).
    #[must_use]
    pub fn with_audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// Sets [`accept_any_audience`](Self::accept_any_audience).
    #[must_use]
    pub fn with_any_audience(mut self) -> Self {
        self.accept_any_audience = true;
        self
    }

    /// Sets [`leeway`](Self::leeway).
    #[must_use]
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Sets [`algorithms`](Self::algorithms).
    #[must_use]
    pub fn with_algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms.into_iter().collect();
        self
    }

    /// Sets [`max_token_bytes`](Self::max_token_bytes).
    #[must_use]
    pub fn with_max_token_bytes(mut self, limit: usize) -> Self {
        self.max_token_bytes = limit;
        self
    }

    /// Sets [`jwks`](Self::jwks).
    #[must_use]
    pub fn with_jwks_options(mut self, options: JwksOptions) -> Self {
        self.jwks = options;
        self
    }
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
}

impl JwtVerifier {
    /// A verifier for `config`. Nothing is fetched yet: keys are read on first use.
    ///
    /// # Errors
    /// [`TokenConfigError`] when the issuer or audience is missing without being waived, an
    /// algorithm is symmetric or none is allowed, a URL is not http(s), or a limit is zero.
    pub fn new(config: JwtConfig) -> Result<Self, TokenConfigError> {
        let discovers = matches!(
            config.source,
            JwksSource::OidcIssuer(_) | JwksSource::OidcDiscovery(_)
        );
        if config.issuer.is_none() && !config.accept_any_issuer && !discovers {
            return Err(TokenConfigError::MissingIssuer);
        }
        if config.audiences.is_empty() && !config.accept_any_audience {
            return Err(TokenConfigError::MissingAudience);
        }
        if config.algorithms.is_empty() {
            return Err(TokenConfigError::NoAlgorithm);
        }
        if let Some(symmetric) = config
            .algorithms
            .iter()
            .find(|alg| !ASYMMETRIC.contains(alg))
        {
            return Err(TokenConfigError::SymmetricAlgorithm(*symmetric));
        }
        if config.max_token_bytes == 0 {
            return Err(TokenConfigError::Zero("the maximum token size"));
        }
        if config.jwks.max_response_bytes == 0 {
            return Err(TokenConfigError::Zero("the maximum JWKS size"));
        }
        let options = config.jwks.clone();
        let remote = || super::http_client(options.fetch_timeout, Redirects::SameOrigin);
        let configured = config.issuer.as_deref();
        let keys = match config.source {
            JwksSource::Keys(set) => JwksCache::fixed(KeySet::from_jwk_set(&set), options),
            JwksSource::Url(url) => {
                if !matches!(url.scheme(), "http" | "https") {
                    return Err(TokenConfigError::InvalidUrl {
                        what: "the JWKS url",
                    });
                }
                JwksCache::remote(url, remote()?, options)
            }
            JwksSource::OidcIssuer(issuer) => {
                let target = DiscoveryTarget::for_issuer(&issuer, configured)?;
                JwksCache::discovered(target, remote()?, options)
            }
            JwksSource::OidcDiscovery(url) => {
                let target = DiscoveryTarget::for_document(url, configured)?;
                JwksCache::discovered(target, remote()?, options)
            }
        };
        Ok(Self {
            inner: Arc::new(Inner {
                issuer: config.issuer,
                accept_any_issuer: config.accept_any_issuer,
                audiences: if config.accept_any_audience {
                    Vec::new()
                } else {
                    config.audiences
                },
                leeway: config.leeway,
                algorithms: config.algorithms,
                max_token_bytes: config.max_token_bytes,
                keys,
            }),
        })
    }

    /// A verifier for a card's OpenID Connect scheme: keys and issuer come from the
    /// discovery document at `open_id_connect_url`, and tokens must name one of `audiences`.
    ///
    /// # Errors
    /// [`TokenConfigError::InvalidUrl`] when the URL is not an absolute http(s) URL, and
    /// [`TokenConfigError::MissingAudience`] when `audiences` is empty.
    pub fn from_openid_connect_url<I>(
        open_id_connect_url: &str,
        audiences: I,
    ) -> Result<Self, TokenConfigError>
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let url = Url::parse(open_id_connect_url).map_err(|_| TokenConfigError::InvalidUrl {
            what: "the OpenID Connect discovery url",
        })?;
        let mut config = JwtConfig::new(JwksSource::OidcDiscovery(url));
        config.audiences = audiences.into_iter().map(Into::into).collect();
        Self::new(config)
    }

    /// The key to check a token with: the one its header names, fetched again when unknown.
    async fn check_signature(&self, token: &Token<'_>) -> Result<Option<Arc<str>>, TokenError> {
        let keys = &self.inner.keys;
        let first = keys.snapshot(Refresh::IfStale).await?;
        let snapshot = match first.keys.select(token.kid.as_deref(), token.alg) {
            Err(KeyMiss::Unknown) => {
                keys.snapshot(Refresh::UnknownKey {
                    seen: first.generation,
                })
                .await?
            }
            Ok(_) | Err(KeyMiss::WrongType) => first,
        };
        let candidates = snapshot
            .keys
            .select(token.kid.as_deref(), token.alg)
            .map_err(|miss| match miss {
                KeyMiss::Unknown => TokenError::UnknownKey,
                KeyMiss::WrongType => TokenError::Algorithm(format!(
                    "the key the token names is not a {:?} key",
                    token.alg
                )),
            })?;
        let verified = candidates.iter().any(|candidate| {
            jsonwebtoken::crypto::verify(
                token.signature,
                token.signing_input.as_bytes(),
                &candidate.key,
                token.alg,
            )
            .unwrap_or(false)
        });
        if verified {
            Ok(snapshot.issuer)
        } else {
            Err(TokenError::Signature)
        }
    }
}

#[async_trait::async_trait]
impl TokenVerifier for JwtVerifier {
    async fn verify(&self, token: &str) -> Result<VerifiedToken, TokenError> {
        let inner = &self.inner;
        let token = Token::parse(token, inner.max_token_bytes)?;
        if !inner.algorithms.contains(&token.alg) {
            return Err(TokenError::Algorithm(format!(
                "{:?} is not allowed",
                token.alg
            )));
        }
        let discovered_issuer = self.check_signature(&token).await?;
        check_times(&token.claims, inner.leeway, true)?;
        match inner.issuer.as_deref().or(discovered_issuer.as_deref()) {
            Some(expected) => check_issuer(&token.claims, expected)?,
            None if inner.accept_any_issuer => {}
            None => return Err(TokenError::Issuer),
        }
        check_audience(&token.claims, &inner.audiences)?;
        Ok(VerifiedToken::from_claims(token.claims, false))
    }
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

impl<'a> Token<'a> {
    fn parse(token: &'a str, max_bytes: usize) -> Result<Self, TokenError> {
        let malformed = |why: &str| TokenError::Malformed(why.to_owned());
        if token.len() > max_bytes {
            return Err(TokenError::Malformed(format!(
                "the token is longer than {max_bytes} bytes"
            )));
        }
        let mut segments = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) = (
            segments.next(),
            segments.next(),
            segments.next(),
            segments.next(),
        ) else {
            return Err(malformed("a JWT has three segments"));
        };
        let header = decode_object(header)
            .ok_or_else(|| malformed("the header is not a base64url-encoded JSON object"))?;
        let Some(Value::String(alg)) = header.get("alg") else {
            return Err(malformed("the header names no algorithm"));
        };
        if alg.eq_ignore_ascii_case("none") {
            return Err(TokenError::Algorithm(
                "unsigned tokens are never accepted".into(),
            ));
        }
        // The name is the caller's text, so it is not repeated in the error.
        let alg = Algorithm::from_str(alg)
            .map_err(|_| TokenError::Algorithm("the algorithm is not supported".into()))?;
        if !ASYMMETRIC.contains(&alg) {
            return Err(TokenError::Algorithm(
                "symmetric algorithms are never accepted".into(),
            ));
        }
        // RFC 7515 §4.1.11: a recipient must refuse extensions it does not understand, and
        // this verifier understands none.
        if header.contains_key("crit") {
            return Err(malformed("the header has critical extensions"));
        }
        let kid = match header.get("kid") {
            None => None,
            Some(Value::String(kid)) => Some(kid.clone()),
            Some(_) => return Err(malformed("the key id is not a string")),
        };
        if signature.is_empty() || URL_SAFE_NO_PAD.decode(signature).is_err() {
            return Err(malformed("the signature is not base64url"));
        }
        let claims = decode_object(payload)
            .ok_or_else(|| malformed("the payload is not a base64url-encoded JSON object"))?;
        Ok(Self {
            alg,
            kid,
            claims,
            signing_input: &token[..token.len() - signature.len() - 1],
            signature,
        })
    }
}

fn decode_object(segment: &str) -> Option<Map<String, Value>> {
    let bytes = URL_SAFE_NO_PAD.decode(segment).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

/// Checks `exp` (required when `require_exp`), `nbf` and `iat` against the clock.
pub(super) fn check_times(
    claims: &Map<String, Value>,
    leeway: Duration,
    require_exp: bool,
) -> Result<(), TokenError> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|since| since.as_secs_f64())
        .unwrap_or_default();
    let leeway = leeway.as_secs_f64();
    match numeric_date(claims, "exp")? {
        Some(exp) if now >= exp + leeway => return Err(TokenError::Expired),
        Some(_) => {}
        None if require_exp => return Err(TokenError::Claim("exp".into())),
        None => {}
    }
    for name in ["nbf", "iat"] {
        if numeric_date(claims, name)?.is_some_and(|at| at > now + leeway) {
            return Err(TokenError::NotYetValid);
        }
    }
    Ok(())
}

/// A NumericDate claim (RFC 7519 §2): seconds since the epoch, possibly fractional.
fn numeric_date(claims: &Map<String, Value>, name: &str) -> Result<Option<f64>, TokenError> {
    match claims.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => number
            .as_f64()
            .map(Some)
            .ok_or_else(|| TokenError::Claim(name.into())),
        Some(_) => Err(TokenError::Claim(name.into())),
    }
}

/// `iss` must be `expected`, exactly.
pub(super) fn check_issuer(claims: &Map<String, Value>, expected: &str) -> Result<(), TokenError> {
    match claims.get("iss") {
        Some(Value::String(issuer)) if issuer == expected => Ok(()),
        _ => Err(TokenError::Issuer),
    }
}

/// `aud` (a string or a list) must name one of `accepted`; an empty `accepted` accepts all.
pub(super) fn check_audience(
    claims: &Map<String, Value>,
    accepted: &[String],
) -> Result<(), TokenError> {
    if accepted.is_empty() {
        return Ok(());
    }
    let named = |audience: &str| accepted.iter().any(|one| one == audience);
    let found = match claims.get("aud") {
        Some(Value::String(audience)) => named(audience),
        Some(Value::Array(audiences)) => audiences.iter().filter_map(Value::as_str).any(named),
        _ => false,
    };
    if found {
        Ok(())
    } else {
        Err(TokenError::Audience)
    }
}

#[cfg(test)]
mod tests;
