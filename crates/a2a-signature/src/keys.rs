//! Keys: a private signing key read from PEM, public keys read from JSON Web Keys
//! (RFC 7517) on `jsonwebtoken`'s [`Jwk`] type, RFC 7638 thumbprints, and the checks of one
//! JWS signature (RFC 7515) against one key.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, EllipticCurveKeyParameters,
    EllipticCurveKeyType, Jwk, JwkSet, KeyAlgorithm, KeyOperations, OctetKeyPairParameters,
    OctetKeyPairType, PublicKeyUse, RSAKeyParameters, RSAKeyType,
};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey};
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, ECDSA_P384_SHA384_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair,
    KeyPair as _, RsaKeyPair, RsaPublicKeyComponents,
};
use rustls_pki_types::PrivateKeyDer;
use rustls_pki_types::pem::PemObject as _;
use serde_json::{Value, json};

use crate::canonical::canonical_json;

/// The JWS algorithm `name` names, when it is one this crate signs or checks with: ES256,
/// ES384, EdDSA, RS256/384/512 and PS256/384/512. `none` and the HMAC family are not (a
/// shared secret cannot be published beside what it protects).
#[must_use]
pub fn algorithm(name: &str) -> Option<Algorithm> {
    Some(match name {
        "ES256" => Algorithm::ES256,
        "ES384" => Algorithm::ES384,
        "EdDSA" => Algorithm::EdDSA,
        "RS256" => Algorithm::RS256,
        "RS384" => Algorithm::RS384,
        "RS512" => Algorithm::RS512,
        "PS256" => Algorithm::PS256,
        "PS384" => Algorithm::PS384,
        "PS512" => Algorithm::PS512,
        _ => return None,
    })
}

/// The JWS name of `algorithm` (`"ES256"`, `"EdDSA"` …).
#[must_use]
pub fn algorithm_name(algorithm: Algorithm) -> &'static str {
    match algorithm {
        Algorithm::HS256 => "HS256",
        Algorithm::HS384 => "HS384",
        Algorithm::HS512 => "HS512",
        Algorithm::ES256 => "ES256",
        Algorithm::ES384 => "ES384",
        Algorithm::EdDSA => "EdDSA",
        Algorithm::RS256 => "RS256",
        Algorithm::RS384 => "RS384",
        Algorithm::RS512 => "RS512",
        Algorithm::PS256 => "PS256",
        Algorithm::PS384 => "PS384",
        Algorithm::PS512 => "PS512",
    }
}

/// A key that cannot be read or used. Messages never hold key material.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The text holds no PEM private key block.
    #[error("not a PEM private key (expected a PRIVATE KEY or RSA PRIVATE KEY block)")]
    InvalidPem,
    /// The private key is of a kind this crate does not sign with.
    #[error("unsupported private key: {reason}")]
    UnsupportedPrivateKey {
        /// What kind it is, and what to do.
        reason: String,
    },
    /// A public JWK cannot be used to check signatures.
    #[error("unusable JWK: {reason}")]
    UnusableJwk {
        /// Why.
        reason: String,
    },
    /// The system's random source failed.
    #[error("the system random source failed")]
    Random,
    /// Signing failed.
    #[error("signing failed")]
    Signing,
}

/// A private key that signs JWS: EC P-256 (ES256), EC P-384 (ES384), Ed25519 (EdDSA) or RSA
/// (RS256), with its public JWK and key id.
///
/// `Debug` shows the algorithm and key id only; the private key never leaves the value.
#[derive(Clone)]
pub struct SigningKey {
    algorithm: Algorithm,
    encoding: EncodingKey,
    kid: String,
    jwk: Jwk,
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("alg", &algorithm_name(self.algorithm))
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// A fresh P-256 key (ES256).
    ///
    /// # Errors
    /// [`KeyError::Random`] when the system's random source fails.
    pub fn generate_es256() -> Result<Self, KeyError> {
        let document =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .map_err(|_| KeyError::Random)?;
        Self::from_pkcs8_der(document.as_ref())
    }

