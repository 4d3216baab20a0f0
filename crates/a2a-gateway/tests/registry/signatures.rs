//! Signed agent cards (spec §11.5): what the registry accepts, what it refuses, and how
//! its [`SignaturePolicy`] picks keys.

use std::sync::Arc;

use a2a_gateway::registry::{Registry, RegistryOptions, SignaturePolicy};
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, Signer, record, v1_card};

async fn signed_api(policy: SignaturePolicy) -> Api {
    let registry = Registry::connect("sqlite::memory:", RegistryOptions::new().signatures(policy))
        .await
        .unwrap();
    Api::new(Arc::new(registry))
}

fn beside(card: &Value, agent_id: &str) -> Value {
    let mut body = card.clone();
    body["agent_id"] = json!(agent_id);
    body
}

async fn refused(api: &Api, body: &Value) -> String {
    let (status, answer) = api.register(body).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    answer["error"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_card_signed_with_an_embedded_key_is_registered() {
    let api = signed_api(SignaturePolicy::new()).await;
    for (index, signer) in [Signer::es256(), Signer::ed25519()].into_iter().enumerate() {
        let signed = signer.sign_embedded(&v1_card("Signed"));
        let (status, answer) = api
            .register(&beside(&signed, &format!("beside-{index}")))
            .await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(
            answer["signatures"], signed["signatures"],
            "kept as registered"
        );
        let envelope = json!({"agent_id": format!("envelope-{index}"), "card": signed});
        let (status, answer) = api.register(&envelope).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
    }
    // A KubeMQ record can be signed too: the record without agent_id is what is signed.
    let mut kubemq = record("signed-record");
    kubemq.as_object_mut().unwrap().remove("agent_id");
    let signed = Signer::es256().sign_embedded(&kubemq);
    assert_eq!(
        api.register(&beside(&signed, "signed-record")).await.0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_tampered_or_badly_signed_card_is_refused() {
    let api = signed_api(SignaturePolicy::new()).await;
    let signer = Signer::es256();
    let signed = signer.sign_embedded(&v1_card("Signed"));

    let mut tampered = signed.clone();
    tampered["supportedInterfaces"][0]["url"] = json!("https://evil.example.com/a2a");
    assert_eq!(
        refused(&api, &beside(&tampered, "tampered")).await,
        "invalid card signature: signature 0 does not match the card"
    );
    let mut renamed = signed.clone();
    renamed["name"] = json!("Other");
    assert!(
        refused(&api, &beside(&renamed, "renamed"))
            .await
            .contains("does not match")
    );

    let mut garbled = signed.clone();
    garbled["signatures"][0]["signature"] = json!("AAAA");
    assert!(
        refused(&api, &beside(&garbled, "garbled"))
            .await
            .contains("does not match")
    );

    // Another key's signature with this key's jwk.
    let mut swapped = signed.clone();
    let other = Signer::es256().sign_embedded(&v1_card("Signed"));
    swapped["signatures"][0]["signature"] = other["signatures"][0]["signature"].clone();
    assert!(
        refused(&api, &beside(&swapped, "swapped"))
            .await
            .contains("does not match")
    );

    // One good signature does not excuse a mismatching one.
    let mut mixed = signed.clone();
    mixed["signatures"]
        .as_array_mut()
        .unwrap()
        .push(garbled["signatures"][0].clone());
    assert!(
        refused(&api, &beside(&mixed, "mixed"))
            .await
            .contains("signature 1 does not match")
    );

    let card = v1_card("Signed");
    let header_cases = [
        (
            json!({"alg": "none", "kid": "k1", "jwk": signer.jwk("k1")}),
            "unsupported algorithm \"none\"",
        ),
        (
            json!({"alg": "HS256", "kid": "k1", "jwk": signer.jwk("k1")}),
            "unsupported algorithm \"HS256\"",
        ),
        (
            json!({"alg": "ES256", "kid": "k1"}),
            "no trusted key \"k1\"",
        ),
        (json!({"alg": "ES256"}), "no `kid`, `jwk` or `jku`"),
        (
            json!({"alg": "ES256", "kid": "k1", "jku": "https://keys.example.com/jwks.json"}),
            "does not fetch `jku`",
        ),
        (
            json!({"alg": "ES256", "jwk": {"kty": "oct", "k": "c2VjcmV0"}}),
            "unsupported key type",
        ),
        (
            json!({"alg": "EdDSA", "jwk": signer.jwk("k1")}),
            "cannot check EdDSA",
        ),
        (
            json!({"alg": "ES256", "jwk": signer.jwk("k1"), "crit": ["exp"], "exp": 1}),
            "crit",
        ),
    ];
    for (header, message) in header_cases {
        let mut body = card.clone();
        body["signatures"] = json!([signer.signature_with(&card, &header)]);
        let error = refused(&api, &beside(&body, "bad-header")).await;
        assert!(
            error.starts_with("invalid card signature: signature 0"),
            "{error}"
        );
        assert!(
            error.contains(message),
            "{header}: {error:?} lacks {message:?}"
        );
    }
    let shape_cases = [
        (json!({"signature": "AAAA"}), "`protected` is required"),
        (
            json!({"protected": "!!", "signature": "AAAA"}),
            "base64url JSON object",
        ),
        (
            json!({"protected": "e30", "signature": "%%"}),
            "`signature` must be base64url",
        ),
    ];
    for (signature, message) in shape_cases {
        let mut body = card.clone();
        body["signatures"] = json!([signature]);
        let error = refused(&api, &beside(&body, "bad-shape")).await;
        assert!(error.contains(message), "{error:?} lacks {message:?}");
    }
    let mut not_a_list = card.clone();
    not_a_list["signatures"] = json!({"protected": "e30"});
    assert!(
        refused(&api, &beside(&not_a_list, "not-a-list"))
            .await
            .contains("signatures must be an array")
    );
    assert_eq!(
        api.get("/agents").await.1,
        json!([]),
        "nothing was registered"
    );
}

#[tokio::test]
async fn signature_policies_decide_which_keys_count() {
    let signer = Signer::es256();
    let card = v1_card("Signed");
    let by_kid = {
        let mut body = card.clone();
        body["signatures"] =
            json!([signer.signature_with(&card, &json!({"alg": "ES256", "kid": "trusted-1"}))]);
        body
    };
    // A trusted key found by kid.
    let trusting = SignaturePolicy::new()
        .trusted_keys(&json!({"keys": [signer.jwk("trusted-1"), {"kty": "oct", "k": "c2VjcmV0"}]}))
        .unwrap();
    let api = signed_api(trusting).await;
    assert_eq!(
        api.register(&beside(&by_kid, "trusted")).await.0,
        StatusCode::OK
    );
    // The trusted key wins over an embedded one with the same kid.
    let impostor = Signer::es256();
    let mut forged = card.clone();
    forged["signatures"] = json!([impostor.signature_with(
        &card,
        &json!({"alg": "ES256", "kid": "trusted-1", "jwk": impostor.jwk("trusted-1")})
    )]);
    assert!(
        refused(&api, &beside(&forged, "forged"))
            .await
            .contains("does not match")
    );

    // Embedded keys off: only trusted keys count.
    let strict = signed_api(SignaturePolicy::new().embedded_keys(false)).await;
    assert!(
        refused(&strict, &beside(&signer.sign_embedded(&card), "embedded"))
            .await
            .contains("cannot be checked")
    );

    // Signatures required: an unsigned card is refused, a signed one accepted.
    let required = signed_api(SignaturePolicy::new().require_signature(true)).await;
    assert!(
        refused(&required, &beside(&card, "unsigned"))
            .await
            .contains("must be signed")
    );
    assert_eq!(
        required
            .register(&beside(&signer.sign_embedded(&card), "signed"))
            .await
            .0,
        StatusCode::OK
    );

    // jku fetching, when on, is https only.
    let fetching = signed_api(SignaturePolicy::new().fetch_jku(true)).await;
    let mut plain = card.clone();
    plain["signatures"] = json!([signer.signature_with(
        &card,
        &json!({"alg": "ES256", "kid": "k1", "jku": "http://127.0.0.1:1/jwks.json"})
    )]);
    assert!(
        refused(&fetching, &beside(&plain, "plain-jku"))
            .await
            .contains("only https key sets are fetched")
    );

    assert!(
        SignaturePolicy::new()
            .trusted_keys(&json!({"no": "keys"}))
            .is_err()
    );
}

#[tokio::test]
async fn an_unsigned_card_is_accepted_by_default() {
    let api = signed_api(SignaturePolicy::new()).await;
    let mut card = v1_card("Unsigned");
    card["signatures"] = json!([]);
    assert_eq!(
        api.register(&beside(&card, "empty-list")).await.0,
        StatusCode::OK
    );
    assert_eq!(
        api.register(&beside(&v1_card("Unsigned"), "no-list"))
            .await
            .0,
        StatusCode::OK
    );
}
