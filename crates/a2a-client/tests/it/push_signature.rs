//! Signed push deliveries (issue 8 items 5 and 6): deliveries signed
//! with the server's `PushSigner` verify with `PushVerifier`; any change to the body or the
//! header, an unknown key, a stale or future `iat` or a wrong token is refused.

use std::time::{Duration, SystemTime};

use a2a_client::ClientError;
use a2a_client::push::{
    LEGACY_TOKEN_HEADER, PushVerifier, PushVerifyError, SIGNATURE_HEADER, TOKEN_HEADER,
};
use a2a_server::push::signing::PushSigner;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use crate::support::Agent;

const BODY: &[u8] = br#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-01-01T00:00:00.000Z"}}}"#;

/// The headers an agent sends with a delivery of `body`, signed at `at`; the token goes in
/// both token headers.
fn delivery(signer: &PushSigner, body: &[u8], at: SystemTime, token: Option<&str>) -> HeaderMap {
    let mut headers = HeaderMap::new();
    let signature = signer.sign_at(body, at).unwrap();
    headers.insert(SIGNATURE_HEADER, HeaderValue::from_str(&signature).unwrap());
    if let Some(token) = token {
        headers.insert(TOKEN_HEADER, HeaderValue::from_str(token).unwrap());
        headers.insert(LEGACY_TOKEN_HEADER, HeaderValue::from_str(token).unwrap());
    }
    headers
}

fn now() -> SystemTime {
    SystemTime::now()
}

/// Replaces the protected header of the delivery's signature with `edit(header)`, keeping the
/// signature.
fn edit_header(headers: &mut HeaderMap, edit: impl FnOnce(&mut Value)) {
    let value = headers[SIGNATURE_HEADER].to_str().unwrap().to_owned();
    let (header, signature) = value.split_once("..").unwrap();
    let mut header: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).unwrap()).unwrap();
    edit(&mut header);
    let header = URL_SAFE_NO_PAD.encode(header.to_string());
    headers.insert(
        SIGNATURE_HEADER,
        HeaderValue::from_str(&format!("{header}..{signature}")).unwrap(),
    );
}

#[test]
fn a_signed_delivery_verifies() {
    let signer = PushSigner::generate().unwrap();
    let verifier = PushVerifier::from_jwks(&signer.jwks())
        .unwrap()
        .expect_token("t1");
    let headers = delivery(&signer, BODY, now(), Some("t1"));
    let delivered = verifier.verify(&headers, BODY).unwrap();
    assert_eq!(delivered.signature.kid, signer.kid());
    assert_eq!(delivered.signature.algorithm, "ES256");
    assert_eq!(
        delivered
            .event
            .task_id()
            .map(ToString::to_string)
            .as_deref(),
        Some("t1")
    );
    let age = now().duration_since(delivered.signature.issued_at).unwrap();
    assert!(age < Duration::from_secs(5), "{age:?}");
}

#[test]
fn a_changed_body_is_refused() {
    let signer = PushSigner::generate().unwrap();
    let verifier = PushVerifier::from_jwks(&signer.jwks()).unwrap();
    let headers = delivery(&signer, BODY, now(), None);
    let tampered = String::from_utf8(BODY.to_vec())
        .unwrap()
        .replace("COMPLETED", "FAILED");
    let error = verifier.verify(&headers, tampered.as_bytes()).unwrap_err();
    assert!(
        matches!(error, PushVerifyError::BadSignature { .. }),
        "{error}"
    );
    // One more byte of whitespace is a different body too: the exact bytes are signed.
    let mut padded = BODY.to_vec();
    padded.push(b'\n');
    assert!(verifier.verify(&headers, &padded).is_err());
}

