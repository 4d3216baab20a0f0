//! Every error the gateway makes itself: at HTTP 200, with its code, message and an
//! `ErrorInfo` of the gateway's domain with `executed = "false"`.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use a2a_gateway::proxy::{GATEWAY_DOMAIN, ProxyConfig};
use a2a_test_support::gateway_seed;
use axum::body::Body;
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::{Value, json};

use crate::support::{
    BROKEN_ID, Gateway, closed_port, error_info, send_message, serve, slow_agent,
};

/// Registers agent `{prefix}-{path}` at `http://{addr}/{path}` and sends it a message;
/// the body of the answer, which must come at HTTP 200.
async fn send_to_path(gateway: &Gateway, addr: SocketAddr, prefix: &str, path: &str) -> Value {
    let agent_id = format!("{prefix}-{path}");
    gateway
        .directory
        .register(&agent_id, Some(format!("http://{addr}/{path}")), None);
    let (status, body) = gateway
        .rpc(&agent_id, &send_message("SendMessage", "hi"))
        .await;
    assert_eq!(status, 200);
    body
}

/// Asserts a gateway error: code, message, and the gateway's `ErrorInfo`.
fn assert_gateway_error(body: &Value, code: i64, message: &str) {
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["error"]["message"], message, "{body}");
    let info = error_info(body);
    assert_eq!(info["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    assert_eq!(info["domain"], GATEWAY_DOMAIN);
    assert_eq!(info["metadata"]["executed"], "false");
}

/// The gateway, with the fake `app` served and registered as `agent_id` at `path`.
async fn gateway_with_fake(agent_id: &str, app: axum::Router, path: &str) -> Gateway {
    let gateway = Gateway::start().await;
    let addr = serve(app).await;
    gateway
        .directory
        .register(agent_id, Some(format!("http://{addr}{path}")), None);
    gateway
}

#[tokio::test]
async fn a_slow_agent_times_out_at_the_requested_second_and_its_call_is_cancelled() {
    let (app, was_cancelled) = slow_agent("too late");
    let gateway = gateway_with_fake("slow-agent-01", app, "/").await;
    // The seed's request: a v0.3 method with a hand-written message (no messageId, no
    // role), which the gateway completes on its way to this v1.0 agent.
    let request = json!({
        "jsonrpc": "2.0", "id": 7, "method": "message/send",
        "params": {
            "message": {"parts": [{"text": "This will timeout"}]},
            "configuration": {"timeout": 1}
        }
    });

    let started = Instant::now();
    let (status, body) = gateway.rpc("slow-agent-01", &request).await;
    let elapsed = started.elapsed();

    assert_eq!(status, 200);
    assert_gateway_error(&body, -32001, "agent timeout: slow-agent-01");
    assert_eq!(body["id"], 7);
    assert!(
        elapsed >= Duration::from_secs(1) && elapsed < Duration::from_millis(1500),
        "answered after {elapsed:?}"
    );
    tokio::time::timeout(Duration::from_secs(2), was_cancelled)
        .await
        .expect("the agent's handler is dropped when the gateway gives up")
        .unwrap();
}

#[tokio::test]
async fn an_agent_nobody_listens_for_is_unreachable() {
    let gateway = Gateway::start().await;
    gateway
        .directory
        .register("dead-01", Some(format!("http://{}/", closed_port())), None);
    let (status, body) = gateway
        .rpc("dead-01", &send_message("SendMessage", "hi"))
        .await;
    assert_eq!(status, 200);
    assert_gateway_error(&body, -32003, "agent unreachable: dead-01");
    assert_eq!(error_info(&body)["reason"], "AGENT_UNREACHABLE");
}

#[tokio::test]
async fn bad_gateway_answers_of_the_agent_are_unavailable() {
    for status in [502_u16, 503, 504] {
        let app = axum::Router::new().route(
            "/",
            post(
                move || async move { (StatusCode::from_u16(status).unwrap(), "upstream trouble") },
            ),
        );
        let gateway = gateway_with_fake("flaky-01", app, "/").await;
        let (http, body) = gateway
            .rpc("flaky-01", &send_message("SendMessage", "hi"))
            .await;
        assert_eq!(http, 200);
        assert_gateway_error(&body, -32003, &format!("agent unavailable: {status}"));
        assert_eq!(error_info(&body)["metadata"]["status"], status.to_string());
    }
}

#[tokio::test]
async fn a_reply_over_10_mib_is_refused_whether_announced_or_not() {
    const ELEVEN_MIB: usize = 11 * 1024 * 1024;
    let app = axum::Router::new()
        .route(
            "/announced",
            post(|| async {
                (
                    [("content-type", "application/json")],
                    vec![b' '; ELEVEN_MIB],
                )
            }),
        )
        .route(
            "/chunked",
            post(|| async {
                // 176 chunks of 64 KiB, no Content-Length: only counting while reading finds it.
                let chunks = futures::stream::iter(
                    (0..176).map(|_| Ok::<_, std::io::Error>(vec![b' '; 64 * 1024])),
                );
                Body::from_stream(chunks)
            }),
        );
    let gateway = Gateway::start().await;
    let addr = serve(app).await;
    for path in ["announced", "chunked"] {
        let body = send_to_path(&gateway, addr, "big", path).await;
        assert_gateway_error(&body, -32003, "agent response too large");
    }
}

#[tokio::test]
async fn a_reply_that_is_not_json_rpc_or_answers_another_id_is_an_invalid_response() {
    let app = axum::Router::new()
        .route("/text", post(|| async { "hello, I am not JSON" }))
        .route(
            "/json",
            post(|| async { ([("content-type", "application/json")], r#"{"ok":true}"#) }),
        )
        .route(
            "/redirect",
            post(|| async { (StatusCode::FOUND, [("location", "http://169.254.169.254/")]) }),
        )
        .route(
            "/other-id",
            post(|| async {
                (
                    [("content-type", "application/json")],
                    r#"{"jsonrpc":"2.0","id":"someone-else","result":{}}"#,
                )
            }),
        );
    let gateway = Gateway::start().await;
    let addr = serve(app).await;
    for path in ["text", "json", "redirect", "other-id"] {
        let body = send_to_path(&gateway, addr, "odd", path).await;
        assert_eq!(body["error"]["code"], -32004, "{path}: {body}");
        assert_eq!(error_info(&body)["metadata"]["executed"], "false");
    }
}

#[tokio::test]
async fn an_unknown_agent_is_not_found() {
    let gateway = Gateway::start().await;
    let (status, body) = gateway
        .rpc("nonexistent-agent", &send_message("message/send", "Hello?"))
        .await;
    assert_eq!(status, 200);
    assert_gateway_error(&body, -32002, "agent not found: nonexistent-agent");
    assert_eq!(body["id"], 7);
}

#[tokio::test]
async fn an_unreadable_registry_is_an_internal_error() {
    let gateway = Gateway::start().await;
    let (status, body) = gateway
        .rpc(BROKEN_ID, &send_message("SendMessage", "hi"))
        .await;
    assert_eq!(status, 200);
    assert_gateway_error(&body, -32603, "internal error");
}

#[tokio::test]
async fn bad_envelopes_get_base_codes_at_http_200_and_never_reach_the_registry() {
    let gateway = Gateway::start().await;
    // The seed's invalid requests, then a batch, params that are not an object, an agent id
    // too short and an empty one.
    let batch = format!("[{}]", gateway_seed::VALID_CALL);
    let mut cases: Vec<(&str, &str, &str, i64, Value)> = gateway_seed::invalid_requests()
        .into_iter()
        .map(|case| {
            (
                case.agent_id,
                case.content_type,
                case.body,
                case.code,
                case.id,
            )
        })
        .collect();
    cases.extend([
        (
            "echo-agent-01",
            "application/json",
            batch.as_str(),
            -32600,
            Value::Null,
        ),
        (
            "echo-agent-01",
            "application/json",
            r#"{"jsonrpc":"2.0","id":"p","method":"message/send","params":"x"}"#,
            -32602,
            json!("p"),
        ),
        (
            "a",
            "application/json",
            gateway_seed::VALID_CALL,
            -32600,
            json!(1),
        ),
        (
            "",
            "application/json",
            gateway_seed::VALID_CALL,
            -32600,
            json!(1),
        ),
    ]);
    for (agent_id, content_type, body, code, id) in cases {
        let response = gateway
            .http
            .post(gateway.url(&format!("/a2a/{agent_id}")))
            .header("content-type", content_type)
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{agent_id} {body}");
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["error"]["code"], code, "{agent_id} {body}: {answer}");
        assert_eq!(answer["id"], id, "{agent_id} {body}");
        assert_eq!(error_info(&answer)["domain"], GATEWAY_DOMAIN);
    }
    assert_eq!(gateway.directory.lookups.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_request_over_the_size_limit_is_refused() {
    let mut config = ProxyConfig::default();
    config.max_request_bytes = 1024;
    let gateway = Gateway::start_with(config).await;
    let mut request = send_message("SendMessage", &"x".repeat(2048));
    request["id"] = json!(1);
    let (status, body) = gateway.rpc("echo-agent-01", &request).await;
    assert_eq!(status, 200);
    assert_eq!(body["error"]["code"], -32600, "{body}");
}
