//! The verifier itself: its keys and settings, and the checks of one delivery.

use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_types::StreamResponse;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::HeaderMap;
use serde_json::Value;

use super::header::{malformed, parse_protected_header};
use super::keys::{JwksSource, VerifyingKey, jwks_url, parse_jwks};
use super::token::check_token;
use super::wire::SIGNATURE_HEADER;
#[cfg(doc)]
use super::wire::{JWKS_PATH, LEGACY_TOKEN_HEADER, TOKEN_HEADER};
use super::{
    DEFAULT_LEEWAY, DEFAULT_MAX_AGE, MAX_SIGNATURE_CHARS, PushVerifier, PushVerifyError,
    VerifiedDelivery, VerifiedSignature,
};
use crate::Secret;
#[cfg(doc)]
use crate::error::ClientError;
use crate::transport::{HttpTransport, Transport};

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
        if URL_SAFE_NO_PAD.decode(encoded_signature).is_err() {
            return Err(malformed("the signature is not base64url"));
        }
        let signing_input = format!("{encoded_header}.{}", URL_SAFE_NO_PAD.encode(body));
        key.key
            .verify(
                key.algorithm.jws(),
                signing_input.as_bytes(),
                encoded_signature,
            )
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

/// Decodes a delivery body.
///
/// # Errors
/// [`PushVerifyError::InvalidBody`] when it is not a `StreamResponse`.
pub fn decode_body(body: &[u8]) -> Result<StreamResponse, PushVerifyError> {
    a2a_types::json::from_slice(body).map_err(|error| PushVerifyError::InvalidBody {
        reason: error.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
