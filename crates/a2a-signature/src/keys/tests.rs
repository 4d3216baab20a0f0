use super::*;

use jsonwebtoken::Algorithm;
use serde_json::json;

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
