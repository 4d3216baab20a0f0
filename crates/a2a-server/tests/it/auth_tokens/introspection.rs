//! Opaque tokens checked by RFC 7662 introspection.

use std::time::Duration;

use a2a_server::auth::token::{
    ClientAuthentication, IntrospectionConfig, Introspector, TokenError, TokenVerifier,
};
use serde_json::json;

use super::AUDIENCE;
use super::idp::{CLIENT_ID, CLIENT_SECRET, Idp};
use super::keys::{jwks, now};

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
