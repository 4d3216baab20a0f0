//! The gateway's health checks: `/healthz` while the process serves, `/readyz` while the
//! registry's database answers and the gateway is not draining; neither needs credentials.

use std::sync::Arc;

use a2a_gateway::proxy::ProxyConfig;
use a2a_gateway::registry::RegistryOptions;
use a2a_server::auth::token::{JwkSet, JwksSource, JwtConfig, JwtVerifier};
use serde_json::json;

use crate::fleet::{Running, gateway};

/// Callers need a JWT of a key nobody holds; registry writes need a key.
fn guarded() -> ProxyConfig {
    let jwks: JwkSet = serde_json::from_value(json!({"keys": []})).unwrap();
    let verifier = JwtVerifier::new(
        JwtConfig::new(JwksSource::Keys(jwks))
            .with_issuer("https://issuer.test")
            .with_audience("a2a-gateway"),
    )
    .unwrap();
    let mut config = ProxyConfig::default();
    config.token_verifier = Some(Arc::new(verifier));
    config
}

#[tokio::test]
async fn health_checks_answer_without_the_jwt_or_the_registry_key() {
    let gateway = gateway(RegistryOptions::new(), guarded())
        .await
        .registry_key("k-registry");
    let running = Running::start(&gateway).await;
    assert_eq!(
        running.get("/healthz").await,
        (200, json!({"status": "ok"}))
    );
    assert_eq!(
        running.get("/readyz").await,
        (200, json!({"status": "ready"}))
    );
    let (_, refused) = running
        .call(
            "echo-01",
            r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}"#,
        )
        .await;
    assert_eq!(
        refused["error"]["code"], -32010,
        "calls still need the JWT: {refused}"
    );
}

#[tokio::test]
async fn readyz_answers_503_once_the_gateway_drains() {
    let gateway = gateway(RegistryOptions::new(), ProxyConfig::default()).await;
    let running = Running::start(&gateway).await;
    assert_eq!(running.get("/readyz").await.0, 200);
    gateway.drain();
    assert_eq!(
        running.get("/readyz").await,
        (503, json!({"status": "draining"}))
    );
    assert_eq!(running.get("/healthz").await.0, 200, "still alive");
}

#[tokio::test]
async fn readyz_answers_503_when_the_registry_database_does_not_answer() {
    let gateway = gateway(RegistryOptions::new(), ProxyConfig::default()).await;
    let running = Running::start(&gateway).await;
    gateway.registry().close().await;
    assert_eq!(
        running.get("/readyz").await,
        (503, json!({"status": "store unreachable"}))
    );
}
