//! Checking push deliveries at a webhook (spec §10.5: receivers must validate authenticity):
//! the detached JWS an agent signs each delivery with, its notification token, and the
//! `StreamResponse` body.
//!
//! An agent built with `a2a-server` and a push signer sends [`SIGNATURE_HEADER`] with
//! `BASE64URL(header) + ".." + BASE64URL(signature)` (RFC 7515 Appendix F), the signature
//! covering `BASE64URL(header) + "." + BASE64URL(body)`. The protected header names the
//! algorithm (`alg`), the key (`kid`), the type ([`SIGNATURE_TYPE`]) and when it was signed
//! (`iat`, unix seconds); the agent's public keys are a JWK Set at [`JWKS_PATH`]. The token
//! of the push config, when it has one, comes in [`TOKEN_HEADER`] and [`LEGACY_TOKEN_HEADER`].
//!
//! ```no_run
//! use a2a_client::push::PushVerifier;
//!
//! # async fn webhook(headers: http::HeaderMap, body: bytes::Bytes) -> Result<(), Box<dyn std::error::Error>> {
//! let verifier = PushVerifier::fetch("https://agent.example.com")
//!     .await?
//!     .expect_token("the token given to CreateTaskPushNotificationConfig");
//! let delivery = verifier.verify(&headers, &body)?;
//! println!("task {:?} from key {}", delivery.event.task_id(), delivery.signature.kid);
//! # Ok(()) }
//! ```
//!
//! Accepted algorithms: ES256 (what `a2a-server` signs with), ES384 and EdDSA (Ed25519).
//! `none`, the HMAC algorithms and anything else are refused.

mod error;
mod header;
mod keys;

use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_types::StreamResponse;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::HeaderMap;
use ring::signature::UnparsedPublicKey;
use serde_json::Value;
use url::Url;

pub use self::error::PushVerifyError;
use self::header::{malformed, parse_protected_header};
use self::keys::{JwksSource, VerifyingKey, parse_jwks};
use crate::Secret;
use crate::error::ClientError;
use crate::transport::{HttpTransport, Transport};

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
/// How old a signature may be by default.
pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(5 * 60);
/// How far in the future `iat` may be by default (clock skew).
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(60);

/// The largest JWK Set read.
const MAX_JWKS_BYTES: usize = 1024 * 1024;
/// Time allowed for fetching the JWK Set.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// Longer header values are refused before decoding.
const MAX_SIGNATURE_CHARS: usize = 8 * 1024;

/// Checks deliveries against a set of public keys, and optionally their token.
///
/// Clones share the keys, so a [`refresh`](Self::refresh) through one is seen by all.
#[derive(Clone)]
pub struct PushVerifier {
    keys: Arc<RwLock<Arc<[VerifyingKey]>>>,
    source: Option<Arc<JwksSource>>,
    max_age: Duration,
    leeway: Duration,
    token: Option<Secret>,
}

impl fmt::Debug for PushVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PushVerifier")
            .field("key_ids", &self.key_ids())
            .field("source", &self.source.as_ref().map(|source| &source.url))
            .field("max_age", &self.max_age)
            .field("leeway", &self.leeway)
            .field("token", &self.token)
            .finish()
    }
}

/// What a valid signature said.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifiedSignature {
    /// The key that signed.
    pub kid: String,
    /// The algorithm: `ES256`, `ES384` or `EdDSA`.
    pub algorithm: &'static str,
    /// When the delivery was signed (`iat`).
    pub issued_at: SystemTime,
}

/// A delivery that passed every check.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct VerifiedDelivery {
    /// The body.
    pub event: StreamResponse,
    /// Its signature.
    pub signature: VerifiedSignature,
}

impl PushVerifier {
    /// A verifier for the keys of a JWK Set (`{"keys": [...]}`, RFC 7517 §5). Keys this
    /// verifier cannot use (RSA, encryption keys, other curves) are skipped; a key without
    /// `kid` is named by its RFC 7638 thumbprint.
    ///
    /// # Errors
    /// [`PushVerifyError::InvalidJwks`] when there is no `keys` array,
    /// [`PushVerifyError::NoUsableKeys`] when no key in it is usable.
    pub fn from_jwks(jwks: &Value) -> Result<Self, PushVerifyError> {
        Ok(Self {
            keys: Arc::new(RwLock::new(parse_jwks(jwks)?)),
            source: None,
            max_age: DEFAULT_MAX_AGE,
            leeway: DEFAULT_LEEWAY,
            token: None,
        })
    }

