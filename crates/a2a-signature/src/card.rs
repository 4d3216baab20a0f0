//! Signing an agent card and checking its signatures (spec §11.5): a detached JWS in
//! flattened JSON form, `{protected, signature}`, over
//! `BASE64URL(protected) || "." || BASE64URL(signed_payload(card))`.

use a2a_types::AgentCard;
use a2a_types::card::AgentCardSignature;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::Algorithm;
use serde_json::{Map, Value};

use crate::canonical::signed_payload;
use crate::keys::{KeyError, SigningKey, VerifyError, VerifyingKey, algorithm, algorithm_name};

/// The `typ` of a card signature's protected header.
pub const JOSE_TYPE: &str = "JOSE";

/// The signature of `card` (a card as JSON; its `signatures` are ignored) by `key`. The
/// protected header holds `alg`, `kid`, `typ: "JOSE"`, the public key as `jwk` and, when
/// given, `jku`: the URL of the JWK Set holding the public key.
///
/// # Errors
/// [`CardSignatureError::Signing`] when the key fails to sign.
pub fn sign_card(
    card: &Map<String, Value>,
    key: &SigningKey,
    jku: Option<&str>,
) -> Result<AgentCardSignature, CardSignatureError> {
    let mut header = Map::new();
    header.insert("alg".into(), algorithm_name(key.algorithm()).into());
    header.insert("kid".into(), key.kid().into());
    header.insert("typ".into(), JOSE_TYPE.into());
    // The public key itself (RFC 7515 §4.1.3): lets a registry check that the card is
    // unchanged since signing; a verifier still trusts keys only from its own sources.
    if let Ok(jwk) = serde_json::to_value(key.public_jwk()) {
        header.insert("jwk".into(), jwk);
    }
    if let Some(jku) = jku {
        header.insert("jku".into(), jku.into());
    }
    let protected = URL_SAFE_NO_PAD.encode(Value::Object(header).to_string());
    let input = format!("{protected}.{}", encoded_payload(card));
    let signature = key
        .sign(input.as_bytes())
        .map_err(CardSignatureError::Signing)?;
    Ok(AgentCardSignature {
        protected,
        signature,
        header: None,
    })
}

/// Adds `key`'s signature to `card`, signing the JSON the card serialises to.
///
/// ```
/// use a2a_signature::{SigningKey, VerifyingKey, sign_agent_card, verify_card};
/// use a2a_types::AgentCard;
///
/// let key = SigningKey::generate_es256()?;
/// let mut card = AgentCard::new("Echo", "Echoes.", "1.0.0");
/// sign_agent_card(&mut card, &key, None)?;
///
/// let served = serde_json::to_value(&card)?;
/// let trusted = [VerifyingKey::from_jwk(key.public_jwk())?];
/// let verified = verify_card(served.as_object().unwrap(), &trusted)?;
/// assert_eq!(verified.kid, key.kid());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`CardSignatureError::Signing`] when the key fails to sign.
pub fn sign_agent_card(
    card: &mut AgentCard,
    key: &SigningKey,
    jku: Option<&str>,
) -> Result<(), CardSignatureError> {
    let json =
        serde_json::to_value(&*card).map_err(|_| CardSignatureError::Signing(KeyError::Signing))?;
    let Value::Object(json) = json else {
        return Err(CardSignatureError::Signing(KeyError::Signing));
    };
    let signature = sign_card(&json, key, jku)?;
    card.signatures.push(signature);
    Ok(())
}

/// `BASE64URL(signed_payload(card))`, the second half of every signing input.
#[must_use]
pub fn encoded_payload(card: &Map<String, Value>) -> String {
    URL_SAFE_NO_PAD.encode(signed_payload(card))
}

/// The `signatures` of a card.
///
/// # Errors
/// [`CardSignatureError::NoSignature`] when there are none,
/// [`CardSignatureError::Malformed`] when `signatures` is not an array.
pub fn card_signatures(card: &Map<String, Value>) -> Result<&[Value], CardSignatureError> {
    match card.get("signatures") {
        Some(Value::Array(signatures)) if !signatures.is_empty() => Ok(signatures),
        Some(Value::Array(_) | Value::Null) | None => Err(CardSignatureError::NoSignature),
        Some(_) => Err(CardSignatureError::Malformed {
            index: 0,
            reason: "`signatures` must be an array".to_owned(),
        }),
    }
}

/// One entry of a card's `signatures`, read.
#[derive(Debug, Clone)]
pub struct CardSignature {
    index: usize,
    alg: Algorithm,
    kid: Option<String>,
    header: Map<String, Value>,
    protected: String,
    signature: String,
}

