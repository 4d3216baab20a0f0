//! Token verification with real signed tokens: JWTs against a JWKS served
//! over HTTP, found directly or through OpenID Connect discovery, and opaque tokens checked
//! by RFC 7662 introspection.

mod fuzz;
mod idp;
mod keys;

use std::time::Duration;

use a2a_server::auth::token::{
    Algorithm, ClientAuthentication, IntrospectionConfig, Introspector, JwksOptions, JwksSource,
    JwtConfig, JwtVerifier, TokenError, TokenVerifier,
};
use jsonwebtoken::EncodingKey;
use serde_json::{Value, json};

use self::idp::{CLIENT_ID, CLIENT_SECRET, Idp};
use self::keys::{hand_built, jwks, now};

const AUDIENCE: &str = "https://agent.example/a2a";

/// Claims a well-behaved issuer would put in an access token.
fn claims(issuer: &str) -> Value {
    json!({
        "iss": issuer,
        "sub": "user-42",
        "aud": [AUDIENCE, "https://other.example"],
        "azp": "web-app",
        "scope": "tasks:read tasks:write",
        "exp": now() + 300,
        "iat": now(),
    })
}

/// A verifier of tokens from `idp`, reading its JWKS directly.
fn verifier(idp: &Idp, options: JwksOptions) -> JwtVerifier {
    JwtVerifier::new(
        JwtConfig::new(JwksSource::Url(idp.url("/jwks")))
            .with_issuer(idp.issuer())
            .with_audience(AUDIENCE)
            .with_jwks_options(options),
    )
    .unwrap()
}

fn quick_cooldown(cooldown: Duration) -> JwksOptions {
    JwksOptions::default().with_refresh_cooldown(cooldown)
}

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
async fn a_key_added_by_rotation_is_found_with_one_more_fetch() {
    let old = keys::ec("2024", Algorithm::ES256);
    let new = keys::ed25519("2025");
    let idp = Idp::start(jwks(&[&old])).await;
    let verifier = verifier(&idp, quick_cooldown(Duration::from_millis(200)));
    assert!(
        verifier
            .verify(&old.sign(&claims(&idp.issuer())))
            .await
            .is_ok()
    );
    assert_eq!(idp.jwks_fetches(), 1);

    idp.publish(jwks(&[&old, &new]));
    tokio::time::sleep(Duration::from_millis(250)).await;
    let verified = verifier.verify(&new.sign(&claims(&idp.issuer()))).await;
    assert!(verified.is_ok(), "{verified:?}");
    assert_eq!(idp.jwks_fetches(), 2);
    assert!(
        verifier
            .verify(&old.sign(&claims(&idp.issuer())))
            .await
            .is_ok()
    );
    assert!(
        verifier
            .verify(&new.sign(&claims(&idp.issuer())))
            .await
            .is_ok()
    );
    assert_eq!(idp.jwks_fetches(), 2);

    // The old key is withdrawn; tokens it signs stop working once the keys are re-read.
    idp.publish(jwks(&[&new]));
    tokio::time::sleep(Duration::from_millis(250)).await;
    let unknown = keys::ec("2026", Algorithm::ES256);
    assert_eq!(
        verifier.verify(&unknown.sign(&claims(&idp.issuer()))).await,
        Err(TokenError::UnknownKey)
    );
    assert_eq!(idp.jwks_fetches(), 3);
}

#[tokio::test]
async fn garbage_key_ids_cause_at_most_one_fetch_per_cooldown() {
    let signer = keys::ec("p256", Algorithm::ES256);
    let idp = Idp::start(jwks(&[&signer])).await;
    let verifier = verifier(&idp, quick_cooldown(Duration::from_secs(1)));
    // Signed up front, so the timed part below only verifies.
    let garbage: Vec<String> = (0..300)
        .map(|n| signer.sign_as(&format!("garbage-{n}"), &claims(&idp.issuer())))
        .collect();
    assert!(
        verifier
            .verify(&signer.sign(&claims(&idp.issuer())))
            .await
            .is_ok()
    );
    assert_eq!(idp.jwks_fetches(), 1);

    for token in &garbage[..100] {
        assert_eq!(verifier.verify(token).await, Err(TokenError::UnknownKey));
    }
    assert_eq!(idp.jwks_fetches(), 1, "the first fetch just happened");

    // After the cooldown, 100 concurrent garbage tokens share one fetch.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let results =
        futures::future::join_all(garbage[100..200].iter().map(|token| verifier.verify(token)))
            .await;
    assert!(
        results
            .iter()
            .all(|result| *result == Err(TokenError::UnknownKey))
    );
    for token in &garbage[200..] {
        assert_eq!(verifier.verify(token).await, Err(TokenError::UnknownKey));
    }
    assert_eq!(idp.jwks_fetches(), 2);
}