    /// The key in a PEM file: a `PRIVATE KEY` (PKCS#8) block holding an EC P-256 or P-384,
    /// Ed25519 or RSA key (e.g. `openssl genpkey -algorithm ed25519`), or an
    /// `RSA PRIVATE KEY` (PKCS#1) block. The key id is the RFC 7638 thumbprint of the
    /// public key.
    ///
    /// # Errors
    /// [`KeyError::InvalidPem`] when there is no private key block,
    /// [`KeyError::UnsupportedPrivateKey`] for other kinds of keys.
    pub fn from_pem(pem: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        let pem = pem.as_ref();
        match PrivateKeyDer::from_pem_slice(pem).map_err(|_| KeyError::InvalidPem)? {
            PrivateKeyDer::Pkcs8(der) => Self::from_pkcs8_der(der.secret_pkcs8_der()),
            PrivateKeyDer::Pkcs1(der) => {
                let pair = RsaKeyPair::from_der(der.secret_pkcs1_der()).map_err(|rejected| {
                    KeyError::UnsupportedPrivateKey {
                        reason: format!("RSA key refused ({rejected})"),
                    }
                })?;
                Ok(Self::rsa(
                    &pair,
                    EncodingKey::from_rsa_der(der.secret_pkcs1_der()),
                ))
            }
            PrivateKeyDer::Sec1(_) => Err(KeyError::UnsupportedPrivateKey {
                reason: "an EC PRIVATE KEY (SEC1) block; convert it to PKCS#8 with \
                         `openssl pkcs8 -topk8 -nocrypt`"
                    .to_owned(),
            }),
            _ => Err(KeyError::InvalidPem),
        }
    }