#[test]
fn a_changed_header_or_a_foreign_key_is_refused() {
    let signer = PushSigner::generate().unwrap();
    let verifier = PushVerifier::from_jwks(&signer.jwks()).unwrap();

    // Moving iat forward to dodge the age check breaks the signature.
    let mut headers = delivery(&signer, BODY, now(), None);
    edit_header(&mut headers, |header| {
        header["iat"] = json!(header["iat"].as_u64().unwrap() + 1);
    });
    let error = verifier.verify(&headers, BODY).unwrap_err();
    assert!(
        matches!(error, PushVerifyError::BadSignature { .. }),
        "{error}"
    );

    let mut headers = delivery(&signer, BODY, now(), None);
    edit_header(&mut headers, |header| header["kid"] = json!("someone-else"));
    let error = verifier.verify(&headers, BODY).unwrap_err();
    assert!(
        matches!(&error, PushVerifyError::UnknownKey { kid } if kid == "someone-else"),
        "{error}"
    );

    for alg in ["none", "HS256", "RS256"] {
        let mut headers = delivery(&signer, BODY, now(), None);
        edit_header(&mut headers, |header| header["alg"] = json!(alg));
        let error = verifier.verify(&headers, BODY).unwrap_err();
        assert!(
            matches!(&error, PushVerifyError::UnsupportedAlgorithm { alg: named } if named == alg),
            "{alg}: {error}"
        );
    }

    let mut headers = delivery(&signer, BODY, now(), None);
    edit_header(&mut headers, |header| header["alg"] = json!("ES384"));
    let error = verifier.verify(&headers, BODY).unwrap_err();
    assert!(
        matches!(error, PushVerifyError::AlgorithmMismatch { .. }),
        "{error}"
    );

    // A key the agent never published, even under the agent's kid.
    let stranger = PushSigner::generate().unwrap();
    let headers = delivery(&stranger, BODY, now(), None);
    let error = verifier.verify(&headers, BODY).unwrap_err();
    assert!(
        matches!(error, PushVerifyError::UnknownKey { .. }),
        "{error}"
    );
    let mut headers = delivery(&stranger, BODY, now(), None);
    edit_header(&mut headers, |header| header["kid"] = json!(signer.kid()));
    let error = verifier.verify(&headers, BODY).unwrap_err();
    assert!(
        matches!(error, PushVerifyError::BadSignature { .. }),
        "{error}"
    );

    let mut headers = HeaderMap::new();
    let error = verifier.verify(&headers, BODY).unwrap_err();
    assert!(
        matches!(error, PushVerifyError::MissingSignature),
        "{error}"
    );
    for malformed in ["x.y.z", "abc", "a..b..c", "!!!..AAAA"] {
        headers.insert(SIGNATURE_HEADER, HeaderValue::from_static(malformed));
        let error = verifier.verify(&headers, BODY).unwrap_err();
        assert!(
            matches!(error, PushVerifyError::MalformedSignature { .. }),
            "{malformed}: {error}"
        );
    }
}

#[test]
fn stale_and_future_signatures_are_refused() {
    let signer = PushSigner::generate().unwrap();
    let verifier = PushVerifier::from_jwks(&signer.jwks()).unwrap();

    let ten_minutes_ago = now() - Duration::from_secs(600);
    let headers = delivery(&signer, BODY, ten_minutes_ago, None);
    let error = verifier.verify(&headers, BODY).unwrap_err();
    assert!(
        matches!(error, PushVerifyError::Stale { age_seconds, max_age_seconds: 300 } if age_seconds >= 600),
        "{error}"
    );
    // The maximum age is configurable.
    let lenient = verifier.clone().max_age(Duration::from_secs(3600));
    lenient.verify(&headers, BODY).unwrap();

    let in_two_minutes = now() + Duration::from_secs(120);
    let headers = delivery(&signer, BODY, in_two_minutes, None);
    let error = verifier.verify(&headers, BODY).unwrap_err();
    assert!(
        matches!(error, PushVerifyError::IssuedInFuture { .. }),
        "{error}"
    );
    // Within the 60 s leeway: clocks differ a little.
    let headers = delivery(&signer, BODY, now() + Duration::from_secs(30), None);
    verifier.verify(&headers, BODY).unwrap();
}

#[test]
fn the_token_is_checked_when_expected() {
    let signer = PushSigner::generate().unwrap();
    let verifier = PushVerifier::from_jwks(&signer.jwks())
        .unwrap()
        .expect_token("t1");

    let headers = delivery(&signer, BODY, now(), Some("t2"));
    let error = verifier.verify(&headers, BODY).unwrap_err();
    assert!(matches!(error, PushVerifyError::TokenMismatch), "{error}");
    assert!(!format!("{error} {error:?}").contains("t2"));

    let headers = delivery(&signer, BODY, now(), None);
    let error = verifier.verify(&headers, BODY).unwrap_err();
    assert!(matches!(error, PushVerifyError::MissingToken), "{error}");

    // Only the legacy header, as v0.3 agents send it.
    let mut headers = delivery(&signer, BODY, now(), None);
    headers.insert(LEGACY_TOKEN_HEADER, HeaderValue::from_static("t1"));
    verifier.verify(&headers, BODY).unwrap();

    // Without an expected token, none is needed.
    let relaxed = PushVerifier::from_jwks(&signer.jwks()).unwrap();
    relaxed
        .verify(&delivery(&signer, BODY, now(), None), BODY)
        .unwrap();
}

