//! Checks the JWS signatures (RFC 7515) that a registered agent card carries (spec §11.5).

use std::time::Duration;

use a2a_signature::{CardSignature, CardSignatureError, VerifyingKey, encoded_payload};
use serde_json::{Map, Value};

/// The longest a `jku` fetch may take.
const JKU_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest JWK Set read from a `jku`.
const JKU_MAX_BYTES: usize = 64 * 1024;

/// How the registry checks the signatures of the cards it registers (item 8, spec §11.5).
///
/// A card without `signatures` (or with an empty list) is accepted, unless
/// [`require_signature`](Self::require_signature) is on. A card with signatures is
/// accepted when at least one checks; it is refused when a signature whose key was found
/// does not match (the card was changed after signing), or when no signature could be
/// checked at all. Each signature covers [`signed_payload`](super::signed_payload) of the
/// card, under the `alg` of its protected header: ES256, ES384, EdDSA (Ed25519), RS256/384/512
/// or PS256/384/512; `none` and HMAC are refused, and so is any `crit` header. Parsing and
/// checking are `a2a_signature`'s, the code the client and `a2a serve` use too.
///
/// The key of a signature is, in this order:
///
/// 1. a [trusted key](Self::trusted_keys) whose `kid` is the header's `kid`;
/// 2. the `jwk` of the protected header, unless [`embedded_keys`](Self::embedded_keys) is
///    off. Such a key proves that the card is unchanged since its signer signed it, not
///    who the signer is; trust the signer by listing its key as trusted;
/// 3. the key with the header's `kid` in the JWK Set at the protected header's `jku`, when
///    [`fetch_jku`](Self::fetch_jku) is on (off by default, so that a register request
///    cannot make the gateway fetch a URL it names). Only `https` is fetched, within 5 s,
///    at most 64 KiB, without redirects.
#[derive(Debug, Clone)]
#[must_use]
pub struct SignaturePolicy {
    require_signature: bool,
    embedded_keys: bool,
    fetch_jku: bool,
    trusted: Vec<VerifyingKey>,
    http: Option<reqwest::Client>,
}

impl Default for SignaturePolicy {
    fn default() -> Self {
        Self {
            require_signature: false,
            embedded_keys: true,
            fetch_jku: false,
            trusted: Vec::new(),
            http: None,
        }
    }
}

impl SignaturePolicy {
    /// The default policy: unsigned cards accepted, embedded `jwk` keys used, no `jku`
    /// fetched, no trusted keys.
    pub fn new() -> Self {
        Self::default()
    }

    /// Refuse cards without signatures (default off).
    pub fn require_signature(mut self, on: bool) -> Self {
        self.require_signature = on;
        self
    }

    /// Use a `jwk` carried in a signature's protected header (default on).
    pub fn embedded_keys(mut self, on: bool) -> Self {
        self.embedded_keys = on;
        self
    }

    /// Fetch the JWK Set an `https` `jku` names (default off).
    pub fn fetch_jku(mut self, on: bool) -> Self {
        self.fetch_jku = on;
        self
    }

    /// The HTTP client `jku` fetches use, e.g. one that trusts a private CA. Its own
    /// timeout and redirect settings apply; the 64 KiB limit still does.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// Trusts the keys of a JWK Set (`{"keys": [...]}`), found by `kid`. Keys of types the
    /// registry cannot use are skipped.
    ///
    /// # Errors
    /// [`SignatureError::TrustedKeys`] when `jwks` is not a JWK Set.
    pub fn trusted_keys(mut self, jwks: &Value) -> Result<Self, SignatureError> {
        let keys =
            VerifyingKey::from_jwk_set(jwks).map_err(|error| SignatureError::TrustedKeys {
                reason: error.to_string(),
            })?;
        self.trusted.extend(keys);
        Ok(self)
    }

    /// Checks the signatures of `card` (the card without registration members).
    pub(crate) async fn check(&self, card: &Map<String, Value>) -> Result<(), SignatureError> {
        let signatures = match card.get("signatures") {
            Some(Value::Array(signatures)) if !signatures.is_empty() => signatures,
            Some(Value::Array(_) | Value::Null) | None => {
                return if self.require_signature {
                    Err(SignatureError::Missing)
                } else {
                    Ok(())
                };
            }
            Some(_) => {
                return Err(SignatureError::Malformed {
                    index: 0,
                    reason: "`signatures` must be an array".to_owned(),
                });
            }
        };
        let payload = encoded_payload(card);
        let mut first_failure = None;
        for (index, signature) in signatures.iter().enumerate() {
            match self.check_one(index, signature, &payload).await {
                Ok(()) => return self.check_rest(signatures, index + 1, &payload).await,
                Err(error @ SignatureError::Mismatch { .. }) => return Err(error),
                Err(error) => {
                    first_failure.get_or_insert(error);
                }
            }
        }
        Err(first_failure.unwrap_or(SignatureError::Missing))
    }

    /// After one signature checked: the others may be unverifiable (key rotation), but
    /// none may mismatch.
    async fn check_rest(
        &self,
        signatures: &[Value],
        from: usize,
        payload: &str,
    ) -> Result<(), SignatureError> {
        for (index, signature) in signatures.iter().enumerate().skip(from) {
            if let Err(error @ SignatureError::Mismatch { .. }) =
                self.check_one(index, signature, payload).await
            {
                return Err(error);
            }
        }
        Ok(())
    }

    async fn check_one(
        &self,
        index: usize,
        signature: &Value,
        payload: &str,
    ) -> Result<(), SignatureError> {
        let signature = CardSignature::parse(index, signature).map_err(SignatureError::from)?;
        let key = self.key(&signature).await?;
        signature
            .verify(payload, &key)
            .map_err(SignatureError::from)
    }

