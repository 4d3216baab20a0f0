//! JSON Web Keys (RFC 7517): RFC 7638 thumbprints and key sets.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet};
use serde_json::json;

use crate::canonical::canonical_json;

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
