//! Checking push deliveries at a webhook (spec §10.5: receivers must validate authenticity):
//! the detached JWS an agent signs each delivery with, its notification token, and the
//! `StreamResponse` body.
//!
//! An agent built with `a2a-server` and a push signer sends [`SIGNATURE_HEADER`] with
//! `BASE64URL(header) + ".." + BASE64URL(signature)` (RFC 7515 Appendix F), the signature
//! covering `BASE64URL(header) + "." + BASE64URL(body)`. The protected header names the
//! algorithm (`alg`), the key (`kid`), the type ([`SIGNATURE_TYPE`]) and when it was signed
//! (`iat`, unix seconds); the agent's public keys are a JWK Set at [`JWKS_PATH`]. The token
//! of the push config, when it has one, comes in [`TOKEN_HEADER`] and [`LEGACY_TOKEN_HEADER`]
//! (D-17).
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

use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_types::StreamResponse;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use http::HeaderMap;
use http::header::{ACCEPT, HeaderValue};
use ring::signature::{self, UnparsedPublicKey};
use serde_json::Value;
use url::Url;

use crate::Secret;
use crate::error::{ClientError, TimeoutKind};
use crate::transport::{HttpTransport, Transport, read_body};

/// The header carrying a delivery's detached JWS.
pub const SIGNATURE_HEADER: &str = "A2A-Notification-Signature";
/// The header carrying the push config's token (D-17).
pub const TOKEN_HEADER: &str = "A2A-Notification-Token";
/// The token header of v0.3 and the Python SDK, sent too (D-17).
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
/// Key ids in errors are cut to this many characters; they come from the sender.
const MAX_KID_CHARS: usize = 64;

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

#[derive(Debug)]
struct JwksSource {
    url: Url,
    transport: Arc<dyn Transport>,
}

/// One public key of the set.
#[derive(Debug, Clone)]
struct VerifyingKey {
    kid: String,
    algorithm: Algorithm,
    /// An uncompressed EC point (`0x04 || x || y`) or an Ed25519 public key.
    public: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Es256,
    Es384,
    EdDsa,
}

impl Algorithm {
    fn from_name(name: &str) -> Option<Self> {
        match name {
            "ES256" => Some(Self::Es256),
            "ES384" => Some(Self::Es384),
            "EdDSA" => Some(Self::EdDsa),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Es256 => "ES256",
            Self::Es384 => "ES384",
            Self::EdDsa => "EdDSA",
        }
    }

    fn ring(self) -> &'static dyn signature::VerificationAlgorithm {
        match self {
            Self::Es256 => &signature::ECDSA_P256_SHA256_FIXED,
            Self::Es384 => &signature::ECDSA_P384_SHA384_FIXED,
            Self::EdDsa => &signature::ED25519,
        }
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

/// Why a delivery, or a key set, was refused. Messages never hold the token, and values that
/// came from the sender (key ids, algorithm names) are quoted and cut short.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PushVerifyError {
    /// The delivery has no [`SIGNATURE_HEADER`].
    #[error("no {SIGNATURE_HEADER} header")]
    MissingSignature,
    /// The header is not a detached compact JWS with the expected protected header.
    #[error("malformed signature: {reason}")]
    MalformedSignature {
        /// What is wrong.
        reason: &'static str,
    },
    /// `alg` is not ES256, ES384 or EdDSA (`none` and HS* are always refused).
    #[error("algorithm {alg:?} is not accepted")]
    UnsupportedAlgorithm {
        /// The algorithm named.
        alg: String,
    },
    /// No key of the set has this id (the agent may have rotated its key: fetch the set
    /// again, see [`PushVerifier::refresh`]).
    #[error("unknown key {kid:?}")]
    UnknownKey {
        /// The key id named.
        kid: String,
    },
    /// The key named is not a key for the algorithm named.
    #[error("key {kid:?} is not an {alg} key")]
    AlgorithmMismatch {
        /// The key id.
        kid: String,
        /// The algorithm named.
        alg: &'static str,
    },
    /// The signature does not match the body and header.
    #[error("signature does not match (key {kid:?})")]
    BadSignature {
        /// The key id named.
        kid: String,
    },
    /// `iat` is older than the maximum age: possibly a replay.
    #[error("signed {age_seconds} s ago, more than the {max_age_seconds} s allowed")]
    Stale {
        /// How long ago it was signed.
        age_seconds: u64,
        /// The maximum age.
        max_age_seconds: u64,
    },
    /// `iat` is further in the future than the leeway allows.
    #[error("signed {ahead_seconds} s in the future")]
    IssuedInFuture {
        /// How far ahead.
        ahead_seconds: u64,
    },
    /// A token was expected and none came.
    #[error("no notification token")]
    MissingToken,
    /// A token came that is not the expected one.
    #[error("wrong notification token")]
    TokenMismatch,
    /// The body is not a `StreamResponse`.
    #[error("the body is not a StreamResponse: {reason}")]
    InvalidBody {
        /// The decoder's complaint.
        reason: String,
    },
    /// The key set is not a JWK Set.
    #[error("invalid JWK Set: {reason}")]
    InvalidJwks {
        /// What is wrong.
        reason: String,
    },
    /// The key set holds no key this verifier can use.
    #[error("the JWK Set has no ES256, ES384 or EdDSA signing key")]
    NoUsableKeys,
    /// The key set could not be fetched.
    #[error("cannot fetch the JWK Set at {url}")]
    Fetch {
        /// Where it was fetched from, without its query.
        url: String,
        /// Why (boxed: a [`ClientError`] is large).
        #[source]
        source: Box<ClientError>,
    },
    /// [`PushVerifier::refresh`] on a verifier whose keys were given, not fetched.
    #[error("the keys were given, not fetched, so they cannot be fetched again")]
    NotFetched,
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

impl JwksSource {
    async fn fetch(&self) -> Result<Arc<[VerifyingKey]>, PushVerifyError> {
        let mut shown = self.url.clone();
        shown.set_query(None);
        let failed = |source| PushVerifyError::Fetch {
            url: shown.to_string(),
            source: Box::new(source),
        };
        let body = tokio::time::timeout(FETCH_TIMEOUT, self.fetch_body())
            .await
            .unwrap_or(Err(ClientError::Timeout(TimeoutKind::Request)))
            .map_err(failed)?;
        let jwks: Value =
            serde_json::from_slice(&body).map_err(|error| PushVerifyError::InvalidJwks {
                reason: format!("not JSON ({error})"),
            })?;
        parse_jwks(&jwks)
    }