    /// The key of one signature, by the order the type's docs give.
    async fn key(&self, signature: &CardSignature) -> Result<VerifyingKey, SignatureError> {
        let index = signature.index();
        let header = signature.header();
        let kid = signature.kid();
        if let Some(kid) = kid
            && let Some(key) = self.trusted.iter().find(|key| key.kid() == kid)
        {
            return Ok(key.clone());
        }
        if self.embedded_keys
            && let Some(jwk) = header.get("jwk")
        {
            return VerifyingKey::from_value(jwk).map_err(|error| SignatureError::Malformed {
                index,
                reason: format!("`jwk`: {error}"),
            });
        }
        if let Some(jku) = signature.jku() {
            if !self.fetch_jku {
                return Err(SignatureError::NoKey {
                    index,
                    reason: "the registry does not fetch `jku` key sets; embed the public key \
                             as `jwk` in the protected header"
                        .to_owned(),
                });
            }
            let keys = self.fetch(index, jku).await?;
            let mut matching = keys
                .iter()
                .filter(|key| kid.is_none() || key.declared_kid() == kid);
            return match (matching.next(), matching.next()) {
                (Some(key), None) => Ok(key.clone()),
                (Some(_), Some(_)) => Err(SignatureError::NoKey {
                    index,
                    reason: format!("the key set at {jku} has several keys and no `kid` picks one"),
                }),
                (None, _) => Err(SignatureError::NoKey {
                    index,
                    reason: format!("the key set at {jku} has no key {:?}", kid.unwrap_or("")),
                }),
            };
        }
        Err(SignatureError::NoKey {
            index,
            reason: match kid {
                Some(kid) => format!("no trusted key {kid:?} and no `jwk` in the protected header"),
                None => "no `kid`, `jwk` or `jku` in the protected header".to_owned(),
            },
        })
    }

    async fn fetch(&self, index: usize, jku: &str) -> Result<Vec<VerifyingKey>, SignatureError> {
        let failed = |reason: String| SignatureError::KeyFetch {
            index,
            url: jku.to_owned(),
            reason,
        };
        let url = url::Url::parse(jku).map_err(|_| failed("not a URL".to_owned()))?;
        if url.scheme() != "https" {
            return Err(failed("only https key sets are fetched".to_owned()));
        }
        let client = match &self.http {
            Some(client) => client.clone(),
            None => reqwest::Client::builder()
                .timeout(JKU_TIMEOUT)
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|_| failed("no HTTP client".to_owned()))?,
        };
        let mut response = client
            .get(url)
            .header(
                http::header::ACCEPT,
                "application/jwk-set+json, application/json",
            )
            .send()
            .await
            .map_err(|_| failed("unreachable".to_owned()))?;
        if !response.status().is_success() {
            return Err(failed(format!("HTTP {}", response.status().as_u16())));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|_| failed("the body was cut off".to_owned()))?
        {
            if body.len() + chunk.len() > JKU_MAX_BYTES {
                return Err(failed(format!("larger than {JKU_MAX_BYTES} bytes")));
            }
            body.extend_from_slice(&chunk);
        }
        let jwks: Value =
            serde_json::from_slice(&body).map_err(|_| failed("not JSON".to_owned()))?;
        VerifyingKey::from_jwk_set(&jwks).map_err(|error| failed(error.to_string()))
    }
}

impl From<CardSignatureError> for SignatureError {
    fn from(error: CardSignatureError) -> Self {
        match error {
            CardSignatureError::Malformed { index, reason } => Self::Malformed { index, reason },
            CardSignatureError::UnsupportedAlgorithm { index, alg } => {
                Self::UnsupportedAlgorithm { index, alg }
            }
            CardSignatureError::UnknownKey { index, .. } => Self::NoKey {
                index,
                reason: "no key names it".to_owned(),
            },
            CardSignatureError::AlgorithmMismatch { index, alg, .. } => Self::NoKey {
                index,
                reason: format!("its key cannot check {alg}"),
            },
            CardSignatureError::BadSignature { index, .. } => Self::Mismatch { index },
            CardSignatureError::NoSignature => Self::Missing,
            _ => Self::Malformed {
                index: 0,
                reason: "cannot be checked".to_owned(),
            },
        }
    }
}

/// Why a card's signatures are refused (400 at `POST /agents/register`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignatureError {
    /// The policy requires a signature and the card has none.
    #[error("the card must be signed: this registry requires `signatures`")]
    Missing,
    /// A signature object cannot be read.
    #[error("signature {index}: {reason}")]
    Malformed {
        /// Its position in `signatures`.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// The `alg` is not one the registry checks.
    #[error("signature {index}: unsupported algorithm {alg:?}")]
    UnsupportedAlgorithm {
        /// Its position in `signatures`.
        index: usize,
        /// The `alg` as given.
        alg: String,
    },
    /// No key to check the signature with.
    #[error("signature {index} cannot be checked: {reason}")]
    NoKey {
        /// Its position in `signatures`.
        index: usize,
        /// Why no key was found.
        reason: String,
    },
    /// The `jku` key set could not be fetched.
    #[error("signature {index}: cannot fetch the key set at {url}: {reason}")]
    KeyFetch {
        /// Its position in `signatures`.
        index: usize,
        /// The `jku`.
        url: String,
        /// Why.
        reason: String,
    },
    /// The signature does not match the card: it was changed after signing, or signed
    /// differently.
    #[error("signature {index} does not match the card")]
    Mismatch {
        /// Its position in `signatures`.
        index: usize,
    },
    /// The trusted keys given to the policy are not a JWK Set.
    #[error("trusted keys: {reason}")]
    TrustedKeys {
        /// Why.
        reason: String,
    },
}
