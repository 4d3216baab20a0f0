//! The keys a [`JwtVerifier`](super::JwtVerifier) checks signatures with: a JSON Web Key Set
//! read once, kept for a while, and read again when a token names a key it does not have
//! (key rotation), but never more often than a cooldown allows.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm, KeyOperations, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;
use url::Url;

use super::TokenError;
use super::oidc::{DiscoveryTarget, Provider};

/// How a remote JWKS is fetched and cached.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct JwksOptions {
    /// How long fetched keys are used before they are fetched again. A smaller
    /// `Cache-Control: max-age` of the response wins, but never below `refresh_cooldown`.
    /// Default 10 minutes.
    pub cache_ttl: Duration,
    /// The shortest time between two fetches caused by unknown key ids or failed fetches, so
    /// tokens naming made-up keys cannot make the verifier hammer the JWKS endpoint.
    /// Default 30 seconds.
    pub refresh_cooldown: Duration,
    /// Time allowed for each request (discovery or JWKS). Default 5 seconds.
    pub fetch_timeout: Duration,
    /// The largest JWKS or discovery document read. Default 1 MiB.
    pub max_response_bytes: usize,
}

impl Default for JwksOptions {
    fn default() -> Self {
        Self {
            cache_ttl: Duration::from_secs(600),
            refresh_cooldown: Duration::from_secs(30),
            fetch_timeout: Duration::from_secs(5),
            max_response_bytes: 1024 * 1024,
        }
    }
}

impl JwksOptions {
    /// Sets [`cache_ttl`](Self::cache_ttl).
    #[must_use]
    pub fn with_cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Sets [`refresh_cooldown`](Self::refresh_cooldown).
    #[must_use]
    pub fn with_refresh_cooldown(mut self, cooldown: Duration) -> Self {
        self.refresh_cooldown = cooldown;
        self
    }

    /// Sets [`fetch_timeout`](Self::fetch_timeout).
    #[must_use]
    pub fn with_fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }

    /// Sets [`max_response_bytes`](Self::max_response_bytes).
    #[must_use]
    pub fn with_max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }
}

/// What a key can verify; each kind fits exactly one set of algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Rsa,
    P256,
    P384,
    Ed25519,
}

impl KeyKind {
    fn fits(self, alg: Algorithm) -> bool {
        use Algorithm::{ES256, ES384, EdDSA, PS256, PS384, PS512, RS256, RS384, RS512};
        match self {
            Self::Rsa => matches!(alg, RS256 | RS384 | RS512 | PS256 | PS384 | PS512),
            Self::P256 => alg == ES256,
            Self::P384 => alg == ES384,
            Self::Ed25519 => alg == EdDSA,
        }
    }
}

/// One public key that signatures may be checked with.
#[derive(Clone)]
pub(super) struct VerificationKey {
    kid: Option<String>,
    kind: KeyKind,
    /// The key's own `alg`; when present, the only algorithm it verifies.
    alg: Option<Algorithm>,
    pub(super) key: DecodingKey,
}

impl std::fmt::Debug for VerificationKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerificationKey")
            .field("kid", &self.kid)
            .field("kind", &self.kind)
            .field("alg", &self.alg)
            .finish_non_exhaustive()
    }
}

impl VerificationKey {
    /// The key, if it is a public signature key of a supported kind; symmetric (`oct`) keys,
    /// encryption keys and unknown curves are dropped.
    fn from_jwk(jwk: &Jwk) -> Option<Self> {
        if jwk
            .common
            .public_key_use
            .as_ref()
            .is_some_and(|usage| *usage != PublicKeyUse::Signature)
        {
            return None;
        }
        if jwk
            .common
            .key_operations
            .as_ref()
            .is_some_and(|operations| !operations.contains(&KeyOperations::Verify))
        {
            return None;
        }
        let alg = match jwk.common.key_algorithm {
            None => None,
            Some(named) => Some(signature_algorithm(named)?),
        };
        let (kind, key) = match &jwk.algorithm {
            AlgorithmParameters::RSA(rsa) => (
                KeyKind::Rsa,
                DecodingKey::from_rsa_components(&rsa.n, &rsa.e).ok()?,
            ),
            AlgorithmParameters::EllipticCurve(ec) => {
                let (kind, size) = match ec.curve {
                    EllipticCurve::P256 => (KeyKind::P256, 32),
                    EllipticCurve::P384 => (KeyKind::P384, 48),
                    EllipticCurve::P521 | EllipticCurve::Ed25519 => return None,
                };
                if decoded_len(&ec.x)? != size || decoded_len(&ec.y)? != size {
                    return None;
                }
                (kind, DecodingKey::from_ec_components(&ec.x, &ec.y).ok()?)
            }
            AlgorithmParameters::OctetKeyPair(okp) => {
                if okp.curve != EllipticCurve::Ed25519 || decoded_len(&okp.x)? != 32 {
                    return None;
                }
                (
                    KeyKind::Ed25519,
                    DecodingKey::from_ed_components(&okp.x).ok()?,
                )
            }
            // A JWKS is public: an HMAC key in it would let anyone sign.
            AlgorithmParameters::OctetKey(_) => return None,
        };
        if alg.is_some_and(|alg| !kind.fits(alg)) {
            return None;
        }
        Some(Self {
            kid: jwk.common.key_id.clone(),
            kind,
            alg,
            key,
        })
    }