    async fn fetch_body(&self) -> Result<Bytes, ClientError> {
        let mut request = http::Request::get(self.url.as_str())
            .body(Bytes::new())
            .map_err(|error| ClientError::Config {
                reason: format!("invalid JWK Set url: {error}"),
            })?;
        request.headers_mut().insert(
            ACCEPT,
            HeaderValue::from_static("application/jwk-set+json, application/json"),
        );
        let response = self.transport.send(request).await?;
        let status = response.status();
        if !status.is_success() {
            return Err(ClientError::Http {
                status: status.as_u16(),
                body: String::new(),
            });
        }
        read_body(response.into_body(), MAX_JWKS_BYTES).await
    }
}

/// The usable keys of a JWK Set.
fn parse_jwks(jwks: &Value) -> Result<Arc<[VerifyingKey]>, PushVerifyError> {
    let keys =
        jwks.get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| PushVerifyError::InvalidJwks {
                reason: "no \"keys\" array".into(),
            })?;
    let usable: Vec<VerifyingKey> = keys.iter().filter_map(parse_jwk).collect();
    if usable.is_empty() {
        return Err(PushVerifyError::NoUsableKeys);
    }
    Ok(usable.into())
}

/// One JWK, when it is a signature key of an accepted algorithm.
fn parse_jwk(jwk: &Value) -> Option<VerifyingKey> {
    let text = |name: &str| jwk.get(name).and_then(Value::as_str);
    if text("use").is_some_and(|usage| usage != "sig") {
        return None;
    }
    if let Some(operations) = jwk.get("key_ops").and_then(Value::as_array)
        && !operations.iter().any(|operation| operation == "verify")
    {
        return None;
    }
    let coordinate = |name: &str, length: usize| {
        URL_SAFE_NO_PAD
            .decode(text(name)?)
            .ok()
            .filter(|bytes| bytes.len() == length)
    };
    let (algorithm, public, thumbprint_input) = match (text("kty")?, text("crv")?) {
        ("EC", curve @ ("P-256" | "P-384")) => {
            let (algorithm, length) = if curve == "P-256" {
                (Algorithm::Es256, 32)
            } else {
                (Algorithm::Es384, 48)
            };
            let mut point = vec![0x04];
            point.extend(coordinate("x", length)?);
            point.extend(coordinate("y", length)?);
            // RFC 7638 §3.2: the required members in lexicographic order.
            let canonical = format!(
                r#"{{"crv":"{curve}","kty":"EC","x":"{}","y":"{}"}}"#,
                text("x")?,
                text("y")?
            );
            (algorithm, point, canonical)
        }
        ("OKP", "Ed25519") => {
            let public = coordinate("x", 32)?;
            // RFC 8037 §2.
            let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{}"}}"#, text("x")?);
            (Algorithm::EdDsa, public, canonical)
        }
        _ => return None,
    };
    if let Some(alg) = text("alg")
        && Algorithm::from_name(alg) != Some(algorithm)
    {
        return None;
    }
    let kid = match text("kid") {
        Some(kid) => kid.to_owned(),
        None => thumbprint(&thumbprint_input),
    };
    Some(VerifyingKey {
        kid,
        algorithm,
        public,
    })
}