#[test]
fn a_signed_body_that_is_not_a_stream_response_is_refused() {
    let signer = PushSigner::generate().unwrap();
    let verifier = PushVerifier::from_jwks(&signer.jwks()).unwrap();
    let body = br#"{"hello":"world"}"#;
    let headers = delivery(&signer, body, now(), None);
    verifier.verify_signature(&headers, body).unwrap();
    let error = verifier.verify(&headers, body).unwrap_err();
    assert!(
        matches!(error, PushVerifyError::InvalidBody { .. }),
        "{error}"
    );
}

#[test]
fn es384_and_ed25519_keys_are_accepted() {
    use ring::rand::SystemRandom;
    use ring::signature::{
        ECDSA_P384_SHA384_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _,
    };

    let rng = SystemRandom::new();
    let iat = now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let sign = |alg: &str, kid: &str, sign: &dyn Fn(&[u8]) -> Vec<u8>| {
        let header = json!({"alg": alg, "kid": kid, "typ": "a2a-push+jws", "iat": iat});
        let header = URL_SAFE_NO_PAD.encode(header.to_string());
        let input = format!("{header}.{}", URL_SAFE_NO_PAD.encode(BODY));
        let signature = URL_SAFE_NO_PAD.encode(sign(input.as_bytes()));
        let mut headers = HeaderMap::new();
        headers.insert(
            SIGNATURE_HEADER,
            HeaderValue::from_str(&format!("{header}..{signature}")).unwrap(),
        );
        headers
    };

    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P384_SHA384_FIXED_SIGNING, &rng).unwrap();
    let p384 =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P384_SHA384_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let point = p384.public_key().as_ref();
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
    let ed25519 = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
    let jwks = json!({"keys": [
        {"kty": "EC", "crv": "P-384", "kid": "p384", "alg": "ES384",
         "x": URL_SAFE_NO_PAD.encode(&point[1..49]), "y": URL_SAFE_NO_PAD.encode(&point[49..])},
        {"kty": "OKP", "crv": "Ed25519", "kid": "ed", "alg": "EdDSA",
         "x": URL_SAFE_NO_PAD.encode(ed25519.public_key().as_ref())},
    ]});
    let verifier = PushVerifier::from_jwks(&jwks).unwrap();

    let headers = sign("ES384", "p384", &|input| {
        p384.sign(&rng, input).unwrap().as_ref().to_vec()
    });
    assert_eq!(
        verifier.verify(&headers, BODY).unwrap().signature.algorithm,
        "ES384"
    );
    let headers = sign("EdDSA", "ed", &|input| {
        ed25519.sign(input).as_ref().to_vec()
    });
    assert_eq!(
        verifier.verify(&headers, BODY).unwrap().signature.algorithm,
        "EdDSA"
    );
    let headers = sign("EdDSA", "p384", &|input| {
        ed25519.sign(input).as_ref().to_vec()
    });
    assert!(matches!(
        verifier.verify(&headers, BODY),
        Err(PushVerifyError::AlgorithmMismatch { .. })
    ));
}

#[tokio::test]
async fn keys_fetched_from_a_running_agent_verify_its_deliveries() {
    let signer = PushSigner::generate().unwrap();
    let with_signer = signer.clone();
    let agent = Agent::start_with(|_| {}, move |builder| builder.push_signer(with_signer)).await;
    assert_eq!(
        agent.server.push_signer().map(PushSigner::kid),
        Some(signer.kid())
    );

    // The agent's base URL and the key set's own URL both work.
    for url in [
        agent.base(),
        format!("{}/.well-known/jwks.json", agent.base()),
    ] {
        let verifier = PushVerifier::fetch(&url).await.unwrap().expect_token("t1");
        assert_eq!(verifier.key_ids(), [signer.kid()]);
        let headers = delivery(&signer, BODY, now(), Some("t1"));
        verifier.verify(&headers, BODY).unwrap();
        verifier.refresh().await.unwrap();
        verifier.verify(&headers, BODY).unwrap();
    }

    let given = PushVerifier::from_jwks(&signer.jwks()).unwrap();
    assert!(matches!(
        given.refresh().await,
        Err(PushVerifyError::NotFetched)
    ));
}

#[tokio::test]
async fn an_agent_without_a_signer_has_no_keys_to_fetch() {
    let agent = Agent::start().await;
    let error = PushVerifier::fetch(&agent.base()).await.unwrap_err();
    assert!(
        matches!(
            &error,
            PushVerifyError::Fetch { source, .. } if matches!(**source, ClientError::Http { status: 404, .. })
        ),
        "{error:?}"
    );

    // Nobody listening: the transport error is the source.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let error = PushVerifier::fetch(&format!("http://{closed}"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &error,
            PushVerifyError::Fetch { source, .. } if matches!(**source, ClientError::Transport { .. })
        ),
        "{error:?}"
    );
}