    /// A key in PKCS#8 DER: EC P-256, EC P-384, Ed25519 or RSA.
    ///
    /// # Errors
    /// [`KeyError::UnsupportedPrivateKey`] when it is none of them.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, KeyError> {
        let rng = SystemRandom::new();
        if let Ok(pair) = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, &rng) {
            return Self::ec(
                Algorithm::ES256,
                EllipticCurve::P256,
                pair.public_key().as_ref(),
                der,
            );
        }
        if let Ok(pair) = EcdsaKeyPair::from_pkcs8(&ECDSA_P384_SHA384_FIXED_SIGNING, der, &rng) {
            return Self::ec(
                Algorithm::ES384,
                EllipticCurve::P384,
                pair.public_key().as_ref(),
                der,
            );
        }
        if let Ok(pair) = Ed25519KeyPair::from_pkcs8_maybe_unchecked(der) {
            let params = AlgorithmParameters::OctetKeyPair(OctetKeyPairParameters {
                key_type: OctetKeyPairType::OctetKeyPair,
                curve: EllipticCurve::Ed25519,
                x: URL_SAFE_NO_PAD.encode(pair.public_key().as_ref()),
            });
            return Ok(Self::new(
                Algorithm::EdDSA,
                EncodingKey::from_ed_der(der),
                params,
            ));
        }
        match RsaKeyPair::from_pkcs8(der) {
            Ok(pair) => {
                // jsonwebtoken signs RSA with the PKCS#1 form the PKCS#8 document wraps.
                let encoding =
                    EncodingKey::from_rsa_pem(pkcs8_pem(der).as_bytes()).map_err(|_| {
                        KeyError::UnsupportedPrivateKey {
                            reason: "RSA key refused".to_owned(),
                        }
                    })?;
                Ok(Self::rsa(&pair, encoding))
            }
            Err(_) => Err(KeyError::UnsupportedPrivateKey {
                reason: "not an EC P-256, EC P-384, Ed25519 or RSA (2048 bits or more) key"
                    .to_owned(),
            }),
        }
    }

    fn ec(
        algorithm: Algorithm,
        curve: EllipticCurve,
        point: &[u8],
        der: &[u8],
    ) -> Result<Self, KeyError> {
        let unexpected = || KeyError::UnsupportedPrivateKey {
            reason: "unexpected public key format".to_owned(),
        };
        let coordinates = point.strip_prefix(&[0x04]).ok_or_else(unexpected)?;
        let (x, y) = coordinates.split_at(coordinates.len() / 2);
        let params = AlgorithmParameters::EllipticCurve(EllipticCurveKeyParameters {
            key_type: EllipticCurveKeyType::EC,
            curve,
            x: URL_SAFE_NO_PAD.encode(x),
            y: URL_SAFE_NO_PAD.encode(y),
        });
        Ok(Self::new(algorithm, EncodingKey::from_ec_der(der), params))
    }

    fn rsa(pair: &RsaKeyPair, encoding: EncodingKey) -> Self {
        let public = RsaPublicKeyComponents::<Vec<u8>>::from(pair.public());
        let params = AlgorithmParameters::RSA(RSAKeyParameters {
            key_type: RSAKeyType::RSA,
            n: URL_SAFE_NO_PAD.encode(&public.n),
            e: URL_SAFE_NO_PAD.encode(&public.e),
        });
        Self::new(Algorithm::RS256, encoding, params)
    }

    fn new(algorithm: Algorithm, encoding: EncodingKey, params: AlgorithmParameters) -> Self {
        let mut jwk = Jwk {
            common: CommonParameters {
                public_key_use: Some(PublicKeyUse::Signature),
                key_algorithm: key_algorithm(algorithm),
                ..CommonParameters::default()
            },
            algorithm: params,
        };
        let kid = thumbprint(&jwk);
        jwk.common.key_id = Some(kid.clone());
        Self {
            algorithm,
            encoding,
            kid,
            jwk,
        }
    }

    /// The same key under another key id (default: the RFC 7638 thumbprint).
    #[must_use]
    pub fn with_kid(mut self, kid: impl Into<String>) -> Self {
        self.kid = kid.into();
        self.jwk.common.key_id = Some(self.kid.clone());
        self
    }

    /// The key id.
    #[must_use]
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The algorithm it signs with.
    #[must_use]
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The public key as a JWK, with `kid`, `alg` and `use: sig`.
    #[must_use]
    pub fn public_jwk(&self) -> &Jwk {
        &self.jwk
    }

    /// Signs `message`; returns the base64url signature (for ECDSA the fixed-width
    /// `r || s` of RFC 7518 §3.4).
    ///
    /// # Errors
    /// [`KeyError::Signing`] when the crypto library fails (e.g. no randomness).
    pub fn sign(&self, message: &[u8]) -> Result<String, KeyError> {
        jsonwebtoken::crypto::sign(message, &self.encoding, self.algorithm)
            .map_err(|_| KeyError::Signing)
    }
}

/// A PKCS#8 document as PEM text, for jsonwebtoken's RSA reader.
fn pkcs8_pem(der: &[u8]) -> String {
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let mut pem = String::from("-----BEGIN PRIVATE KEY-----\n");
    for line in body.as_bytes().chunks(64) {
        pem.push_str(&String::from_utf8_lossy(line));
        pem.push('\n');
    }
    pem.push_str("-----END PRIVATE KEY-----\n");
    pem
}

fn key_algorithm(algorithm: Algorithm) -> Option<KeyAlgorithm> {
    Some(match algorithm {
        Algorithm::ES256 => KeyAlgorithm::ES256,
        Algorithm::ES384 => KeyAlgorithm::ES384,
        Algorithm::EdDSA => KeyAlgorithm::EdDSA,
        Algorithm::RS256 => KeyAlgorithm::RS256,
        Algorithm::RS384 => KeyAlgorithm::RS384,
        Algorithm::RS512 => KeyAlgorithm::RS512,
        Algorithm::PS256 => KeyAlgorithm::PS256,
        Algorithm::PS384 => KeyAlgorithm::PS384,
        Algorithm::PS512 => KeyAlgorithm::PS512,
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => return None,
    })
}

