//! KubeMQ compatibility switches (requirements C-07, C-09): the older gateway's codes with
//! `legacy_codes`, and HTTP 401 for authentication failures on the JSON-RPC route.

use std::sync::Arc;
use std::time::Duration;

use a2a_gateway::proxy::{AuthFailureStatus, GATEWAY_DOMAIN, ProxyConfig};
use a2a_server::auth::token::{TokenError, TokenVerifier, VerifiedToken};
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::{Value, json};

use crate::support::{Gateway, closed_port, error_info, send_message, serve, slow_agent};

fn legacy() -> ProxyConfig {
    let mut config = ProxyConfig::default();
    config.legacy_codes = true;
    config
}

/// The gateway's error: code and message, its `ErrorInfo` unchanged by the switch.
#[track_caller]
fn assert_gateway_error(body: &Value, code: i64, message: &str) {
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["error"]["message"], message, "{body}");
    assert_eq!(error_info(body)["domain"], GATEWAY_DOMAIN, "{body}");
    assert_eq!(error_info(body)["metadata"]["executed"], "false", "{body}");
}

/// An agent answering every call with `status` and `body`.
async fn answering(status: u16, body: &'static str) -> String {
    let app = axum::Router::new().route(
        "/",
        post(move || async move { (StatusCode::from_u16(status).unwrap(), body) }),
    );
    format!("http://{}/", serve(app).await)
}

#[tokio::test]
async fn legacy_codes_are_the_older_gateways() {
    let gateway = Gateway::start_with(legacy()).await;
    let call = |agent_id: &'static str| {
        let gateway = &gateway;
        async move {
            let (status, body) = gateway
                .rpc(agent_id, &send_message("SendMessage", "hi"))
                .await;
            assert_eq!(status, 200, "{body}");
            body
        }
    };
    let directory = &gateway.directory;
    directory.register("dead-01", Some(format!("http://{}/", closed_port())), None);
    assert_gateway_error(&call("dead-01").await, -32603, "agent unreachable: dead-01");

    directory.register(
        "gw-504",
        Some(answering(504, "gateway timeout").await),
        None,
    );
    assert_gateway_error(&call("gw-504").await, -32001, "agent unavailable: 504");
    directory.register("gw-503", Some(answering(503, "unavailable").await), None);
    assert_gateway_error(&call("gw-503").await, -32003, "agent unavailable: 503");

    // A 500 that is not JSON-RPC is the gateway's -32603; one that is, is the agent's
    // answer and is relayed.
    directory.register("err-500", Some(answering(500, "boom").await), None);
    let body = call("err-500").await;
    assert_gateway_error(&body, -32603, "agent unavailable: 500");
    assert_eq!(error_info(&body)["metadata"]["status"], "500");
    let agent_error =
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"Task not found"}}"#;
    directory.register("rpc-500", Some(answering(500, agent_error).await), None);
    let body = call("rpc-500").await;
    assert_eq!(body["error"]["code"], -32001, "{body}");
    assert!(
        body["error"].get("data").is_none(),
        "the agent's own: {body}"
    );

    let body = gateway
        .rpc("nobody-01", &send_message("SendMessage", "hi"))
        .await
        .1;
    assert_gateway_error(&body, -32002, "agent not found: nobody-01");
}

#[tokio::test]
async fn a_busy_agent_is_minus_32603_with_legacy_codes() {
    let mut config = legacy();
    config.max_concurrency_per_agent = 1;
    let gateway = Arc::new(Gateway::start_with(config).await);
    let (app, _cancelled) = slow_agent("late");
    let addr = serve(app).await;
    gateway
        .directory
        .register("busy-01", Some(format!("http://{addr}/")), None);
    let mut first = send_message("SendMessage", "hold");
    first["params"]["configuration"] = json!({"timeout": 2});
    let holder = Arc::clone(&gateway);
    let held = tokio::spawn(async move { holder.rpc("busy-01", &first).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, body) = gateway
        .rpc("busy-01", &send_message("SendMessage", "second"))
        .await;
    assert_eq!(status, 200);
    assert_gateway_error(&body, -32603, "server busy: concurrency limit reached");
    let (_, body) = held.await.unwrap();
    assert_gateway_error(&body, -32001, "agent timeout: busy-01");
}

#[tokio::test]
async fn without_legacy_codes_a_plain_500_is_relayed() {
    let gateway = Gateway::start().await;
    gateway
        .directory
        .register("err-500", Some(answering(500, "boom").await), None);
    let response = gateway
        .post_json(
            "/a2a/err-500",
            send_message("SendMessage", "hi").to_string(),
        )
        .await;
    assert_eq!(response.status(), 500);
    assert_eq!(response.text().await.unwrap(), "boom");
}

#[derive(Debug)]
struct RefuseAll;

#[async_trait::async_trait]
impl TokenVerifier for RefuseAll {
    async fn verify(&self, _token: &str) -> Result<VerifiedToken, TokenError> {
        Err(TokenError::Signature)
    }
}

#[tokio::test]
async fn authentication_failures_are_http_200_or_401_as_configured() {
    for (mode, status) in [
        (AuthFailureStatus::Ok, 200),
        (AuthFailureStatus::Unauthorized, 401),
    ] {
        let mut config = ProxyConfig::default();
        config.token_verifier = Some(Arc::new(RefuseAll));
        config.auth_failure_status = mode;
        let gateway = Gateway::start_with(config).await;
        gateway
            .directory
            .register("secure-01", Some(answering(200, "{}").await), None);
        for authorization in [None, Some("Bearer forged")] {
            let mut request = gateway
                .http
                .post(gateway.url("/a2a/secure-01"))
                .header("content-type", "application/json")
                .body(send_message("SendMessage", "x").to_string());
            if let Some(authorization) = authorization {
                request = request.header("authorization", authorization);
            }
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), status, "{mode:?} {authorization:?}");
            let challenge = response
                .headers()
                .get("www-authenticate")
                .map(|value| value.to_str().unwrap().to_owned());
            assert_eq!(
                challenge.as_deref(),
                (status == 401).then_some("Bearer"),
                "{mode:?}"
            );
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["error"]["code"], -32010, "{body}");
            assert_eq!(error_info(&body)["reason"], "UNAUTHENTICATED");
        }
    }
}
