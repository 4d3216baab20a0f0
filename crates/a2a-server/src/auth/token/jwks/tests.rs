use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::cache::cache_max_age;
use super::*;

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn set(keys: &Value) -> KeySet {
    KeySet::parse(json!({ "keys": keys }).to_string().as_bytes()).unwrap()
}

fn rsa_jwk(kid: &str) -> Value {
    json!({ "kty": "RSA", "kid": kid, "n": b64(&[0xC5; 256]), "e": "AQAB" })
}

fn ec_jwk(kid: &str, crv: &str, size: usize) -> Value {
    json!({ "kty": "EC", "kid": kid, "crv": crv, "x": b64(&vec![1; size]), "y": b64(&vec![2; size]) })
}

#[test]
fn symmetric_encryption_and_unknown_keys_are_dropped_one_by_one() {
    let keys = set(&json!([
        { "kty": "oct", "kid": "hmac", "k": b64(b"secret"), "alg": "HS256" },
        { "kty": "RSA", "kid": "enc", "use": "enc", "n": b64(&[0xC5; 256]), "e": "AQAB" },
        { "kty": "RSA", "kid": "oaep", "alg": "RSA-OAEP", "n": b64(&[0xC5; 256]), "e": "AQAB" },
        { "kty": "RSA", "kid": "wrap", "key_ops": ["wrapKey"], "n": b64(&[0xC5; 256]), "e": "AQAB" },
        { "kty": "EC", "kid": "k1", "crv": "secp256k1", "x": b64(&[1; 32]), "y": b64(&[2; 32]) },
        { "kty": "EC", "kid": "es512", "alg": "ES512", "crv": "P-521", "x": b64(&[1; 66]), "y": b64(&[2; 66]) },
        { "kty": "EC", "kid": "short", "crv": "P-256", "x": b64(&[1; 31]), "y": b64(&[2; 32]) },
        { "kty": "OKP", "kid": "x25519", "crv": "X25519", "x": b64(&[3; 32]) },
        { "kty": "RSA", "kid": "mislabelled", "alg": "ES256", "n": b64(&[0xC5; 256]), "e": "AQAB" },
        "not a key",
        rsa_jwk("good"),
    ]));
    assert_eq!(keys.len(), 1);
    assert!(keys.select(Some("good"), Algorithm::RS256).is_ok());
    assert_eq!(
        keys.select(Some("hmac"), Algorithm::HS256).unwrap_err(),
        KeyMiss::Unknown
    );
}

#[test]
fn a_document_without_keys_is_invalid() {
    for body in [&b"{}"[..], b"[]", b"not json", b"{\"keys\": 3}"] {
        assert!(matches!(
            KeySet::parse(body),
            Err(TokenError::Unavailable(_))
        ));
    }
}

#[test]
fn keys_fit_only_their_own_algorithms() {
    let keys = set(&json!([
        rsa_jwk("rsa"),
        ec_jwk("p256", "P-256", 32),
        ec_jwk("p384", "P-384", 48),
        { "kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": b64(&[3; 32]) },
        { "kty": "RSA", "kid": "ps", "alg": "PS256", "n": b64(&[0xC5; 256]), "e": "AQAB" },
    ]));
    let cases = [
        ("rsa", Algorithm::RS256, true),
        ("rsa", Algorithm::PS512, true),
        ("rsa", Algorithm::ES256, false),
        ("rsa", Algorithm::HS256, false),
        ("p256", Algorithm::ES256, true),
        ("p256", Algorithm::ES384, false),
        ("p384", Algorithm::ES384, true),
        ("p384", Algorithm::ES256, false),
        ("ed", Algorithm::EdDSA, true),
        ("ed", Algorithm::ES256, false),
        ("ps", Algorithm::PS256, true),
        ("ps", Algorithm::RS256, false),
    ];
    for (kid, alg, fits) in cases {
        let found = keys.select(Some(kid), alg);
        if fits {
            assert_eq!(found.unwrap().len(), 1, "{kid} {alg:?}");
        } else {
            assert_eq!(found.unwrap_err(), KeyMiss::WrongType, "{kid} {alg:?}");
        }
    }
    assert_eq!(
        keys.select(Some("other"), Algorithm::RS256).unwrap_err(),
        KeyMiss::Unknown
    );
}

#[test]
fn keys_without_kid_match_tokens_without_kid() {
    let keys = set(&json!([
        { "kty": "RSA", "n": b64(&[0xC5; 256]), "e": "AQAB" },
        { "kty": "EC", "crv": "P-256", "x": b64(&[1; 32]), "y": b64(&[2; 32]) },
        rsa_jwk("named"),
    ]));
    assert_eq!(keys.select(None, Algorithm::RS256).unwrap().len(), 1);
    assert_eq!(keys.select(None, Algorithm::ES256).unwrap().len(), 1);
    assert_eq!(
        keys.select(None, Algorithm::ES384).unwrap_err(),
        KeyMiss::Unknown
    );
    assert!(keys.select(Some("named"), Algorithm::RS256).is_ok());
}

#[test]
fn cache_control_max_age() {
    let cases = [
        ("max-age=300", Some(300)),
        ("public, max-age=60, must-revalidate", Some(60)),
        ("Max-Age = \"20\"", Some(20)),
        ("no-store", Some(0)),
        ("private, no-cache", Some(0)),
        ("public", None),
        ("max-age=-1", None),
    ];
    for (header, seconds) in cases {
        assert_eq!(
            cache_max_age(header),
            seconds.map(Duration::from_secs),
            "{header}"
        );
    }
}

#[test]
fn refresh_decisions_follow_ttl_and_cooldown() {
    let options = JwksOptions::default();
    let now = Instant::now();
    let mut state = State::default();
    assert!(state.needs_fetch(Refresh::IfStale, now, &options));

    state.keys = Some(Arc::new(KeySet::default()));
    state.fetched_at = Some(now);
    state.last_attempt = Some(now);
    state.ttl = Duration::from_secs(600);
    state.generation = 1;
    assert!(!state.needs_fetch(Refresh::IfStale, now, &options));
    // An unknown key right after a fetch waits for the cooldown.
    assert!(!state.needs_fetch(Refresh::UnknownKey { seen: 1 }, now, &options));
    let later = now + Duration::from_secs(31);
    assert!(state.needs_fetch(Refresh::UnknownKey { seen: 1 }, later, &options));
    // Someone already fetched since the caller looked.
    assert!(!state.needs_fetch(Refresh::UnknownKey { seen: 0 }, later, &options));
    // Stale keys are fetched again, but a failure is not retried within the cooldown.
    let stale = now + Duration::from_secs(601);
    assert!(state.needs_fetch(Refresh::IfStale, stale, &options));
    state.last_attempt = Some(stale);
    assert!(!state.needs_fetch(Refresh::IfStale, stale + Duration::from_secs(1), &options));
    assert!(state.current().is_ok());
}