/// The RFC 7638 thumbprint of a public JWK: SHA-256 of its required members in JCS form,
/// base64url.
///
/// ```
/// use a2a_signature::{Jwk, thumbprint};
///
/// // RFC 8037 Appendix A.3.
/// let jwk: Jwk = serde_json::from_str(
///     r#"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#,
/// ).unwrap();
/// assert_eq!(thumbprint(&jwk), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
/// ```
#[must_use]
pub fn thumbprint(jwk: &Jwk) -> String {
    let members = match &jwk.algorithm {
        AlgorithmParameters::EllipticCurve(ec) => {
            json!({"crv": ec.curve, "kty": "EC", "x": ec.x, "y": ec.y})
        }
        AlgorithmParameters::RSA(rsa) => json!({"e": rsa.e, "kty": "RSA", "n": rsa.n}),
        AlgorithmParameters::OctetKeyPair(okp) => {
            json!({"crv": okp.curve, "kty": "OKP", "x": okp.x})
        }
        AlgorithmParameters::OctetKey(oct) => json!({"k": oct.value, "kty": "oct"}),
    };
    let digest = ring::digest::digest(&ring::digest::SHA256, canonical_json(&members).as_bytes());
    URL_SAFE_NO_PAD.encode(digest.as_ref())
}

/// `{"keys": [...]}` of the public keys.
#[must_use]
pub fn jwk_set<'a>(keys: impl IntoIterator<Item = &'a Jwk>) -> JwkSet {
    JwkSet {
        keys: keys.into_iter().cloned().collect(),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A test-only P-256 key whose x, y and thumbprint were computed outside this crate.
    const FIXED_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZTYbxqRwW1ovdXvh
ivkK9YhYIvLxNYJah4k7f6Js8SyhRANCAATSqfHrKRV/WfV4AHByJGxxVxwctwYc
gH0MGUKhpbQh25KwiOiB5IxblpR7dkNE9g86SpuChr2mh6zVJhglzIL0
-----END PRIVATE KEY-----
";

    #[test]
    fn a_pem_key_has_its_thumbprint_as_kid_and_verifies_its_own_signatures() {
        let key = SigningKey::from_pem(FIXED_KEY).unwrap();
        assert_eq!(key.kid(), "Jk5LkxgSzqJR52LWnrcixBsIfTNF82v3XTeXm7Ga_rY");
        let jwk = serde_json::to_value(key.public_jwk()).unwrap();
        assert_eq!(jwk["x"], "0qnx6ykVf1n1eABwciRscVccHLcGHIB9DBlCoaW0Ids");
        assert_eq!(jwk["alg"], "ES256");
        let verifying = VerifyingKey::from_jwk(key.public_jwk()).unwrap();
        let signature = key.sign(b"message").unwrap();
        assert_eq!(
            verifying.verify(Algorithm::ES256, b"message", &signature),
            Ok(())
        );
        assert_eq!(
            verifying.verify(Algorithm::ES256, b"massage", &signature),
            Err(VerifyError::BadSignature)
        );
        assert_eq!(
            verifying.verify(Algorithm::HS256, b"message", &signature),
            Err(VerifyError::AlgorithmMismatch)
        );
        assert!(!format!("{key:?}").contains("ZTYbxqRw"));
    }

    #[test]
    fn unusable_jwks_are_refused() {
        let cases = [
            json!({"kty": "oct", "k": "c2VjcmV0"}),
            json!({"kty": "EC", "crv": "P-521", "x": "AA", "y": "AA"}),
            json!({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"}),
            json!({"kty": "RSA", "n": "AQAB", "e": "AQAB"}),
            json!({"kty": "RSA", "n": "AQAB"}),
            json!({"crv": "Ed25519", "x": "AA"}),
        ];
        for jwk in cases {
            assert!(VerifyingKey::from_value(&jwk).is_err(), "{jwk}");
        }
        assert!(algorithm("HS256").is_none());
        assert!(algorithm("none").is_none());
    }
}