    fn fits(&self, alg: Algorithm) -> bool {
        self.kind.fits(alg) && self.alg.is_none_or(|own| own == alg)
    }
}

/// The algorithm a JWK's `alg` names, if it is an asymmetric signature algorithm.
fn signature_algorithm(named: KeyAlgorithm) -> Option<Algorithm> {
    Some(match named {
        KeyAlgorithm::ES256 => Algorithm::ES256,
        KeyAlgorithm::ES384 => Algorithm::ES384,
        KeyAlgorithm::RS256 => Algorithm::RS256,
        KeyAlgorithm::RS384 => Algorithm::RS384,
        KeyAlgorithm::RS512 => Algorithm::RS512,
        KeyAlgorithm::PS256 => Algorithm::PS256,
        KeyAlgorithm::PS384 => Algorithm::PS384,
        KeyAlgorithm::PS512 => Algorithm::PS512,
        KeyAlgorithm::EdDSA => Algorithm::EdDSA,
        KeyAlgorithm::HS256
        | KeyAlgorithm::HS384
        | KeyAlgorithm::HS512
        | KeyAlgorithm::RSA1_5
        | KeyAlgorithm::RSA_OAEP
        | KeyAlgorithm::RSA_OAEP_256 => return None,
    })
}

fn decoded_len(base64url: &str) -> Option<usize> {
    URL_SAFE_NO_PAD
        .decode(base64url)
        .ok()
        .map(|bytes| bytes.len())
}

/// Why no key was found for a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyMiss {
    /// No key has the token's `kid` (or, for a token without one, no key without one fits).
    Unknown,
    /// Keys with the token's `kid` exist, but none fits the token's algorithm.
    WrongType,
}

/// The usable keys of one JWKS.
#[derive(Debug, Clone, Default)]
pub(super) struct KeySet {
    keys: Vec<VerificationKey>,
}

impl KeySet {
    /// At most this many keys are tried for one token.
    const MAX_CANDIDATES: usize = 4;

    pub(super) fn from_jwk_set(set: &JwkSet) -> Self {
        Self {
            keys: set
                .keys
                .iter()
                .filter_map(VerificationKey::from_jwk)
                .collect(),
        }
    }

