//! [`VerifyingKey`]: a public key read from a JWK, and the check of one JWS signature
//! (RFC 7515) against it.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyOperations, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use super::algorithm::algorithm;
use super::jwk::thumbprint;
use super::signing::KeyError;

/// A public key that checks signatures, read from a JWK: EC P-256 or P-384, Ed25519, or RSA.
#[derive(Clone)]
pub struct VerifyingKey {
    kid: String,
    /// The JWK's own `alg`, when it names one: the key is then for that algorithm only.
    alg: Option<Algorithm>,
    family: Family,
    jwk: Jwk,
    key: DecodingKey,
}

impl fmt::Debug for VerifyingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerifyingKey")
            .field("kid", &self.kid)
            .field("family", &self.family)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    P256,
    P384,
    Ed25519,
    Rsa,
}

impl VerifyingKey {
    /// Reads a public JWK. Refused: symmetric (`oct`) keys, other curves, coordinates of
    /// the wrong length, RSA moduli under 2048 bits, keys marked for encryption only (`use`
    /// other than `sig`, `key_ops` without `verify`). A key without `kid` is named by its
    /// RFC 7638 thumbprint.
    ///
    /// # Errors
    /// [`KeyError::UnusableJwk`] saying why.
    pub fn from_jwk(jwk: &Jwk) -> Result<Self, KeyError> {
        let unusable = |reason: &str| KeyError::UnusableJwk {
            reason: reason.to_owned(),
        };
        if jwk
            .common
            .public_key_use
            .as_ref()
            .is_some_and(|usage| *usage != PublicKeyUse::Signature)
        {
            return Err(unusable("not a signature key (`use`)"));
        }
        if let Some(operations) = &jwk.common.key_operations
            && !operations.contains(&KeyOperations::Verify)
        {
            return Err(unusable("`key_ops` does not allow `verify`"));
        }
        let length = |text: &str| URL_SAFE_NO_PAD.decode(text).map_or(0, |bytes| bytes.len());
        let family = match &jwk.algorithm {
            AlgorithmParameters::EllipticCurve(ec) => {
                let (family, size) = match ec.curve {
                    EllipticCurve::P256 => (Family::P256, 32),
                    EllipticCurve::P384 => (Family::P384, 48),
                    EllipticCurve::P521 | EllipticCurve::Ed25519 => {
                        return Err(unusable(
                            "unsupported key type: EC curve other than P-256 or P-384",
                        ));
                    }
                };
                if length(&ec.x) != size || length(&ec.y) != size {
                    return Err(unusable("EC coordinates of the wrong length"));
                }
                family
            }
            AlgorithmParameters::OctetKeyPair(okp) => {
                if okp.curve != EllipticCurve::Ed25519 || length(&okp.x) != 32 {
                    return Err(unusable("only Ed25519 OKP keys are supported"));
                }
                Family::Ed25519
            }
            AlgorithmParameters::RSA(rsa) => {
                if length(&rsa.n) < 256 || length(&rsa.e) == 0 {
                    return Err(unusable("RSA keys need a modulus of 2048 bits or more"));
                }
                Family::Rsa
            }
            AlgorithmParameters::OctetKey(_) => {
                return Err(unusable(
                    "unsupported key type `oct` (symmetric keys cannot be published)",
                ));
            }
        };
        let alg = match jwk.common.key_algorithm {
            None => None,
            Some(named) => Some(
                algorithm(&format!("{named:?}").replace('_', "-"))
                    .filter(|alg| fits(family, *alg))
                    .ok_or_else(|| unusable("its `alg` does not fit the key"))?,
            ),
        };
        let key = DecodingKey::from_jwk(jwk).map_err(|_| unusable("cannot be decoded"))?;
        Ok(Self {
            kid: jwk.common.key_id.clone().unwrap_or_else(|| thumbprint(jwk)),
            alg,
            family,
            jwk: jwk.clone(),
            key,
        })
    }

    /// Reads a JWK from JSON.
    ///
    /// # Errors
    /// [`KeyError::UnusableJwk`] when it is not a JWK or not usable.
    pub fn from_value(jwk: &Value) -> Result<Self, KeyError> {
        let jwk: Jwk = serde_json::from_value(jwk.clone()).map_err(|_| KeyError::UnusableJwk {
            reason: "not a public JWK of a known type".to_owned(),
        })?;
        Self::from_jwk(&jwk)
    }

    /// The usable keys of a JWK Set (`{"keys": [...]}`); keys this crate cannot use are
    /// skipped.
    ///
    /// # Errors
    /// [`KeyError::UnusableJwk`] when `jwks` has no `keys` array.
    pub fn from_jwk_set(jwks: &Value) -> Result<Vec<Self>, KeyError> {
        let keys =
            jwks.get("keys")
                .and_then(Value::as_array)
                .ok_or_else(|| KeyError::UnusableJwk {
                    reason: "a JWK Set needs a \"keys\" array".to_owned(),
                })?;
        Ok(keys
            .iter()
            .filter_map(|key| Self::from_value(key).ok())
            .collect())
    }

    /// The key id: the JWK's `kid`, else its thumbprint.
    #[must_use]
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The JWK's own `kid`, when it has one.
    #[must_use]
    pub fn declared_kid(&self) -> Option<&str> {
        self.jwk.common.key_id.as_deref()
    }

    /// The JWK it was read from.
    #[must_use]
    pub fn jwk(&self) -> &Jwk {
        &self.jwk
    }

    /// Whether this key checks signatures made with `alg`.
    #[must_use]
    pub fn accepts(&self, alg: Algorithm) -> bool {
        fits(self.family, alg) && self.alg.is_none_or(|own| own == alg)
    }

    /// Checks `signature` (base64url) over `message` under `alg`.
    ///
    /// # Errors
    /// [`VerifyError::AlgorithmMismatch`] when the key is not for `alg`,
    /// [`VerifyError::Malformed`] when the signature is not base64url,
    /// [`VerifyError::BadSignature`] when it does not match.
    pub fn verify(
        &self,
        alg: Algorithm,
        message: &[u8],
        signature: &str,
    ) -> Result<(), VerifyError> {
        // Also keeps HMAC away from jsonwebtoken, which would treat the public key as a secret.
        if !self.accepts(alg) {
            return Err(VerifyError::AlgorithmMismatch);
        }
        if URL_SAFE_NO_PAD.decode(signature).is_err() {
            return Err(VerifyError::Malformed);
        }
        match jsonwebtoken::crypto::verify(signature, message, &self.key, alg) {
            Ok(true) => Ok(()),
            Ok(false) | Err(_) => Err(VerifyError::BadSignature),
        }
    }
}

/// Why one signature does not check against one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The key is not for the signature's algorithm.
    #[error("the key is not for this algorithm")]
    AlgorithmMismatch,
    /// The signature is not base64url.
    #[error("the signature is not base64url")]
    Malformed,
    /// The signature does not match the message.
    #[error("the signature does not match")]
    BadSignature,
}

fn fits(family: Family, alg: Algorithm) -> bool {
    match alg {
        Algorithm::ES256 => family == Family::P256,
        Algorithm::ES384 => family == Family::P384,
        Algorithm::EdDSA => family == Family::Ed25519,
        Algorithm::RS256
        | Algorithm::RS384
        | Algorithm::RS512
        | Algorithm::PS256
        | Algorithm::PS384
        | Algorithm::PS512 => family == Family::Rsa,
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => false,
    }
}