impl CardSignature {
    /// Reads the signature at `index`: `protected` a base64url JSON object with a supported
    /// `alg` and no `crit`, `signature` base64url. The `kid` comes from the protected header,
    /// else from the unprotected `header`.
    ///
    /// # Errors
    /// [`CardSignatureError::Malformed`] or [`CardSignatureError::UnsupportedAlgorithm`].
    pub fn parse(index: usize, signature: &Value) -> Result<Self, CardSignatureError> {
        let malformed = |reason: &str| CardSignatureError::Malformed {
            index,
            reason: reason.to_owned(),
        };
        let text = |member: &str| {
            signature
                .get(member)
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
        };
        let protected = text("protected").ok_or_else(|| malformed("`protected` is required"))?;
        let encoded_signature = text("signature")
            .map(|text| text.trim_end_matches('='))
            .filter(|text| URL_SAFE_NO_PAD.decode(text).is_ok())
            .ok_or_else(|| malformed("`signature` must be base64url"))?;
        let header: Map<String, Value> = URL_SAFE_NO_PAD
            .decode(protected.trim_end_matches('='))
            .ok()
            .and_then(|json| serde_json::from_slice(&json).ok())
            .ok_or_else(|| malformed("`protected` must be a base64url JSON object"))?;
        if header.contains_key("crit") {
            return Err(malformed(
                "critical header parameters (`crit`) are not supported",
            ));
        }
        let alg_name = header.get("alg").and_then(Value::as_str).unwrap_or("");
        let alg = algorithm(alg_name).ok_or_else(|| CardSignatureError::UnsupportedAlgorithm {
            index,
            alg: alg_name.to_owned(),
        })?;
        let kid = header
            .get("kid")
            .or_else(|| signature.get("header").and_then(|header| header.get("kid")))
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(Self {
            index,
            alg,
            kid,
            header,
            protected: protected.to_owned(),
            signature: encoded_signature.to_owned(),
        })
    }

    /// Its position in `signatures`.
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The algorithm of its protected header.
    #[must_use]
    pub fn alg(&self) -> Algorithm {
        self.alg
    }

    /// The key id, when it names one.
    #[must_use]
    pub fn kid(&self) -> Option<&str> {
        self.kid.as_deref()
    }

    /// The protected header.
    #[must_use]
    pub fn header(&self) -> &Map<String, Value> {
        &self.header
    }

    /// The `jku` (JWK Set URL) of the protected header.
    #[must_use]
    pub fn jku(&self) -> Option<&str> {
        self.header.get("jku").and_then(Value::as_str)
    }

    /// Checks the signature over `encoded_payload` (see [`encoded_payload`]) with `key`.
    ///
    /// # Errors
    /// [`CardSignatureError::AlgorithmMismatch`] when the key is not for the `alg`,
    /// [`CardSignatureError::BadSignature`] when the signature does not match.
    pub fn verify(
        &self,
        encoded_payload: &str,
        key: &VerifyingKey,
    ) -> Result<(), CardSignatureError> {
        let input = format!("{}.{encoded_payload}", self.protected);
        key.verify(self.alg, input.as_bytes(), &self.signature)
            .map_err(|error| match error {
                VerifyError::AlgorithmMismatch => CardSignatureError::AlgorithmMismatch {
                    index: self.index,
                    kid: key.kid().to_owned(),
                    alg: algorithm_name(self.alg).to_owned(),
                },
                VerifyError::Malformed => CardSignatureError::Malformed {
                    index: self.index,
                    reason: "`signature` must be base64url".to_owned(),
                },
                VerifyError::BadSignature => CardSignatureError::BadSignature {
                    index: self.index,
                    kid: key.kid().to_owned(),
                },
            })
    }
}

/// A signature that checked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifiedCardSignature {
    /// Its position in `signatures`.
    pub index: usize,
    /// The key that signed.
    pub kid: String,
    /// The algorithm (`ES256`, `EdDSA` …).
    pub alg: &'static str,
}

/// The outcome for each signature of `card` against `keys`, found by `kid` (a signature
/// without `kid` is tried with every key that fits its algorithm).
///
/// # Errors
/// [`CardSignatureError::NoSignature`] when the card has none; a `signatures` that is not
/// an array is [`CardSignatureError::Malformed`].
pub fn check_card(
    card: &Map<String, Value>,
    keys: &[VerifyingKey],
) -> Result<Vec<Result<VerifiedCardSignature, CardSignatureError>>, CardSignatureError> {
    let signatures = card_signatures(card)?;
    let payload = encoded_payload(card);
    Ok(signatures
        .iter()
        .enumerate()
        .map(|(index, signature)| check_one(index, signature, &payload, keys))
        .collect())
}

