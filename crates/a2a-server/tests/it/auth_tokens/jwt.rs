//! What a JWT must be to be accepted: signed by the key it names with an algorithm that
//! key allows, with the expected issuer, audience, time and claims.

use a2a_server::auth::token::{
    Algorithm, JwksOptions, JwksSource, JwtConfig, JwtVerifier, TokenError, TokenVerifier,
};
use jsonwebtoken::EncodingKey;
use serde_json::{Value, json};

use super::idp::Idp;
use super::keys::{self, hand_built, jwks, now};
use super::{AUDIENCE, claims, verifier};

#[tokio::test]
async fn tokens_of_every_asymmetric_algorithm_are_accepted() {
    let signers = [
        keys::rsa(0, "rsa", Algorithm::RS256),
        keys::rsa(0, "rsa-pss", Algorithm::PS256),
        keys::ec("p256", Algorithm::ES256),
        keys::ec("p384", Algorithm::ES384),
        keys::ed25519("ed"),
    ];
    let idp = Idp::start(jwks(&signers.iter().collect::<Vec<_>>())).await;
    let verifier = verifier(&idp, JwksOptions::default());
    for signer in &signers {
        let token = signer.sign(&claims(&idp.issuer()));
        let verified = verifier
            .verify(&token)
            .await
            .unwrap_or_else(|error| panic!("{:?}: {error}", signer.alg));
        assert_eq!(verified.subject.as_deref(), Some("user-42"));
        assert_eq!(verified.issuer.as_deref(), Some(idp.issuer().as_str()));
        assert_eq!(verified.client_id.as_deref(), Some("web-app"));
        assert_eq!(verified.username, None);
        assert_eq!(verified.audience, [AUDIENCE, "https://other.example"]);
        assert_eq!(verified.scopes, ["tasks:read", "tasks:write"]);
        assert_eq!(verified.claims["sub"], "user-42");
    }
    assert_eq!(idp.jwks_fetches(), 1, "the keys are cached");
}

#[tokio::test]
async fn scp_claims_and_client_id_map_to_the_profile() {
    let signer = keys::ec("p256", Algorithm::ES256);
    let idp = Idp::start(jwks(&[&signer])).await;
    let verifier = verifier(&idp, JwksOptions::default());
    let mut list = claims(&idp.issuer());
    list["scope"] = Value::Null;
    list["scp"] = json!(["a", "b"]);
    list["client_id"] = json!("cli");
    let verified = verifier.verify(&signer.sign(&list)).await.unwrap();
    assert_eq!(verified.scopes, ["a", "b"]);
    assert_eq!(verified.client_id.as_deref(), Some("cli"));

    let mut text = claims(&idp.issuer());
    text["scope"] = Value::Null;
    text["scp"] = json!("c d");
    text["aud"] = json!(AUDIENCE);
    let verified = verifier.verify(&signer.sign(&text)).await.unwrap();
    assert_eq!(verified.scopes, ["c", "d"]);
    assert_eq!(verified.audience, [AUDIENCE]);
}

