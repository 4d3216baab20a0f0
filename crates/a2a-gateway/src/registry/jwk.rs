//! Public keys read from JSON Web Keys (RFC 7517), with the JWS algorithms (RFC 7518) each
//! can check.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey, VerificationAlgorithm};
use serde_json::Value;

/// A JWS algorithm the registry checks; `none` and the HMAC family are not among them (a
/// shared secret cannot come from the card it protects).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Algorithm {
    Es256,
    Es384,
    EdDsa,
    Rs256,
    Rs384,
    Rs512,
    Ps256,
    Ps384,
    Ps512,
}

impl Algorithm {
    /// The algorithm an `alg` header names, if supported.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "ES256" => Self::Es256,
            "ES384" => Self::Es384,
            "EdDSA" => Self::EdDsa,
            "RS256" => Self::Rs256,
            "RS384" => Self::Rs384,
            "RS512" => Self::Rs512,
            "PS256" => Self::Ps256,
            "PS384" => Self::Ps384,
            "PS512" => Self::Ps512,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Self::Es256 => "ES256",
            Self::Es384 => "ES384",
            Self::EdDsa => "EdDSA",
            Self::Rs256 => "RS256",
            Self::Rs384 => "RS384",
            Self::Rs512 => "RS512",
            Self::Ps256 => "PS256",
            Self::Ps384 => "PS384",
            Self::Ps512 => "PS512",
        }
    }
}

/// A public key from a JWK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PublicKey {
    kid: Option<String>,
    /// The JWK's own `alg`, when it names one: the key is then for that algorithm only.
    alg: Option<String>,
    material: Material,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Material {
    /// An uncompressed point (`04 || x || y`).
    P256(Vec<u8>),
    P384(Vec<u8>),
    Ed25519(Vec<u8>),
    Rsa {
        n: Vec<u8>,
        e: Vec<u8>,
    },
}

impl PublicKey {
    /// Reads a public JWK: `EC` (P-256, P-384), `OKP` (Ed25519) or `RSA`.
    pub(crate) fn from_jwk(jwk: &Value) -> Result<Self, String> {
        let text = |member: &str| {
            jwk.get(member)
                .and_then(Value::as_str)
                .ok_or_else(|| format!("the JWK has no `{member}`"))
        };
        let bytes = |member: &str| {
            URL_SAFE_NO_PAD
                .decode(text(member)?)
                .map_err(|_| format!("the JWK's `{member}` is not base64url"))
        };
        let material = match text("kty")? {
            "EC" => {
                let (curve, size) = match text("crv")? {
                    "P-256" => (Material::P256 as fn(Vec<u8>) -> Material, 32),
                    "P-384" => (Material::P384 as fn(Vec<u8>) -> Material, 48),
                    other => return Err(format!("unsupported EC curve {other:?}")),
                };
                let (x, y) = (bytes("x")?, bytes("y")?);
                if x.len() != size || y.len() != size {
                    return Err("the JWK's point has the wrong size for its curve".to_owned());
                }
                curve([&[0x04][..], &x, &y].concat())
            }
            "OKP" => match text("crv")? {
                "Ed25519" => Material::Ed25519(bytes("x")?),
                other => return Err(format!("unsupported OKP curve {other:?}")),
            },
            "RSA" => Material::Rsa {
                n: bytes("n")?,
                e: bytes("e")?,
            },
            other => return Err(format!("unsupported key type {other:?}")),
        };
        Ok(Self {
            kid: jwk.get("kid").and_then(Value::as_str).map(str::to_owned),
            alg: jwk.get("alg").and_then(Value::as_str).map(str::to_owned),
            material,
        })
    }

    /// The key id, when the JWK has one.
    pub(crate) fn kid(&self) -> Option<&str> {
        self.kid.as_deref()
    }

