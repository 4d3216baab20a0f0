//! The keys a [`JwtVerifier`](super::JwtVerifier) checks signatures with: a JSON Web Key Set
//! read once, kept for a while, and read again when a token names a key it does not have
//! (key rotation), but never more often than a cooldown allows.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, DecodingKey};
use url::Url;

use super::TokenError;
use super::oidc::{DiscoveryTarget, Provider};

mod cache;
mod keys;
mod options;

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

/// What a key can verify; each kind fits exactly one set of algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Rsa,
    P256,
    P384,
    Ed25519,
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

/// A JWKS, static or fetched on demand and cached.
#[derive(Debug)]
pub(super) struct JwksCache {
    source: Source,
    options: JwksOptions,
    state: Mutex<State>,
    /// Held while fetching, so concurrent refreshes become one fetch.
    refreshing: tokio::sync::Mutex<()>,
}

#[cfg(test)]
mod tests;
