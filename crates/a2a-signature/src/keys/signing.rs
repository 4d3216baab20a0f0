//! [`SigningKey`]: a private key read from PEM (or made), which signs and gives its public JWK.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, EllipticCurveKeyParameters,
    EllipticCurveKeyType, Jwk, KeyAlgorithm, OctetKeyPairParameters, OctetKeyPairType,
    PublicKeyUse, RSAKeyParameters, RSAKeyType,
};
use jsonwebtoken::{Algorithm, EncodingKey};
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, ECDSA_P384_SHA384_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair,
    KeyPair as _, RsaKeyPair, RsaPublicKeyComponents,
};
use rustls_pki_types::PrivateKeyDer;
use rustls_pki_types::pem::PemObject as _;

use super::algorithm::algorithm_name;
use super::jwk::thumbprint;

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