#[tokio::test]
async fn keys_expire_after_their_ttl_or_max_age() {
    let signer = keys::ec("p256", Algorithm::ES256);
    let idp = Idp::start(jwks(&[&signer])).await;
    let verifier = verifier(
        &idp,
        JwksOptions::default()
            .with_cache_ttl(Duration::from_millis(500))
            .with_refresh_cooldown(Duration::from_millis(50)),
    );
    let token = signer.sign(&claims(&idp.issuer()));
    assert!(verifier.verify(&token).await.is_ok());
    assert!(verifier.verify(&token).await.is_ok());
    assert_eq!(idp.jwks_fetches(), 1);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(verifier.verify(&token).await.is_ok());
    assert_eq!(idp.jwks_fetches(), 2);

    // `max-age=0` shortens the TTL, but not below the cooldown.
    let short_lived = JwtVerifier::new(
        JwtConfig::new(JwksSource::Url(idp.url("/short-lived-jwks")))
            .with_issuer(idp.issuer())
            .with_audience(AUDIENCE)
            .with_jwks_options(quick_cooldown(Duration::from_millis(500))),
    )
    .unwrap();
    let first = short_lived.verify(&token).await;
    assert!(first.is_ok(), "{first:?}");
    assert!(short_lived.verify(&token).await.is_ok());
    assert_eq!(idp.jwks_fetches(), 3);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(short_lived.verify(&token).await.is_ok());
    assert_eq!(idp.jwks_fetches(), 4);
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

#[tokio::test]
async fn static_keys_need_no_endpoint() {
    let signer = keys::ed25519("ed");
    let set = serde_json::from_value(jwks(&[&signer])).unwrap();
    let verifier = JwtVerifier::new(
        JwtConfig::new(JwksSource::Keys(set))
            .with_issuer("https://issuer.example")
            .with_audience(AUDIENCE),
    )
    .unwrap();
    let token = signer.sign(&claims("https://issuer.example"));
    assert!(verifier.verify(&token).await.is_ok());
    assert_eq!(
        verifier
            .verify(&signer.sign_as("other", &claims("https://issuer.example")))
            .await,
        Err(TokenError::UnknownKey)
    );
}

#[tokio::test]
async fn an_unreachable_or_failing_jwks_endpoint_makes_tokens_uncheckable() {
    let signer = keys::ec("p256", Algorithm::ES256);
    // A port nothing listens on any more.
    let closed = {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.local_addr().unwrap()
    };
    let issuer = format!("http://{closed}");
    let down = JwtVerifier::new(
        JwtConfig::new(JwksSource::Url(
            url::Url::parse(&format!("{issuer}/jwks")).unwrap(),
        ))
        .with_issuer(issuer.clone())
        .with_audience(AUDIENCE),
    )
    .unwrap();
    let token = signer.sign(&claims(&issuer));
    for _ in 0..3 {
        assert!(matches!(
            down.verify(&token).await,
            Err(TokenError::Unavailable(_))
        ));
    }

    let idp = Idp::start(jwks(&[&signer])).await;
    for path in ["/failing-jwks", "/elsewhere-jwks", "/nothing-here"] {
        let verifier = JwtVerifier::new(
            JwtConfig::new(JwksSource::Url(idp.url(path)))
                .with_issuer(idp.issuer())
                .with_audience(AUDIENCE),
        )
        .unwrap();
        let result = verifier.verify(&signer.sign(&claims(&idp.issuer()))).await;
        assert!(
            matches!(result, Err(TokenError::Unavailable(_))),
            "{path}: {result:?}"
        );
    }
    assert_eq!(
        idp.jwks_fetches(),
        0,
        "the other-origin redirect is not followed"
    );

    // A redirect within the origin is fine.
    let moved = JwtVerifier::new(
        JwtConfig::new(JwksSource::Url(idp.url("/moved-jwks")))
            .with_issuer(idp.issuer())
            .with_audience(AUDIENCE),
    )
    .unwrap();
    assert!(
        moved
            .verify(&signer.sign(&claims(&idp.issuer())))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_failed_fetch_is_retried_after_the_cooldown() {
    let signer = keys::ec("p256", Algorithm::ES256);
    let idp = Idp::start(json!({ "keys": "not a list" })).await;
    let verifier = verifier(&idp, quick_cooldown(Duration::from_millis(500)));
    let token = signer.sign(&claims(&idp.issuer()));
    assert!(matches!(
        verifier.verify(&token).await,
        Err(TokenError::Unavailable(_))
    ));
    idp.publish(jwks(&[&signer]));
    assert!(matches!(
        verifier.verify(&token).await,
        Err(TokenError::Unavailable(_))
    ));
    assert_eq!(idp.jwks_fetches(), 1, "no retry within the cooldown");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(verifier.verify(&token).await.is_ok());
    assert_eq!(idp.jwks_fetches(), 2);
}

#[tokio::test]
async fn openid_connect_discovery_finds_the_keys_and_the_issuer() {
    let signer = keys::rsa(0, "rsa", Algorithm::PS256);
    let idp = Idp::start(jwks(&[&signer])).await;

    let by_issuer = JwtVerifier::new(
        JwtConfig::new(JwksSource::OidcIssuer(idp.url(""))).with_audience(AUDIENCE),
    )
    .unwrap();
    let by_card = JwtVerifier::from_openid_connect_url(
        idp.url("/.well-known/openid-configuration").as_str(),
        [AUDIENCE],
    )
    .unwrap();
    for verifier in [&by_issuer, &by_card] {
        let verified = verifier
            .verify(&signer.sign(&claims(&idp.issuer())))
            .await
            .unwrap();
        assert_eq!(verified.issuer.as_deref(), Some(idp.issuer().as_str()));
        // The discovered issuer is the expected one.
        assert_eq!(
            verifier
                .verify(&signer.sign(&claims("https://evil.example")))
                .await,
            Err(TokenError::Issuer)
        );
    }
    assert_eq!(idp.jwks_fetches(), 2, "one per verifier");
}

#[tokio::test]
async fn discovery_naming_another_issuer_is_refused() {
    let signer = keys::ec("p256", Algorithm::ES256);
    let idp = Idp::start(jwks(&[&signer])).await;
    let liar = JwtVerifier::new(
        JwtConfig::new(JwksSource::OidcIssuer(idp.url("/liar"))).with_audience(AUDIENCE),
    )
    .unwrap();
    let by_card = JwtVerifier::from_openid_connect_url(
        idp.url("/liar/.well-known/openid-configuration").as_str(),
        [AUDIENCE],
    )
    .unwrap();
    // The document is honest, but not from the issuer the configuration names.
    let configured = JwtVerifier::new(
        JwtConfig::new(JwksSource::OidcIssuer(idp.url("")))
            .with_issuer("https://expected.example")
            .with_audience(AUDIENCE),
    )
    .unwrap();
    for verifier in [&liar, &by_card, &configured] {
        for issuer in [idp.issuer(), "https://someone-else.example".into()] {
            let result = verifier.verify(&signer.sign(&claims(&issuer))).await;
            assert!(
                matches!(result, Err(TokenError::Unavailable(_))),
                "{result:?}"
            );
        }
    }
    assert_eq!(idp.jwks_fetches(), 0);
}

fn introspector(idp: &Idp) -> IntrospectionConfig {
    IntrospectionConfig::new(idp.url("/introspect"), CLIENT_ID, CLIENT_SECRET)
}

#[tokio::test]
async fn introspection_maps_an_active_token_to_the_profile() {
    let idp = Idp::start(jwks(&[])).await;
    idp.activate(
        "opaque-1",
        json!({
            "sub": "user-7",
            "username": "ada",
            "client_id": "cli",
            "iss": "https://issuer.example",
            "aud": "https://agent.example/a2a",
            "scope": "tasks:read  tasks:write",
            "exp": now() + 600,
            "token_type": "Bearer",
        }),
    );
    for method in [
        ClientAuthentication::ClientSecretBasic,
        ClientAuthentication::ClientSecretPost,
    ] {
        let introspector =
            Introspector::new(introspector(&idp).with_client_authentication(method)).unwrap();
        let verified = introspector.verify("opaque-1").await.unwrap();
        assert_eq!(verified.subject.as_deref(), Some("user-7"));
        assert_eq!(verified.username.as_deref(), Some("ada"));
        assert_eq!(verified.client_id.as_deref(), Some("cli"));
        assert_eq!(verified.issuer.as_deref(), Some("https://issuer.example"));
        assert_eq!(verified.audience, ["https://agent.example/a2a"]);
        assert_eq!(verified.scopes, ["tasks:read", "tasks:write"]);
        assert_eq!(verified.claims["token_type"], "Bearer");
        assert_eq!(
            introspector.verify("opaque-unknown").await,
            Err(TokenError::Inactive)
        );
    }
}

#[tokio::test]
async fn introspection_checks_time_issuer_and_audience() {
    let idp = Idp::start(jwks(&[])).await;
    idp.activate("expired", json!({ "sub": "a", "exp": now() - 120 }));
    idp.activate("early", json!({ "sub": "a", "nbf": now() + 300 }));
    idp.activate(
        "foreign",
        json!({ "sub": "a", "iss": "https://other.example", "aud": "x" }),
    );
    idp.activate(
        "ours",
        json!({ "sub": "a", "iss": "https://issuer.example", "aud": [AUDIENCE] }),
    );
    let strict = Introspector::new(
        introspector(&idp)
            .with_issuer("https://issuer.example")
            .with_audience(AUDIENCE),
    )
    .unwrap();
    assert_eq!(strict.verify("expired").await, Err(TokenError::Expired));
    assert_eq!(strict.verify("early").await, Err(TokenError::NotYetValid));
    assert_eq!(strict.verify("foreign").await, Err(TokenError::Issuer));
    assert!(strict.verify("ours").await.is_ok());
    let lenient = Introspector::new(introspector(&idp)).unwrap();
    assert!(lenient.verify("foreign").await.is_ok());
    let audience_only = Introspector::new(introspector(&idp).with_audience(AUDIENCE)).unwrap();
    assert_eq!(
        audience_only.verify("foreign").await,
        Err(TokenError::Audience)
    );
}

#[tokio::test]
async fn introspection_with_wrong_credentials_is_unavailable_and_tells_no_secret() {
    let idp = Idp::start(jwks(&[])).await;
    idp.activate("opaque-1", json!({ "sub": "a" }));
    for (id, secret) in [(CLIENT_ID, "wrong-secret"), ("someone", CLIENT_SECRET)] {
        let introspector =
            Introspector::new(IntrospectionConfig::new(idp.url("/introspect"), id, secret))
                .unwrap();
        let error = introspector.verify("opaque-1").await.unwrap_err();
        assert!(matches!(error, TokenError::Unavailable(_)), "{error:?}");
        let shown = format!("{error} {error:?} {introspector:?}");
        assert!(!shown.contains(secret), "{shown}");
        assert!(!shown.contains("opaque-1"), "{shown}");
    }
}

#[tokio::test]
async fn active_introspection_answers_are_cached_by_hash_when_asked() {
    let idp = Idp::start(jwks(&[])).await;
    idp.activate("opaque-1", json!({ "sub": "a", "exp": now() + 600 }));
    let uncached = Introspector::new(introspector(&idp)).unwrap();
    for _ in 0..3 {
        assert!(uncached.verify("opaque-1").await.is_ok());
    }
    assert_eq!(idp.introspections(), 3);

    let cached =
        Introspector::new(introspector(&idp).with_cache_ttl(Duration::from_secs(60))).unwrap();
    for _ in 0..3 {
        assert!(cached.verify("opaque-1").await.is_ok());
        assert_eq!(cached.verify("opaque-2").await, Err(TokenError::Inactive));
    }
    // One for the active token, three for the inactive one (never cached).
    assert_eq!(idp.introspections(), 3 + 1 + 3);
    assert!(!format!("{cached:?}").contains("opaque-1"));
}

#[tokio::test]
async fn an_unreachable_introspection_endpoint_is_unavailable() {
    let closed = {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.local_addr().unwrap()
    };
    let introspector = Introspector::new(IntrospectionConfig::new(
        url::Url::parse(&format!("http://{closed}/introspect")).unwrap(),
        CLIENT_ID,
        CLIENT_SECRET,
    ))
    .unwrap();
    let error = introspector.verify("opaque-1").await.unwrap_err();
    assert!(matches!(error, TokenError::Unavailable(_)), "{error:?}");
    assert!(!error.to_string().contains(CLIENT_SECRET));
}
