//! Signed push deliveries: a detached JWS over each body, and the keys that check it.
//!
//! No A2A SDK signs webhook deliveries; this server does, so a receiver can tell a delivery
//! from this agent apart from anyone else's POST (spec §10.5 asks receivers to validate
//! authenticity; its topics doc suggests signed notifications and timestamps against replay).
//!
//! Each delivery carries [`SIGNATURE_HEADER`] with a JWS in the detached compact form of
//! RFC 7515 Appendix F, `BASE64URL(header) + ".." + BASE64URL(signature)`, where the
//! signature covers `BASE64URL(header) + "." + BASE64URL(body)` and `body` is the exact
//! bytes POSTed. The protected header is
//!
//! ```json
//! {"alg":"ES256","kid":"<RFC 7638 thumbprint>","typ":"a2a-push+jws","iat":1767225600}
//! ```
//!
//! `iat` (unix seconds) lets receivers refuse stale replays. The agent publishes its public
//! keys as a JWK Set at [`JWKS_PATH`] (next to the agent card) once
//! [`A2aServerBuilder::push_signer`](crate::A2aServerBuilder::push_signer) is set.
//!
//! ```
//! use a2a_server::push::signing::PushSigner;
//!
//! # fn main() -> Result<(), a2a_server::push::signing::SigningError> {
//! let signer = PushSigner::generate()?;
//! let body = br#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#;
//! let header_value = signer.sign(body)?;
//! assert!(header_value.contains(".."));
//! assert_eq!(signer.jwks()["keys"][0]["kid"], signer.kid());
//! # Ok(()) }
//! ```

use std::fmt;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use a2a_signature::{Algorithm, SigningKey};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rustls_pki_types::PrivatePkcs8KeyDer;
use rustls_pki_types::pem::PemObject as _;
use serde_json::{Value, json};

/// The header carrying a delivery's detached JWS.
pub const SIGNATURE_HEADER: &str = "A2A-Notification-Signature";

/// The `typ` of the protected header.
pub const SIGNATURE_TYPE: &str = "a2a-push+jws";

/// Where the public keys are served, relative to the server's base path.
pub const JWKS_PATH: &str = "/.well-known/jwks.json";

/// The media type of the JWK Set (RFC 7517 §8.5.1).
pub const JWKS_MEDIA_TYPE: &str = "application/jwk-set+json";

/// Signs push deliveries with one key: P-256 (ES256), P-384 (ES384) or Ed25519 (EdDSA),
/// the algorithms receivers are expected to check (RSA keys are refused: their signatures
/// are large and slow to make, and a webhook gains nothing from them).
///
/// Cheap to clone: clones share the key. Several server instances that deliver for the
/// same agent should share one key, loaded with [`PushSigner::from_pkcs8_pem`]; a key from
/// [`PushSigner::generate`] lives as long as the process. `Debug` shows the key id only.
#[derive(Clone)]
pub struct PushSigner {
    inner: Arc<Inner>,
}

struct Inner {
    /// The key, its JWK and thumbprint: `a2a-signature`'s, as for card signatures.
    key: SigningKey,
    jwk: Value,
}

impl fmt::Debug for PushSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PushSigner")
            .field("alg", &self.alg())
            .field("kid", &self.inner.key.kid())
            .finish_non_exhaustive()
    }
}

impl PushSigner {
    /// A signer with a fresh P-256 key.
    ///
    /// # Errors
    /// [`SigningError::KeyGeneration`] when the system's random source fails.
    pub fn generate() -> Result<Self, SigningError> {
        let key = SigningKey::generate_es256().map_err(|_| SigningError::KeyGeneration)?;
        Ok(Self::from_key(key))
    }

    /// A signer with the key in a PEM `PRIVATE KEY` (PKCS#8) block: P-256 (e.g. made by
    /// `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`), P-384 or Ed25519
    /// (`openssl genpkey -algorithm ed25519`). An `EC PRIVATE KEY` (SEC1) file converts with
    /// `openssl pkcs8 -topk8 -nocrypt`.
    ///
    /// # Errors
    /// [`SigningError::InvalidPem`] when there is no PKCS#8 block, [`SigningError::InvalidKey`]
    /// when its key is none of those. The messages never hold key material.
    pub fn from_pkcs8_pem(pem: impl AsRef<[u8]>) -> Result<Self, SigningError> {
        let der = PrivatePkcs8KeyDer::from_pem_slice(pem.as_ref())
            .map_err(|_| SigningError::InvalidPem)?;
        Self::from_pkcs8_der(der.secret_pkcs8_der())
    }