/// RFC 7638: SHA-256 of the canonical JSON, base64url.
fn thumbprint(canonical: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(
        &ring::digest::SHA256,
        canonical.as_bytes(),
    ))
}

/// The protected header's members this verifier relies on.
struct ProtectedHeader {
    algorithm: Algorithm,
    kid: String,
    issued_at: u64,
}

fn parse_protected_header(encoded: &str) -> Result<ProtectedHeader, PushVerifyError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(encoded)
        .map_err(|_| malformed("the protected header is not base64url"))?;
    let header: serde_json::Map<String, Value> = serde_json::from_slice(&bytes)
        .map_err(|_| malformed("the protected header is not a JSON object"))?;
    // RFC 7515 §4.1.11: extensions we do not understand must not be ignored.
    if header.contains_key("crit") {
        return Err(malformed("the protected header has crit"));
    }
    let alg = header
        .get("alg")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("the protected header has no alg"))?;
    let algorithm = Algorithm::from_name(alg)
        .ok_or_else(|| PushVerifyError::UnsupportedAlgorithm { alg: shorten(alg) })?;
    // RFC 7515 §4.1.9: `typ` compares case-insensitively and may carry `application/`.
    let typ = header
        .get("typ")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let typ = typ
        .get(..12)
        .filter(|prefix| prefix.eq_ignore_ascii_case("application/"))
        .map_or(typ, |_| &typ[12..]);
    if !typ.eq_ignore_ascii_case(SIGNATURE_TYPE) {
        return Err(malformed("typ is not a2a-push+jws"));
    }
    let kid = header
        .get("kid")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("the protected header has no kid"))?;
    let issued_at = header
        .get("iat")
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed("the protected header has no iat in unix seconds"))?;
    Ok(ProtectedHeader {
        algorithm,
        kid: shorten(kid),
        issued_at,
    })
}

fn malformed(reason: &'static str) -> PushVerifyError {
    PushVerifyError::MalformedSignature { reason }
}

/// A sender's value, cut to [`MAX_KID_CHARS`] characters for errors and lookups (longer
/// key ids are never published by the agent, so cutting cannot make one match).
fn shorten(value: &str) -> String {
    if value.chars().count() <= MAX_KID_CHARS {
        value.to_owned()
    } else {
        let mut short: String = value.chars().take(MAX_KID_CHARS).collect();
        short.push('…');
        short
    }
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
    use serde_json::json;

    use super::*;

    #[test]
    fn a_key_without_kid_is_named_by_its_thumbprint() {
        // RFC 8037 Appendix A.3.
        let jwks = json!({"keys": [{
            "kty": "OKP", "crv": "Ed25519",
            "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
        }]});
        let verifier = PushVerifier::from_jwks(&jwks).unwrap();
        assert_eq!(
            verifier.key_ids(),
            ["kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"]
        );
    }

    #[test]
    fn unusable_keys_are_skipped() {
        let ec = json!({
            "kty": "EC", "crv": "P-256", "kid": "ok",
            "x": "0qnx6ykVf1n1eABwciRscVccHLcGHIB9DBlCoaW0Ids",
            "y": "krCI6IHkjFuWlHt2Q0T2DzpKm4KGvaaHrNUmGCXMgvQ",
        });
        let mut encryption = ec.clone();
        encryption["use"] = json!("enc");
        encryption["kid"] = json!("enc");
        let mut wrong_alg = ec.clone();
        wrong_alg["alg"] = json!("ES384");
        wrong_alg["kid"] = json!("wrong-alg");
        let rsa = json!({"kty": "RSA", "kid": "rsa", "n": "AQAB", "e": "AQAB"});
        let jwks = json!({"keys": [rsa, encryption, wrong_alg, ec]});
        assert_eq!(PushVerifier::from_jwks(&jwks).unwrap().key_ids(), ["ok"]);
        assert!(matches!(
            PushVerifier::from_jwks(&json!({"keys": [{"kty": "oct", "k": "c2VjcmV0"}]})),
            Err(PushVerifyError::NoUsableKeys)
        ));
        assert!(matches!(
            PushVerifier::from_jwks(&json!([])),
            Err(PushVerifyError::InvalidJwks { .. })
        ));
    }

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
    fn sender_values_in_errors_are_cut_short() {
        let long = "k".repeat(500);
        assert_eq!(shorten(&long).chars().count(), MAX_KID_CHARS + 1);
        assert_eq!(shorten("short"), "short");
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
