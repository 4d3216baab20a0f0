//! Signing cards with each supported key kind, and the refusals a verifier gives.

#![allow(clippy::unwrap_used)]

use a2a_signature::{
    CardSignatureError, KeyError, SigningKey, VerifyingKey, check_card, sign_card, verify_card,
};
use serde_json::{Value, json};

const P256: &str = include_str!("keys/p256.pem");
const P384: &str = include_str!("keys/p384.pem");
const ED25519: &str = include_str!("keys/ed25519.pem");
const RSA_PKCS1: &str = include_str!("keys/rsa-pkcs1.pem");
const RSA_PKCS8: &str = include_str!("keys/rsa-pkcs8.pem");
const P256_SEC1: &str = include_str!("keys/p256-sec1.pem");

fn card() -> Value {
    json!({
        "name": "Echo", "description": "Echoes.", "version": "1.0.0",
        "supportedInterfaces": [{"url": "http://127.0.0.1:1/a2a", "protocolBinding": "JSONRPC",
                                 "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "", "tags": []}],
    })
}

fn signed(key: &SigningKey, jku: Option<&str>) -> Value {
    let mut card = card();
    let signature = sign_card(card.as_object().unwrap(), key, jku).unwrap();
    card["signatures"] = json!([signature]);
    card
}

fn trusted(key: &SigningKey) -> Vec<VerifyingKey> {
    vec![VerifyingKey::from_jwk(key.public_jwk()).unwrap()]
}

#[test]
fn every_key_kind_signs_a_card_that_verifies() {
    for (pem, alg) in [
        (P256, "ES256"),
        (P384, "ES384"),
        (ED25519, "EdDSA"),
        (RSA_PKCS1, "RS256"),
        (RSA_PKCS8, "RS256"),
    ] {
        let key = SigningKey::from_pem(pem).unwrap();
        let card = signed(
            &key,
            Some("https://agent.example.com/.well-known/jwks.json"),
        );
        let verified = verify_card(card.as_object().unwrap(), &trusted(&key)).unwrap();
        assert_eq!(verified.alg, alg);
        assert_eq!(verified.kid, key.kid());

        let protected = card["signatures"][0]["protected"].as_str().unwrap();
        let header: Value = serde_json::from_slice(
            &base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, protected)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            header,
            json!({"alg": alg, "kid": key.kid(), "typ": "JOSE",
                   "jwk": serde_json::to_value(key.public_jwk()).unwrap(),
                   "jku": "https://agent.example.com/.well-known/jwks.json"})
        );
    }
    let pkcs1 = SigningKey::from_pem(RSA_PKCS1).unwrap();
    let pkcs8 = SigningKey::from_pem(RSA_PKCS8).unwrap();
    assert_eq!(pkcs1.kid(), pkcs8.kid(), "one RSA key in two encodings");
}

#[test]
fn a_tampered_card_is_refused() {
    let key = SigningKey::from_pem(ED25519).unwrap();
    let mut card = signed(&key, None);
    card["skills"][0]["name"] = json!("Shout");
    assert!(matches!(
        verify_card(card.as_object().unwrap(), &trusted(&key)),
        Err(CardSignatureError::BadSignature { index: 0, .. })
    ));
    // Defaults the presence rules drop do not count as a change.
    let mut card = signed(&key, None);
    card["securitySchemes"] = json!({});
    card["skills"][0]["examples"] = json!([]);
    assert!(verify_card(card.as_object().unwrap(), &trusted(&key)).is_ok());
}

#[test]
fn an_unknown_key_and_an_unsigned_card_are_refused() {
    let signer = SigningKey::from_pem(P256).unwrap();
    let other = SigningKey::generate_es256().unwrap();
    let card = signed(&signer, None);
    assert_eq!(
        verify_card(card.as_object().unwrap(), &trusted(&other)),
        Err(CardSignatureError::UnknownKey {
            index: 0,
            kid: Some(signer.kid().to_owned())
        })
    );
    // The right kid on the wrong key is a mismatch, not a pass.
    let impostor = vec![VerifyingKey::from_jwk(other.with_kid(signer.kid()).public_jwk()).unwrap()];
    assert!(matches!(
        verify_card(card.as_object().unwrap(), &impostor),
        Err(CardSignatureError::BadSignature { .. })
    ));
    assert_eq!(
        verify_card(card_unsigned().as_object().unwrap(), &trusted(&signer)),
        Err(CardSignatureError::NoSignature)
    );
}

fn card_unsigned() -> Value {
    card()
}

#[test]
fn one_verified_signature_among_unknown_ones_is_enough() {
    let old = SigningKey::from_pem(P384).unwrap();
    let new = SigningKey::from_pem(P256).unwrap();
    let mut card = card();
    let object = card.as_object().unwrap().clone();
    card["signatures"] = json!([
        sign_card(&object, &old, None).unwrap(),
        sign_card(&object, &new, None).unwrap(),
    ]);
    let outcomes = check_card(card.as_object().unwrap(), &trusted(&new)).unwrap();
    assert!(matches!(
        outcomes[0],
        Err(CardSignatureError::UnknownKey { .. })
    ));
    assert!(outcomes[1].is_ok());
    assert_eq!(
        verify_card(card.as_object().unwrap(), &trusted(&new))
            .unwrap()
            .index,
        1
    );
}

#[test]
fn none_and_hmac_signatures_are_refused() {
    let key = SigningKey::from_pem(P256).unwrap();
    for alg in ["none", "HS256"] {
        let header = json!({"alg": alg, "kid": key.kid(), "typ": "JOSE"}).to_string();
        let protected =
            base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, header);
        let mut card = card();
        card["signatures"] = json!([{"protected": protected, "signature": "AAAA"}]);
        assert_eq!(
            verify_card(card.as_object().unwrap(), &trusted(&key)),
            Err(CardSignatureError::UnsupportedAlgorithm {
                index: 0,
                alg: alg.to_owned()
            })
        );
    }
}

#[test]
fn unsupported_private_keys_are_refused_without_their_material() {
    let error = SigningKey::from_pem(P256_SEC1).unwrap_err();
    assert!(matches!(error, KeyError::UnsupportedPrivateKey { .. }));
    assert!(error.to_string().contains("openssl pkcs8"), "{error}");
    assert_eq!(
        SigningKey::from_pem("no key here").unwrap_err(),
        KeyError::InvalidPem
    );
    let key = SigningKey::from_pem(P256).unwrap();
    let secret_line = P256.lines().nth(1).unwrap();
    assert!(!format!("{key:?}").contains(&secret_line[..16]));
}