    /// A signer with a P-256, P-384 or Ed25519 key in PKCS#8 DER.
    ///
    /// # Errors
    /// [`SigningError::InvalidKey`] when the key is none of those, as ring reads them.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, SigningError> {
        let key = SigningKey::from_pkcs8_der(der).map_err(|_| SigningError::InvalidKey {
            reason: "InvalidEncoding".to_owned(),
        })?;
        match key.algorithm() {
            Algorithm::ES256 | Algorithm::ES384 | Algorithm::EdDSA => Ok(Self::from_key(key)),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512
            | Algorithm::HS256
            | Algorithm::HS384
            | Algorithm::HS512 => Err(SigningError::InvalidKey {
                reason: "WrongAlgorithm".to_owned(),
            }),
        }
    }

    /// The JWS `alg` of the signatures: `ES256`, `ES384` or `EdDSA`.
    #[must_use]
    pub fn alg(&self) -> &'static str {
        a2a_signature::algorithm_name(self.inner.key.algorithm())
    }

    fn from_key(key: SigningKey) -> Self {
        let jwk = serde_json::to_value(key.public_jwk()).unwrap_or_default();
        Self {
            inner: Arc::new(Inner { key, jwk }),
        }
    }

    /// The key id: the RFC 7638 JWK thumbprint (SHA-256, base64url) of the public key.
    #[must_use]
    pub fn kid(&self) -> &str {
        self.inner.key.kid()
    }

    /// The public key as a JWK: `kty` EC with `crv` P-256 or P-384 and `x`, `y`, or `kty`
    /// OKP with `crv` Ed25519 and `x`; then `kid`, `alg` and `use` sig.
    #[must_use]
    pub fn jwk(&self) -> &Value {
        &self.inner.jwk
    }

    /// The public JWK Set, `{"keys": [jwk]}`, as served at [`JWKS_PATH`].
    #[must_use]
    pub fn jwks(&self) -> Value {
        json!({ "keys": [self.inner.jwk.clone()] })
    }

    /// The [`SIGNATURE_HEADER`] value for a delivery of `body` (the exact bytes sent), issued
    /// now.
    ///
    /// # Errors
    /// [`SigningError::Signing`] when the system's random source fails.
    pub fn sign(&self, body: &[u8]) -> Result<String, SigningError> {
        self.sign_at(body, SystemTime::now())
    }

    /// As [`sign`](Self::sign), with `iat` set to `issued_at` (whole seconds; times before
    /// 1970 count as 0). For tests of receivers' replay checks, and for a delivery engine
    /// that stamps a batch with one time.
    ///
    /// # Errors
    /// [`SigningError::Signing`] when the system's random source fails.
    pub fn sign_at(&self, body: &[u8], issued_at: SystemTime) -> Result<String, SigningError> {
        let iat = issued_at
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        let header = json!({
            "alg": self.alg(),
            "kid": self.inner.key.kid(),
            "typ": SIGNATURE_TYPE,
            "iat": iat,
        });
        let header = URL_SAFE_NO_PAD.encode(header.to_string());
        let signing_input = format!("{header}.{}", URL_SAFE_NO_PAD.encode(body));
        let signature = self
            .inner
            .key
            .sign(signing_input.as_bytes())
            .map_err(|_| SigningError::Signing)?;
        Ok(format!("{header}..{signature}"))
    }
}

/// A push-signing key that cannot be made or used. Messages never hold key material.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SigningError {
    /// The system's random source failed while generating a key.
    #[error("cannot generate a push-signing key: the system random source failed")]
    KeyGeneration,
    /// The text holds no PEM `PRIVATE KEY` (PKCS#8) block.
    #[error(
        "the push-signing key is not a PEM PRIVATE KEY (PKCS#8) block; \
         convert an EC PRIVATE KEY with `openssl pkcs8 -topk8 -nocrypt`"
    )]
    InvalidPem,
    /// The key is not a P-256, P-384 or Ed25519 key in PKCS#8 that ring accepts.
    #[error("the push-signing key is not a usable P-256, P-384 or Ed25519 PKCS#8 key ({reason})")]
    InvalidKey {
        /// ring's reason, e.g. `InvalidEncoding` or `WrongAlgorithm`.
        reason: String,
    },
    /// The system's random source failed while signing.
    #[error("cannot sign the push delivery: the system random source failed")]
    Signing,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    use super::*;

    /// A test-only key, made with `openssl genpkey -algorithm EC -pkeyopt
    /// ec_paramgen_curve:P-256`. Its x, y and thumbprint were computed outside this crate
    /// (openssl for the point, Python's hashlib over RFC 7638's canonical JSON).
    const FIXED_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZTYbxqRwW1ovdXvh
