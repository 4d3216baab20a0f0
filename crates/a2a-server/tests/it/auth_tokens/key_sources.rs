//! Where a verifier finds its keys: a JWKS fetched, cached and fetched again on rotation,
//! expiry or failure (never more often than the cooldown allows), keys given directly, or
//! OpenID Connect discovery.

use std::time::Duration;

use a2a_server::auth::token::{
    Algorithm, JwksOptions, JwksSource, JwtConfig, JwtVerifier, TokenError, TokenVerifier,
};
use serde_json::json;

use super::idp::Idp;
use super::keys::{self, jwks};
use super::{AUDIENCE, claims, quick_cooldown, verifier};

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