    /// Whether `signature` over `message` checks with this key under `algorithm`; `None`
    /// when this key cannot be used with `algorithm` at all.
    pub(crate) fn verify(
        &self,
        algorithm: Algorithm,
        message: &[u8],
        signature: &[u8],
    ) -> Option<bool> {
        if self
            .alg
            .as_deref()
            .is_some_and(|alg| alg != algorithm.name())
        {
            return None;
        }
        let check = |verifier: &'static dyn VerificationAlgorithm, key: &[u8]| {
            UnparsedPublicKey::new(verifier, key)
                .verify(message, signature)
                .is_ok()
        };
        let rsa = |params: &'static signature::RsaParameters, n: &[u8], e: &[u8]| {
            RsaPublicKeyComponents { n, e }
                .verify(params, message, signature)
                .is_ok()
        };
        Some(match (&self.material, algorithm) {
            (Material::P256(point), Algorithm::Es256) => {
                check(&signature::ECDSA_P256_SHA256_FIXED, point)
            }
            (Material::P384(point), Algorithm::Es384) => {
                check(&signature::ECDSA_P384_SHA384_FIXED, point)
            }
            (Material::Ed25519(key), Algorithm::EdDsa) => check(&signature::ED25519, key),
            (Material::Rsa { n, e }, Algorithm::Rs256) => {
                rsa(&signature::RSA_PKCS1_2048_8192_SHA256, n, e)
            }
            (Material::Rsa { n, e }, Algorithm::Rs384) => {
                rsa(&signature::RSA_PKCS1_2048_8192_SHA384, n, e)
            }
            (Material::Rsa { n, e }, Algorithm::Rs512) => {
                rsa(&signature::RSA_PKCS1_2048_8192_SHA512, n, e)
            }
            (Material::Rsa { n, e }, Algorithm::Ps256) => {
                rsa(&signature::RSA_PSS_2048_8192_SHA256, n, e)
            }
            (Material::Rsa { n, e }, Algorithm::Ps384) => {
                rsa(&signature::RSA_PSS_2048_8192_SHA384, n, e)
            }
            (Material::Rsa { n, e }, Algorithm::Ps512) => {
                rsa(&signature::RSA_PSS_2048_8192_SHA512, n, e)
            }
            (
                Material::P256(_) | Material::P384(_) | Material::Ed25519(_) | Material::Rsa { .. },
                _,
            ) => {
                return None;
            }
        })
    }
}

/// The keys of a JWK Set (`{"keys": [...]}`) this module can read; others are skipped.
pub(crate) fn key_set(jwks: &Value) -> Result<Vec<PublicKey>, String> {
    let keys = jwks
        .get("keys")
        .and_then(Value::as_array)
        .ok_or_else(|| "not a JWK Set: no `keys` array".to_owned())?;
    Ok(keys
        .iter()
        .filter_map(|jwk| PublicKey::from_jwk(jwk).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use ring::rand::SystemRandom;
    use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
    use serde_json::json;

    use super::*;

    fn p256() -> (EcdsaKeyPair, Value) {
        let random = SystemRandom::new();
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random).unwrap();
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &random)
                .unwrap();
        let point = pair.public_key().as_ref();
        let jwk = json!({
            "kty": "EC", "crv": "P-256", "kid": "k1",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..]),
        });
        (pair, jwk)
    }

    #[test]
    fn an_ec_key_checks_es256_and_nothing_else() {
        let (pair, jwk) = p256();
        let key = PublicKey::from_jwk(&jwk).unwrap();
        assert_eq!(key.kid(), Some("k1"));
        let signature = pair.sign(&SystemRandom::new(), b"message").unwrap();
        assert_eq!(
            key.verify(Algorithm::Es256, b"message", signature.as_ref()),
            Some(true)
        );
        assert_eq!(
            key.verify(Algorithm::Es256, b"massage", signature.as_ref()),
            Some(false)
        );
        assert_eq!(
            key.verify(Algorithm::Rs256, b"message", signature.as_ref()),
            None
        );
    }

    #[test]
    fn unusable_jwks_are_refused() {
        let cases = [
            json!({"kty": "oct", "k": "c2VjcmV0"}),
            json!({"kty": "EC", "crv": "P-521", "x": "AA", "y": "AA"}),
            json!({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"}),
            json!({"kty": "RSA", "n": "AQAB"}),
            json!({"crv": "Ed25519", "x": "AA"}),
        ];
        for jwk in cases {
            assert!(PublicKey::from_jwk(&jwk).is_err(), "{jwk}");
        }
        assert!(Algorithm::parse("HS256").is_none());
        assert!(Algorithm::parse("none").is_none());
    }
}