ivkK9YhYIvLxNYJah4k7f6Js8SyhRANCAATSqfHrKRV/WfV4AHByJGxxVxwctwYc
gH0MGUKhpbQh25KwiOiB5IxblpR7dkNE9g86SpuChr2mh6zVJhglzIL0
-----END PRIVATE KEY-----
";
    const FIXED_X: &str = "0qnx6ykVf1n1eABwciRscVccHLcGHIB9DBlCoaW0Ids";
    const FIXED_Y: &str = "krCI6IHkjFuWlHt2Q0T2DzpKm4KGvaaHrNUmGCXMgvQ";
    const FIXED_THUMBPRINT: &str = "Jk5LkxgSzqJR52LWnrcixBsIfTNF82v3XTeXm7Ga_rY";

    fn public_key(signer: &PushSigner) -> Vec<u8> {
        let jwk = signer.jwk();
        let mut point = vec![0x04];
        for coordinate in ["x", "y"] {
            let text = jwk[coordinate].as_str().unwrap();
            point.extend(URL_SAFE_NO_PAD.decode(text).unwrap());
        }
        point
    }

    /// Checks `value` over `body` with ring directly; returns the protected header.
    fn verify(signer: &PushSigner, value: &str, body: &[u8]) -> Result<Value, &'static str> {
        let (header, signature) = value.split_once("..").ok_or("not detached")?;
        let signature = URL_SAFE_NO_PAD.decode(signature).map_err(|_| "base64")?;
        let input = format!("{header}.{}", URL_SAFE_NO_PAD.encode(body));
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, public_key(signer))
            .verify(input.as_bytes(), &signature)
            .map_err(|_| "bad signature")?;
        let header = URL_SAFE_NO_PAD.decode(header).map_err(|_| "base64")?;
        serde_json::from_slice(&header).map_err(|_| "json")
    }

    #[test]
    fn a_signature_covers_the_exact_body_and_names_the_key() {
        let signer = PushSigner::generate().unwrap();
        let body =
            br#"{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}"#;
        let value = signer.sign(body).unwrap();
        let header = verify(&signer, &value, body).unwrap();
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["typ"], SIGNATURE_TYPE);
        assert_eq!(header["kid"], signer.kid());
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        let iat = header["iat"].as_u64().unwrap();
        assert!(now.as_secs().abs_diff(iat) <= 5, "iat {iat}");

        let mut tampered = body.to_vec();
        tampered[10] ^= 1;
        assert_eq!(verify(&signer, &value, &tampered), Err("bad signature"));
    }

    #[test]
    fn the_header_value_is_a_detached_compact_jws() {
        let signer = PushSigner::generate().unwrap();
        let value = signer.sign(b"{}").unwrap();
        let parts: Vec<&str> = value.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert!(parts[1].is_empty(), "the payload is detached");
        // ES256 signatures are r || s, 32 bytes each (RFC 7518 §3.4).
        assert_eq!(URL_SAFE_NO_PAD.decode(parts[2]).unwrap().len(), 64);
        assert!(http::HeaderValue::from_str(&value).is_ok());
    }

    #[test]
    fn iat_is_the_given_time_in_seconds() {
        let signer = PushSigner::generate().unwrap();
        let at = UNIX_EPOCH + Duration::from_millis(1_767_225_600_999);
        let header = verify(&signer, &signer.sign_at(b"{}", at).unwrap(), b"{}").unwrap();
        assert_eq!(header["iat"], 1_767_225_600);
    }

    #[test]
    fn the_kid_is_the_rfc7638_thumbprint_of_the_public_key() {
        let signer = PushSigner::from_pkcs8_pem(FIXED_KEY).unwrap();
        assert_eq!(signer.kid(), FIXED_THUMBPRINT);
        assert_eq!(
            signer.jwks(),
            json!({"keys": [{
                "kty": "EC", "crv": "P-256", "x": FIXED_X, "y": FIXED_Y,
                "kid": FIXED_THUMBPRINT, "alg": "ES256", "use": "sig",
            }]})
        );
        let header = verify(&signer, &signer.sign(b"x").unwrap(), b"x").unwrap();
        assert_eq!(header["kid"], FIXED_THUMBPRINT);
    }

    #[test]
    fn instances_loading_one_key_share_the_kid() {
        let one = PushSigner::from_pkcs8_pem(FIXED_KEY).unwrap();
        let two = PushSigner::from_pkcs8_pem(FIXED_KEY.as_bytes()).unwrap();
        assert_eq!(one.kid(), two.kid());
        // Either instance's signature checks against the published key.
        verify(&one, &two.sign(b"{}").unwrap(), b"{}").unwrap();
        assert_ne!(
            one.kid(),
            PushSigner::generate().unwrap().kid(),
            "a fresh key has its own id"
        );
    }

    #[test]
    fn ed25519_and_p384_keys_sign_with_their_own_algorithms() {
        use ring::rand::SystemRandom;
        use ring::signature::{
            ECDSA_P384_SHA384_FIXED, ECDSA_P384_SHA384_FIXED_SIGNING, ED25519, EcdsaKeyPair,
            Ed25519KeyPair,
        };
        let random = SystemRandom::new();
        let body = b"{\"task\":{}}";
        let ed25519 = Ed25519KeyPair::generate_pkcs8(&random).unwrap();
        let signer = PushSigner::from_pkcs8_der(ed25519.as_ref()).unwrap();
        assert_eq!(signer.alg(), "EdDSA");
        assert_eq!(signer.jwk()["kty"], "OKP");
        assert_eq!(signer.jwk()["crv"], "Ed25519");
        let x = URL_SAFE_NO_PAD
            .decode(signer.jwk()["x"].as_str().unwrap())
            .unwrap();
        let (header, signature) = split(&signer.sign(body).unwrap(), body);
        assert_eq!(header["alg"], "EdDSA");
        UnparsedPublicKey::new(&ED25519, x)
            .verify(signature.0.as_bytes(), &signature.1)
            .unwrap();

        let p384 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P384_SHA384_FIXED_SIGNING, &random).unwrap();
        let signer = PushSigner::from_pkcs8_der(p384.as_ref()).unwrap();
        assert_eq!(signer.alg(), "ES384");
        assert_eq!(signer.jwk()["crv"], "P-384");
        let (header, signature) = split(&signer.sign(body).unwrap(), body);
        assert_eq!(header["alg"], "ES384");
        UnparsedPublicKey::new(&ECDSA_P384_SHA384_FIXED, public_key(&signer))
            .verify(signature.0.as_bytes(), &signature.1)
            .unwrap();
    }

    /// The protected header of a detached JWS over `body`, and its signing input and
    /// signature bytes.
    fn split(value: &str, body: &[u8]) -> (Value, (String, Vec<u8>)) {
        let (header, signature) = value.split_once("..").unwrap();
        let input = format!("{header}.{}", URL_SAFE_NO_PAD.encode(body));
        let decoded = URL_SAFE_NO_PAD.decode(header).unwrap();
        let signature = URL_SAFE_NO_PAD.decode(signature).unwrap();
        (
            serde_json::from_slice(&decoded).unwrap(),
            (input, signature),
        )
    }

    #[test]
    fn an_rsa_key_is_refused() {
        // The RSA test key of the card-signature tests.
        let pem = include_str!("../../../a2a-signature/tests/keys/rsa-pkcs8.pem");
        let error = PushSigner::from_pkcs8_pem(pem).unwrap_err();
        assert_eq!(
            error,
            SigningError::InvalidKey {
                reason: "WrongAlgorithm".to_owned()
            }
        );
    }

    #[test]
    fn unusable_keys_are_refused_without_their_material() {
        assert_eq!(
            PushSigner::from_pkcs8_pem("not a key").unwrap_err(),
            SigningError::InvalidPem
        );
        let error = PushSigner::from_pkcs8_der(b"\x30\x03\x02\x01\x00").unwrap_err();
        assert!(matches!(error, SigningError::InvalidKey { .. }), "{error}");
    }

    #[test]
    fn debug_never_shows_the_private_key() {
        let signer = PushSigner::from_pkcs8_pem(FIXED_KEY).unwrap();
        let debug = format!("{signer:?}");
        assert!(debug.contains(FIXED_THUMBPRINT), "{debug}");
        assert!(!debug.contains("ZTYbxqRw"), "{debug}");
        assert!(!debug.to_lowercase().contains("private"), "{debug}");
    }
}
