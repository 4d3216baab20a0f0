//! Signing keys made in the test (RSA, P-256, P-384, Ed25519), their public JWKs, and
//! tokens signed with them.

use std::sync::OnceLock;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _};
use rsa::pkcs1::{EncodeRsaPrivateKey as _, EncodeRsaPublicKey as _};
use rsa::pkcs8::{EncodePublicKey as _, LineEnding};
use rsa::traits::PublicKeyParts as _;
use serde_json::{Value, json};

/// A private key, the algorithm it signs with, and its public JWK.
pub struct TestKey {
    pub alg: Algorithm,
    pub kid: Option<String>,
    encoding: EncodingKey,
    jwk: Value,
}

impl TestKey {
    /// The public JWK (with `kid` when the key has one).
    pub fn jwk(&self) -> Value {
        let mut jwk = self.jwk.clone();
        if let Some(kid) = &self.kid {
            jwk["kid"] = json!(kid);
        }
        jwk
    }

    /// The same key material under another `kid` (or none).
    pub fn renamed(&self, kid: Option<&str>) -> TestKey {
        TestKey {
            alg: self.alg,
            kid: kid.map(str::to_owned),
            encoding: self.encoding.clone(),
            jwk: self.jwk.clone(),
        }
    }

    /// The same key material, signing with another algorithm of its family.
    pub fn with_alg(&self, alg: Algorithm) -> TestKey {
        TestKey {
            alg,
            ..self.renamed(self.kid.as_deref())
        }
    }

    /// `claims`, signed with this key, with its `kid` in the header.
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid.clone_from(&self.kid);
        jsonwebtoken::encode(&header, claims, &self.encoding).unwrap()
    }

    /// `claims`, signed with this key but with `kid` in the header.
    pub fn sign_as(&self, kid: &str, claims: &Value) -> String {
        self.renamed(Some(kid)).sign(claims)
    }
}

/// `{"keys": [...]}` of the given keys' public halves.
pub fn jwks(keys: &[&TestKey]) -> Value {
    json!({ "keys": keys.iter().map(|key| key.jwk()).collect::<Vec<_>>() })
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// rand_core 0.6 over ring's system randomness, for the rsa crate's key generation.
struct SystemRng(SystemRandom);

impl rsa::rand_core::RngCore for SystemRng {
    fn next_u32(&mut self) -> u32 {
        let mut bytes = [0; 4];
        self.fill_bytes(&mut bytes);
        u32::from_le_bytes(bytes)
    }

    fn next_u64(&mut self) -> u64 {
        let mut bytes = [0; 8];
        self.fill_bytes(&mut bytes);
        u64::from_le_bytes(bytes)
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill(dest).unwrap();
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rsa::rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl rsa::rand_core::CryptoRng for SystemRng {}

/// Two 2048-bit RSA keys, made once per test run (key generation is the slow part).
fn rsa_private(index: usize) -> &'static rsa::RsaPrivateKey {
    static KEYS: OnceLock<[rsa::RsaPrivateKey; 2]> = OnceLock::new();
    let keys = KEYS.get_or_init(|| {
        let mut rng = SystemRng(SystemRandom::new());
        [
            rsa::RsaPrivateKey::new(&mut rng, 2048).unwrap(),
            rsa::RsaPrivateKey::new(&mut rng, 2048).unwrap(),
        ]
    });
    &keys[index]
}

/// RSA key number `index` (0 or 1), signing with `alg` (RS* or PS*).
pub fn rsa(index: usize, kid: &str, alg: Algorithm) -> TestKey {
    let private = rsa_private(index);
    let der = private.to_pkcs1_der().unwrap();
    TestKey {
        alg,
        kid: Some(kid.into()),
        encoding: EncodingKey::from_rsa_der(der.as_bytes()),
        jwk: json!({
            "kty": "RSA",
            "use": "sig",
            "n": b64(&private.n().to_bytes_be()),
            "e": b64(&private.e().to_bytes_be()),
        }),
    }
}

/// The public half of RSA key `index` as an attacker would find it: PKCS#1 DER, and SPKI PEM.
pub fn rsa_public_bytes(index: usize) -> (Vec<u8>, String) {
    let public = rsa_private(index).to_public_key();
    let der = public.to_pkcs1_der().unwrap().as_bytes().to_vec();
    let pem = public.to_public_key_pem(LineEnding::LF).unwrap();
    (der, pem)
}

/// A fresh EC key: P-256 for ES256, P-384 for ES384.
pub fn ec(kid: &str, alg: Algorithm) -> TestKey {
    let (signing, curve, size) = match alg {
        Algorithm::ES256 => (&signature::ECDSA_P256_SHA256_FIXED_SIGNING, "P-256", 32),
        Algorithm::ES384 => (&signature::ECDSA_P384_SHA384_FIXED_SIGNING, "P-384", 48),
        other => panic!("{other:?} is not an EC algorithm"),
    };
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(signing, &rng).unwrap();
    let pair = EcdsaKeyPair::from_pkcs8(signing, pkcs8.as_ref(), &rng).unwrap();
    // An uncompressed point: 0x04, x, y.
    let point = pair.public_key().as_ref();
    TestKey {
        alg,
        kid: Some(kid.into()),
        encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
        jwk: json!({
            "kty": "EC",
            "crv": curve,
            "x": b64(&point[1..=size]),
            "y": b64(&point[1 + size..]),
        }),
    }
}

/// A fresh Ed25519 key for EdDSA.
pub fn ed25519(kid: &str) -> TestKey {
    let rng = SystemRandom::new();
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
    let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
    TestKey {
        alg: Algorithm::EdDSA,
        kid: Some(kid.into()),
        encoding: EncodingKey::from_ed_der(pkcs8.as_ref()),
        jwk: json!({
            "kty": "OKP",
            "crv": "Ed25519",
            "alg": "EdDSA",
            "x": b64(pair.public_key().as_ref()),
        }),
    }
}

/// A token from a header and claims given as JSON, with `signature` as the third segment.
pub fn hand_built(header: &Value, claims: &Value, signature: &[u8]) -> String {
    format!(
        "{}.{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes()),
        b64(signature)
    )
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    i64::try_from(jsonwebtoken::get_current_timestamp()).unwrap()
}