    /// Reads a JWKS document; keys this verifier cannot use are skipped one by one, so an
    /// unfamiliar key next to ours does not make the whole set unreadable.
    fn parse(body: &[u8]) -> Result<Self, TokenError> {
        #[derive(serde::Deserialize)]
        struct RawSet {
            keys: Vec<Value>,
        }
        let raw: RawSet = serde_json::from_slice(body)
            .map_err(|_| TokenError::Unavailable("the JWKS document is invalid".into()))?;
        let keys = raw
            .keys
            .into_iter()
            .filter_map(|value| serde_json::from_value::<Jwk>(value).ok())
            .filter_map(|jwk| VerificationKey::from_jwk(&jwk))
            .collect();
        Ok(Self { keys })
    }

    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The keys that may have signed a token with this `kid` and algorithm.
    pub(super) fn select(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Vec<&VerificationKey>, KeyMiss> {
        let mut named = self
            .keys
            .iter()
            .filter(|key| key.kid.as_deref() == kid)
            .peekable();
        if named.peek().is_none() {
            return Err(KeyMiss::Unknown);
        }
        let fitting: Vec<_> = named
            .filter(|key| key.fits(alg))
            .take(Self::MAX_CANDIDATES)
            .collect();
        match (fitting.is_empty(), kid) {
            (false, _) => Ok(fitting),
            (true, Some(_)) => Err(KeyMiss::WrongType),
            // Keys without a kid are interchangeable; a later JWKS may hold one that fits.
            (true, None) => Err(KeyMiss::Unknown),
        }
    }
}

/// Keys as of one moment.
#[derive(Debug, Clone)]
pub(super) struct Snapshot {
    pub(super) keys: Arc<KeySet>,
    /// The issuer OpenID Connect discovery found, when the keys came that way.
    pub(super) issuer: Option<Arc<str>>,
    /// Counts fetch attempts; tells a caller whether the keys changed since it looked.
    pub(super) generation: u64,
}

/// Why the caller needs keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refresh {
    /// Any keys will do, unless they are older than the TTL.
    IfStale,
    /// The keys of generation `seen` lack the token's key: fetch again, cooldown allowing.
    UnknownKey {
        /// The generation the caller looked at.
        seen: u64,
    },
}

/// Where remote keys come from.
#[derive(Debug)]
enum Location {
    Jwks(Url),
    Discovery(DiscoveryTarget),
}

#[derive(Debug)]
enum Source {
    Static(Snapshot),
    Remote {
        http: reqwest::Client,
        location: Location,
    },
}

#[derive(Debug, Default)]
struct State {
    keys: Option<Arc<KeySet>>,
    provider: Option<Provider>,
    fetched_at: Option<Instant>,
    ttl: Duration,
    last_attempt: Option<Instant>,
    last_error: Option<TokenError>,
    generation: u64,
}

impl State {
    fn current(&self) -> Result<Snapshot, TokenError> {
        match &self.keys {
            Some(keys) => Ok(Snapshot {
                keys: Arc::clone(keys),
                issuer: self
                    .provider
                    .as_ref()
                    .map(|provider| Arc::clone(&provider.issuer)),
                generation: self.generation,
            }),
            None => Err(self.last_error.clone().unwrap_or_else(|| {
                TokenError::Unavailable("the JWKS has not been fetched yet".into())
            })),
        }
    }

    /// Whether `refresh` needs a fetch now, rather than an answer from the current state.
    fn needs_fetch(&self, refresh: Refresh, now: Instant, options: &JwksOptions) -> bool {
        let cooling = self
            .last_attempt
            .is_some_and(|at| now.saturating_duration_since(at) < options.refresh_cooldown);
        match refresh {
            Refresh::IfStale => {
                let fresh = self.keys.is_some()
                    && self
                        .fetched_at
                        .is_some_and(|at| now.saturating_duration_since(at) < self.ttl);
                !fresh && !cooling
            }
            Refresh::UnknownKey { seen } => seen == self.generation && !cooling,
        }
    }
}

/// A JWKS, static or fetched on demand and cached.
#[derive(Debug)]
pub(super) struct JwksCache {
    source: Source,
    options: JwksOptions,
    state: Mutex<State>,
    /// Held while fetching, so concurrent refreshes become one fetch.
    refreshing: tokio::sync::Mutex<()>,
}

impl JwksCache {
    /// Keys that never change.
    pub(super) fn fixed(keys: KeySet, options: JwksOptions) -> Self {
        Self::with_source(
            Source::Static(Snapshot {
                keys: Arc::new(keys),
                issuer: None,
                generation: 0,
            }),
            options,
        )
    }

    /// Keys fetched from a JWKS URL.
    pub(super) fn remote(url: Url, http: reqwest::Client, options: JwksOptions) -> Self {
        Self::with_source(
            Source::Remote {
                http,
                location: Location::Jwks(url),
            },
            options,
        )
    }

    /// Keys found through OpenID Connect discovery.
    pub(super) fn discovered(
        target: DiscoveryTarget,
        http: reqwest::Client,
        options: JwksOptions,
    ) -> Self {
        Self::with_source(
            Source::Remote {
                http,
                location: Location::Discovery(target),
            },
            options,
        )
    }