fn check_one(
    index: usize,
    signature: &Value,
    payload: &str,
    keys: &[VerifyingKey],
) -> Result<VerifiedCardSignature, CardSignatureError> {
    let signature = CardSignature::parse(index, signature)?;
    let verified = |key: &VerifyingKey| VerifiedCardSignature {
        index,
        kid: key.kid().to_owned(),
        alg: algorithm_name(signature.alg()),
    };
    if let Some(kid) = signature.kid() {
        let key = keys.iter().find(|key| key.kid() == kid).ok_or_else(|| {
            CardSignatureError::UnknownKey {
                index,
                kid: Some(kid.to_owned()),
            }
        })?;
        signature.verify(payload, key)?;
        return Ok(verified(key));
    }
    let mut failure = CardSignatureError::UnknownKey { index, kid: None };
    for key in keys.iter().filter(|key| key.accepts(signature.alg())) {
        match signature.verify(payload, key) {
            Ok(()) => return Ok(verified(key)),
            Err(error) => failure = error,
        }
    }
    Err(failure)
}

/// Checks `card` against trusted `keys`: accepted when at least one signature checks and
/// none whose key was found fails to match (others may name keys not given, as during key
/// rotation).
///
/// # Errors
/// [`CardSignatureError::NoSignature`] for an unsigned card; otherwise the most telling
/// failure: [`CardSignatureError::BadSignature`] (a tampered card) before
/// [`CardSignatureError::UnknownKey`] before the rest.
pub fn verify_card(
    card: &Map<String, Value>,
    keys: &[VerifyingKey],
) -> Result<VerifiedCardSignature, CardSignatureError> {
    verdict(check_card(card, keys)?)
}

/// The verdict over the outcomes [`check_card`] gave, by [`verify_card`]'s rule.
///
/// # Errors
/// As [`verify_card`].
pub fn verdict(
    outcomes: Vec<Result<VerifiedCardSignature, CardSignatureError>>,
) -> Result<VerifiedCardSignature, CardSignatureError> {
    let mut verified = None;
    let mut failure: Option<CardSignatureError> = None;
    for outcome in outcomes {
        match outcome {
            Ok(signature) => {
                verified.get_or_insert(signature);
            }
            Err(error) => {
                if failure
                    .as_ref()
                    .is_none_or(|kept| error.rank() > kept.rank())
                {
                    failure = Some(error);
                }
            }
        }
    }
    match (verified, failure) {
        (_, Some(error @ CardSignatureError::BadSignature { .. })) => Err(error),
        (Some(signature), _) => Ok(signature),
        (None, Some(error)) => Err(error),
        (None, None) => Err(CardSignatureError::NoSignature),
    }
}

/// Why a card's signature is refused, or cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardSignatureError {
    /// The card has no `signatures`.
    #[error("the card is not signed")]
    NoSignature,
    /// A signature object cannot be read.
    #[error("signature {index}: {reason}")]
    Malformed {
        /// Its position in `signatures`.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// The `alg` is not one this crate checks (`none` and HMAC never are).
    #[error("signature {index}: unsupported algorithm {alg:?}")]
    UnsupportedAlgorithm {
        /// Its position in `signatures`.
        index: usize,
        /// The `alg` as given.
        alg: String,
    },
    /// No given key has the signature's `kid`.
    #[error("signature {index}: no trusted key {}", kid.as_deref().map_or_else(|| "fits it (no `kid`)".to_owned(), |kid| format!("{kid:?}")))]
    UnknownKey {
        /// Its position in `signatures`.
        index: usize,
        /// The `kid` it names.
        kid: Option<String>,
    },
    /// The key with the `kid` is not for the signature's algorithm.
    #[error("signature {index}: key {kid:?} is not for {alg}")]
    AlgorithmMismatch {
        /// Its position in `signatures`.
        index: usize,
        /// The key.
        kid: String,
        /// The signature's algorithm.
        alg: String,
    },
    /// The signature does not match the card: the card was changed after signing, or it
    /// was signed by another key.
    #[error("signature {index} by key {kid:?} does not match the card (changed after signing?)")]
    BadSignature {
        /// Its position in `signatures`.
        index: usize,
        /// The key it was checked with.
        kid: String,
    },
    /// The card could not be signed.
    #[error("cannot sign the card: {0}")]
    Signing(KeyError),
}

impl CardSignatureError {
    fn rank(&self) -> u8 {
        match self {
            Self::BadSignature { .. } => 4,
            Self::UnknownKey { .. } => 3,
            Self::AlgorithmMismatch { .. } => 2,
            Self::Malformed { .. } | Self::UnsupportedAlgorithm { .. } => 1,
            Self::NoSignature | Self::Signing(_) => 0,
        }
    }
}