    /// Fetches the keys from an agent: `origin_or_jwks_url` is the JWK Set's URL when its
    /// path ends in `.json`, else the agent's base URL, under which [`JWKS_PATH`] is read
    /// (see [`jwks_url`]). Redirects are not followed; the request gets 10 s and the set
    /// at most 1 MiB.
    ///
    /// # Errors
    /// [`PushVerifyError::Fetch`] when the set cannot be fetched (the source is a
    /// [`ClientError`]), and the errors of [`from_jwks`](Self::from_jwks).
    pub async fn fetch(origin_or_jwks_url: &str) -> Result<Self, PushVerifyError> {
        let transport = HttpTransport::new().map_err(|source| PushVerifyError::Fetch {
            url: origin_or_jwks_url.to_owned(),
            source: Box::new(source),
        })?;
        Self::fetch_with(origin_or_jwks_url, transport).await
    }

    /// As [`fetch`](Self::fetch), through `transport` (private CAs, an in-process agent).
    ///
    /// # Errors
    /// As [`fetch`](Self::fetch).
    pub async fn fetch_with(
        origin_or_jwks_url: &str,
        transport: impl Transport,
    ) -> Result<Self, PushVerifyError> {
        let source = JwksSource {
            url: jwks_url(origin_or_jwks_url)?,
            transport: Arc::new(transport),
        };
        let keys = source.fetch().await?;
        Ok(Self {
            keys: Arc::new(RwLock::new(keys)),
            source: Some(Arc::new(source)),
            max_age: DEFAULT_MAX_AGE,
            leeway: DEFAULT_LEEWAY,
            token: None,
        })
    }

    /// Fetches the keys again from where [`fetch`](Self::fetch) got them, after a
    /// [`PushVerifyError::UnknownKey`] (the agent rotated its key). Rate-limiting is the
    /// caller's: an unknown `kid` costs the sender nothing.
    ///
    /// # Errors
    /// [`PushVerifyError::NotFetched`] for keys given with [`from_jwks`](Self::from_jwks),
    /// else as [`fetch`](Self::fetch); the old keys stay in use after a failure.
    pub async fn refresh(&self) -> Result<(), PushVerifyError> {
        let source = self.source.as_ref().ok_or(PushVerifyError::NotFetched)?;
        let keys = source.fetch().await?;
        *self.keys.write().unwrap_or_else(PoisonError::into_inner) = keys;
        Ok(())
    }

    /// Refuses signatures older than `max_age` (default [`DEFAULT_MAX_AGE`], 5 minutes).
    #[must_use]
    pub fn max_age(mut self, max_age: Duration) -> Self {
        self.max_age = max_age;
        self
    }