    fn with_source(source: Source, options: JwksOptions) -> Self {
        Self {
            source,
            options,
            state: Mutex::new(State::default()),
            refreshing: tokio::sync::Mutex::new(()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The keys to check a token with, fetched first when `refresh` asks for it and the
    /// cooldown allows. A failed fetch leaves earlier keys in use.
    ///
    /// # Errors
    /// [`TokenError::Unavailable`] when no keys have ever been fetched successfully.
    pub(super) async fn snapshot(&self, refresh: Refresh) -> Result<Snapshot, TokenError> {
        let (http, location) = match &self.source {
            Source::Static(snapshot) => return Ok(snapshot.clone()),
            Source::Remote { http, location } => (http, location),
        };
        let seen = {
            let state = self.state();
            if !state.needs_fetch(refresh, Instant::now(), &self.options) {
                return state.current();
            }
            state.generation
        };
        let _refreshing = self.refreshing.lock().await;
        let provider = {
            let state = self.state();
            if state.generation != seen {
                // Someone fetched while we waited for the lock; their result is ours.
                return state.current();
            }
            state.provider.clone()
        };
        let started = Instant::now();
        let (provider, outcome) = self.fetch(http, location, provider).await;
        let mut state = self.state();
        state.generation += 1;
        state.last_attempt = Some(started);
        state.provider = provider;
        match outcome {
            Ok((keys, max_age)) => {
                tracing::debug!(keys = keys.len(), "fetched the JWKS");
                let mut ttl = self.options.cache_ttl;
                if let Some(max_age) = max_age {
                    ttl = ttl.min(max_age.max(self.options.refresh_cooldown));
                }
                state.keys = Some(Arc::new(keys));
                state.fetched_at = Some(started);
                state.ttl = ttl;
                state.last_error = None;
            }
            Err(error) => {
                tracing::warn!(%error, "fetching the JWKS failed; earlier keys stay in use");
                state.last_error = Some(error);
            }
        }
        state.current()
    }

    /// One fetch: discovery first when needed, then the JWKS. Returns the provider to
    /// remember (none after a failed JWKS fetch, so the next attempt discovers again).
    async fn fetch(
        &self,
        http: &reqwest::Client,
        location: &Location,
        provider: Option<Provider>,
    ) -> (
        Option<Provider>,
        Result<(KeySet, Option<Duration>), TokenError>,
    ) {
        let limit = self.options.max_response_bytes;
        match location {
            Location::Jwks(url) => (None, fetch_jwks(http, url, limit).await),
            Location::Discovery(target) => {
                let provider = match provider {
                    Some(known) => known,
                    None => match super::oidc::discover(http, target, limit).await {
                        Ok(found) => found,
                        Err(error) => return (None, Err(error)),
                    },
                };
                match fetch_jwks(http, &provider.jwks_uri, limit).await {
                    Ok(found) => (Some(provider), Ok(found)),
                    Err(error) => (None, Err(error)),
                }
            }
        }
    }
}

/// GETs and reads a JWKS; also returns the response's `Cache-Control` max-age.
async fn fetch_jwks(
    http: &reqwest::Client,
    url: &Url,
    limit: usize,
) -> Result<(KeySet, Option<Duration>), TokenError> {
    let unavailable =
        |why: &str| TokenError::Unavailable(format!("fetching the JWKS failed: {why}"));
    let request = http.get(url.clone()).header(
        http::header::ACCEPT,
        "application/jwk-set+json, application/json",
    );
    let response = super::send_checked(request)
        .await
        .map_err(|why| unavailable(&why))?;
    let max_age = response
        .headers()
        .get_all(http::header::CACHE_CONTROL)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find_map(cache_max_age);
    let body = super::read_limited(response, limit)
        .await
        .map_err(unavailable)?;
    Ok((KeySet::parse(&body)?, max_age))
}

/// The lifetime a `Cache-Control` value allows: `max-age`, or zero for `no-store` and
/// `no-cache`.
fn cache_max_age(header: &str) -> Option<Duration> {
    header.split(',').find_map(|directive| {
        let directive = directive.trim();
        if directive.eq_ignore_ascii_case("no-store") || directive.eq_ignore_ascii_case("no-cache")
        {
            return Some(Duration::ZERO);
        }
        let (name, value) = directive.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("max-age") {
            return None;
        }
        value
            .trim()
            .trim_matches('"')
            .parse::<u64>()
            .ok()
            .map(Duration::from_secs)
    })
}

#[cfg(test)]
mod tests;