#[tokio::test]
async fn time_issuer_audience_and_required_claims_are_checked() {
    let signer = keys::ec("p256", Algorithm::ES256);
    let idp = Idp::start(jwks(&[&signer])).await;
    let verifier = verifier(&idp, JwksOptions::default());
    let issuer = idp.issuer();
    let with = |name: &str, value: Value| {
        let mut claims = claims(&issuer);
        if value.is_null() {
            claims.as_object_mut().unwrap().remove(name);
        } else {
            claims[name] = value;
        }
        claims
    };
    let cases = [
        (with("exp", json!(now() - 120)), TokenError::Expired),
        (with("nbf", json!(now() + 300)), TokenError::NotYetValid),
        (with("iat", json!(now() + 300)), TokenError::NotYetValid),
        (with("exp", Value::Null), TokenError::Claim("exp".into())),
        (with("exp", json!("soon")), TokenError::Claim("exp".into())),
        (
            with("iss", json!("https://evil.example")),
            TokenError::Issuer,
        ),
        (with("iss", Value::Null), TokenError::Issuer),
        (
            with("aud", json!("https://other.example")),
            TokenError::Audience,
        ),
        (with("aud", json!([])), TokenError::Audience),
        (with("aud", Value::Null), TokenError::Audience),
    ];
    for (claims, expected) in cases {
        assert_eq!(
            verifier.verify(&signer.sign(&claims)).await,
            Err(expected.clone()),
            "{claims}"
        );
    }
    // Within the default 60 s leeway.
    assert!(
        verifier
            .verify(&signer.sign(&with("exp", json!(now() - 30))))
            .await
            .is_ok()
    );
    assert!(
        verifier
            .verify(&signer.sign(&with("nbf", json!(now() + 30))))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_signature_by_another_key_with_the_same_kid_is_refused() {
    let genuine = keys::rsa(0, "rsa", Algorithm::RS256);
    let impostor = keys::rsa(1, "rsa", Algorithm::RS256);
    let idp = Idp::start(jwks(&[&genuine])).await;
    let verifier = verifier(&idp, JwksOptions::default());
    let forged = impostor.sign(&claims(&idp.issuer()));
    assert_eq!(verifier.verify(&forged).await, Err(TokenError::Signature));

    let ec = keys::ec("p256", Algorithm::ES256);
    let other_ec = keys::ec("p256", Algorithm::ES256);
    let idp = Idp::start(jwks(&[&ec])).await;
    let verifier = self::verifier(&idp, JwksOptions::default());
    let forged = other_ec.sign(&claims(&idp.issuer()));
    assert_eq!(verifier.verify(&forged).await, Err(TokenError::Signature));
}

#[tokio::test]
async fn unsigned_tokens_are_refused() {
    let signer = keys::rsa(0, "rsa", Algorithm::RS256);
    let idp = Idp::start(jwks(&[&signer])).await;
    let verifier = verifier(&idp, JwksOptions::default());
    let claims = claims(&idp.issuer());
    for alg in ["none", "None", "NONE"] {
        let header = json!({ "alg": alg, "typ": "JWT", "kid": "rsa" });
        for token in [
            hand_built(&header, &claims, b""),
            hand_built(&header, &claims, b"anything"),
        ] {
            assert!(
                matches!(verifier.verify(&token).await, Err(TokenError::Algorithm(_))),
                "{alg}"
            );
        }
    }
    let no_alg = hand_built(&json!({ "kid": "rsa" }), &claims, b"sig");
    assert!(matches!(
        verifier.verify(&no_alg).await,
        Err(TokenError::Malformed(_))
    ));
}

#[tokio::test]
async fn an_hmac_token_keyed_with_the_public_key_is_refused() {
    let signer = keys::rsa(0, "rsa", Algorithm::RS256);
    let idp = Idp::start(jwks(&[&signer])).await;
    let verifier = verifier(&idp, JwksOptions::default());
    let (der, pem) = keys::rsa_public_bytes(0);
    let claims = claims(&idp.issuer());
    for secret in [der.as_slice(), pem.as_bytes()] {
        for alg in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
            let mut header = jsonwebtoken::Header::new(alg);
            header.kid = Some("rsa".into());
            let token =
                jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(secret)).unwrap();
            assert!(
                matches!(verifier.verify(&token).await, Err(TokenError::Algorithm(_))),
                "{alg:?}"
            );
        }
    }
}

#[tokio::test]
async fn a_token_must_fit_the_type_of_the_key_it_names() {
    let rsa = keys::rsa(0, "rsa", Algorithm::RS256);
    let p256 = keys::ec("p256", Algorithm::ES256);
    let ps_only = keys::rsa(0, "ps-only", Algorithm::PS256);
    let mut jwks = jwks(&[&rsa, &p256, &ps_only]);
    jwks["keys"][2]["alg"] = json!("PS256");
    let idp = Idp::start(jwks).await;
    let verifier = verifier(&idp, JwksOptions::default());
    let claims = claims(&idp.issuer());
    // The EC key's kid on an RSA signature, the RSA key's kid on an EC signature, and an
    // RS256 signature by a key published for PS256 only.
    let cases = [
        rsa.sign_as("p256", &claims),
        p256.sign_as("rsa", &claims),
        ps_only.with_alg(Algorithm::RS256).sign(&claims),
        keys::ec("p256", Algorithm::ES384).sign(&claims),
    ];
    for token in cases {
        assert!(matches!(
            verifier.verify(&token).await,
            Err(TokenError::Algorithm(_))
        ));
    }
    assert!(verifier.verify(&ps_only.sign(&claims)).await.is_ok());
}

#[tokio::test]
async fn algorithms_can_be_narrowed() {
    let rsa = keys::rsa(0, "rsa", Algorithm::RS256);
    let ed = keys::ed25519("ed");
    let idp = Idp::start(jwks(&[&rsa, &ed])).await;
    let verifier = JwtVerifier::new(
        JwtConfig::new(JwksSource::Url(idp.url("/jwks")))
            .with_issuer(idp.issuer())
            .with_audience(AUDIENCE)
            .with_algorithms([Algorithm::EdDSA]),
    )
    .unwrap();
    assert!(
        verifier
            .verify(&ed.sign(&claims(&idp.issuer())))
            .await
            .is_ok()
    );
    assert!(matches!(
        verifier.verify(&rsa.sign(&claims(&idp.issuer()))).await,
        Err(TokenError::Algorithm(_))
    ));
}

#[tokio::test]
async fn keys_without_kid_match_tokens_without_kid() {
    let signer = keys::ec("unused", Algorithm::ES256).renamed(None);
    let idp = Idp::start(jwks(&[&signer])).await;
    let verifier = verifier(&idp, JwksOptions::default());
    assert!(
        verifier
            .verify(&signer.sign(&claims(&idp.issuer())))
            .await
            .is_ok()
    );
    let named = signer.sign_as("named", &claims(&idp.issuer()));
    assert_eq!(verifier.verify(&named).await, Err(TokenError::UnknownKey));
}