    /// Accepts `iat` up to `leeway` in the future (default [`DEFAULT_LEEWAY`], 60 s).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Requires the push config's `token` in [`TOKEN_HEADER`] or [`LEGACY_TOKEN_HEADER`]
    /// (see [`check_token`]).
    #[must_use]
    pub fn expect_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(Secret::new(token));
        self
    }

    /// The ids of the keys in use.
    #[must_use]
    pub fn key_ids(&self) -> Vec<String> {
        self.current_keys()
            .iter()
            .map(|key| key.kid.clone())
            .collect()
    }

    /// Checks a delivery: its signature over the exact `body` bytes, the signature's age,
    /// the token when one is expected, and that the body is a `StreamResponse`.
    ///
    /// # Errors
    /// The first check that fails, in that order.
    pub fn verify(
        &self,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Result<VerifiedDelivery, PushVerifyError> {
        let signature = self.verify_signature(headers, body)?;
        if let Some(token) = &self.token {
            check_token(headers, token.expose())?;
        }
        let event = decode_body(body)?;
        Ok(VerifiedDelivery { event, signature })
    }

    /// Checks the signature alone: well formed, by a known key with an accepted algorithm,
    /// matching the header and `body`, and neither stale nor from the future.
    ///
    /// # Errors
    /// [`PushVerifyError::MissingSignature`], [`PushVerifyError::MalformedSignature`],
    /// [`PushVerifyError::UnsupportedAlgorithm`], [`PushVerifyError::UnknownKey`],
    /// [`PushVerifyError::AlgorithmMismatch`], [`PushVerifyError::BadSignature`],
    /// [`PushVerifyError::Stale`] or [`PushVerifyError::IssuedInFuture`].
    pub fn verify_signature(
        &self,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Result<VerifiedSignature, PushVerifyError> {
        let mut values = headers.get_all(SIGNATURE_HEADER).iter();
        let value = values.next().ok_or(PushVerifyError::MissingSignature)?;
        if values.next().is_some() {
            return Err(malformed("more than one signature header"));
        }
        let value = value
            .to_str()
            .map_err(|_| malformed("the header value is not visible ASCII"))?;
        if value.len() > MAX_SIGNATURE_CHARS {
            return Err(malformed("the header value is too long"));
        }
        let (encoded_header, encoded_signature) = value
            .split_once("..")
            .filter(|(header, signature)| !header.contains('.') && !signature.contains('.'))
            .ok_or_else(|| malformed("not a detached JWS (HEADER..SIGNATURE)"))?;
        let header = parse_protected_header(encoded_header)?;
        let kid = header.kid;
        let keys = self.current_keys();
        let key = keys
            .iter()
            .find(|key| key.kid == kid)
            .ok_or_else(|| PushVerifyError::UnknownKey { kid: kid.clone() })?;
        if key.algorithm != header.algorithm {
            return Err(PushVerifyError::AlgorithmMismatch {
                kid,
                alg: header.algorithm.name(),
            });
        }
        let signature = URL_SAFE_NO_PAD
            .decode(encoded_signature)
            .map_err(|_| malformed("the signature is not base64url"))?;
        let signing_input = format!("{encoded_header}.{}", URL_SAFE_NO_PAD.encode(body));
        UnparsedPublicKey::new(key.algorithm.ring(), &key.public)
            .verify(signing_input.as_bytes(), &signature)
            .map_err(|_| PushVerifyError::BadSignature { kid: kid.clone() })?;
        // The time is checked once the header is known to be the agent's.
        self.check_age(header.issued_at)?;
        Ok(VerifiedSignature {
            kid,
            algorithm: header.algorithm.name(),
            issued_at: UNIX_EPOCH + Duration::from_secs(header.issued_at),
        })
    }

    fn check_age(&self, issued_at: u64) -> Result<(), PushVerifyError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        if issued_at > now {
            let ahead_seconds = issued_at - now;
            if ahead_seconds > self.leeway.as_secs() {
                return Err(PushVerifyError::IssuedInFuture { ahead_seconds });
            }
            return Ok(());
        }
        let age_seconds = now - issued_at;
        if age_seconds > self.max_age.as_secs() {
            return Err(PushVerifyError::Stale {
                age_seconds,
                max_age_seconds: self.max_age.as_secs(),
            });
        }
        Ok(())
    }

    fn current_keys(&self) -> Arc<[VerifyingKey]> {
        Arc::clone(&self.keys.read().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Checks that the delivery carries `expected` in [`TOKEN_HEADER`] or
/// [`LEGACY_TOKEN_HEADER`]; every such header present must hold it. The comparison takes
/// the same time wherever the values differ.
///
/// # Errors
/// [`PushVerifyError::MissingToken`] when neither header is present,
/// [`PushVerifyError::TokenMismatch`] when one holds something else.
pub fn check_token(headers: &HeaderMap, expected: &str) -> Result<(), PushVerifyError> {
    let mut seen = false;
    let mut all_match = true;
    for name in [TOKEN_HEADER, LEGACY_TOKEN_HEADER] {
        for value in headers.get_all(name) {
            seen = true;
            all_match &= same_secret(value.as_bytes(), expected.as_bytes());
        }
    }
    match (seen, all_match) {
        (false, _) => Err(PushVerifyError::MissingToken),
        (true, false) => Err(PushVerifyError::TokenMismatch),
        (true, true) => Ok(()),
    }
}

/// Decodes a delivery body.
///
/// # Errors
/// [`PushVerifyError::InvalidBody`] when it is not a `StreamResponse`.
pub fn decode_body(body: &[u8]) -> Result<StreamResponse, PushVerifyError> {
    a2a_types::json::from_slice(body).map_err(|error| PushVerifyError::InvalidBody {
        reason: error.to_string(),
    })
}

/// The JWK Set URL for `origin_or_jwks_url`: the URL itself when its path ends in `.json`,
/// else [`JWKS_PATH`] under its path (`https://agent.example.com` →
/// `https://agent.example.com/.well-known/jwks.json`, `http://host/agents/echo` →
/// `http://host/agents/echo/.well-known/jwks.json`).
///
/// # Errors
/// [`PushVerifyError::Fetch`] with [`ClientError::Config`] when it is not an http(s) URL.
pub fn jwks_url(origin_or_jwks_url: &str) -> Result<Url, PushVerifyError> {
    let invalid = || PushVerifyError::Fetch {
        url: origin_or_jwks_url.to_owned(),
        source: Box::new(ClientError::Config {
            reason: "not an absolute http(s) url".into(),
        }),
    };
    let mut url = Url::parse(origin_or_jwks_url.trim()).map_err(|_| invalid())?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(invalid());
    }
    url.set_fragment(None);
    if !url.path().ends_with(".json") {
        let path = format!("{}{JWKS_PATH}", url.path().trim_end_matches('/'));
        url.set_path(&path);
        url.set_query(None);
    }
    Ok(url)
}

/// Compares SHA-256 digests byte by byte without stopping early, so the time taken says
/// nothing about where the values differ, nor about their lengths.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    let given = ring::digest::digest(&ring::digest::SHA256, given);
    let expected = ring::digest::digest(&ring::digest::SHA256, expected);
    given
        .as_ref()
        .iter()
        .zip(expected.as_ref())
        .fold(0u8, |difference, (a, b)| difference | (a ^ b))
        == 0
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;
    use serde_json::json;

    use super::*;

    #[test]
    fn jwks_urls_default_to_the_well_known_path() {
        let cases = [
            (
                "https://agent.example.com",
                "https://agent.example.com/.well-known/jwks.json",
            ),
            (
                "http://h:8080/agents/echo/",
                "http://h:8080/agents/echo/.well-known/jwks.json",
            ),
            ("http://h/keys.json?v=2", "http://h/keys.json?v=2"),
        ];
        for (given, expected) in cases {
            assert_eq!(jwks_url(given).unwrap().as_str(), expected, "{given}");
        }
        assert!(jwks_url("ftp://h/").is_err());
        assert!(jwks_url("/relative").is_err());
    }

    #[test]
    fn tokens_must_all_match() {
        let mut headers = HeaderMap::new();
        assert!(matches!(
            check_token(&headers, "t1"),
            Err(PushVerifyError::MissingToken)
        ));
        headers.insert(LEGACY_TOKEN_HEADER, HeaderValue::from_static("t1"));
        check_token(&headers, "t1").unwrap();
        headers.insert(TOKEN_HEADER, HeaderValue::from_static("t2"));
        let error = check_token(&headers, "t1").unwrap_err();
        assert!(matches!(error, PushVerifyError::TokenMismatch));
        assert!(!error.to_string().contains("t2") && !error.to_string().contains("t1"));
        assert!(!same_secret(b"t1", b"t1x"));
        assert!(same_secret(b"", b""));
    }

    #[test]
    fn debug_never_shows_the_token() {
        let jwks = json!({"keys": [{
            "kty": "OKP", "crv": "Ed25519", "kid": "k",
            "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
        }]});
        let verifier = PushVerifier::from_jwks(&jwks)
            .unwrap()
            .expect_token("super-secret");
        assert!(!format!("{verifier:?}").contains("super-secret"));
    }
}
