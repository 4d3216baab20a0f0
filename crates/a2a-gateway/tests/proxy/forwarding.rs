//! Calls that reach the agent: forwarded unchanged whatever the method, notifications and
//! HTTP+JSON included, and answered unchanged.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use a2a_gateway::agent::RegisteredAgent;
use a2a_types::error::A2A_DOMAIN;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::post;
use serde_json::{Value, json};

use crate::support::{Gateway, a2a_agent, post_a2a, send_message, serve};

/// An agent that records the body of each call and answers with `answer(body)`; its address
/// and the bodies it has received.
async fn recording_agent<R: IntoResponse + 'static>(
    answer: fn(&Bytes) -> R,
) -> (SocketAddr, Arc<Mutex<Vec<Bytes>>>) {
    let seen: Arc<Mutex<Vec<Bytes>>> = Arc::default();
    let recorded = Arc::clone(&seen);
    let app = axum::Router::new().route(
        "/",
        post(move |body: Bytes| {
            let recorded = Arc::clone(&recorded);
            async move {
                let answer = answer(&body);
                recorded.lock().unwrap().push(body);
                answer
            }
        }),
    );
    (serve(app).await, seen)
}

#[tokio::test]
async fn a_message_reaches_a_real_agent_and_its_answer_comes_back_unchanged() {
    let gateway = Gateway::with_a2a_agent("echo-agent-01").await;

    let request = send_message("SendMessage", "hello through the gateway");
    let (status, through) = gateway.rpc("echo-agent-01", &request).await;
    assert_eq!(status, 200);
    let task = &through["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{through}");
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"],
        "hello through the gateway"
    );
    assert_eq!(through["id"], 7);
}

#[tokio::test]
async fn any_method_name_is_forwarded_unchanged() {
    let gateway = Gateway::start().await;
    let (addr, seen) = recording_agent(|body| {
        let request: Value = serde_json::from_slice(body).unwrap();
        let answer =
            json!({"jsonrpc": "2.0", "id": request["id"], "result": {"method": request["method"]}});
        ([("content-type", "application/json")], answer.to_string())
    })
    .await;
    // A KubeMQ record: its protocol versions are unknown, so nothing is translated.
    let url = format!("http://{addr}/");
    let mut agent = RegisteredAgent::new("any-01", "any", json!({"name": "any", "url": url}));
    agent.jsonrpc_url = Some(url);
    gateway.directory.insert(agent);
    for method in [
        "message/send",
        "message/stream",
        "tasks/get",
        "tasks/send",
        "custom/reindex",
        "SendMessage",
    ] {
        let request = format!(
            r#"{{"jsonrpc": "2.0", "id": "a", "method": "{method}", "params": {{"configuration": {{"timeout": 5}}}}}}"#
        );
        let response = gateway.post_json("/a2a/any-01", request.clone()).await;
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["result"]["method"], method);
        assert_eq!(
            seen.lock().unwrap().pop().unwrap(),
            request.as_bytes(),
            "the body, byte for byte"
        );
    }
}

#[tokio::test]
async fn the_agents_own_error_is_relayed_byte_for_byte() {
    let gateway = Gateway::start().await;
    let (jsonrpc, _) = a2a_agent().await;
    gateway
        .directory
        .register("echo-agent-01", Some(jsonrpc.clone()), None);
    let request =
        json!({"jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": "no-such-task"}});
    let send = |url: String| {
        let http = gateway.http.clone();
        let body = request.to_string();
        async move {
            let response = http
                .post(url)
                .header("content-type", "application/json")
                .header("a2a-version", "1.0")
                .body(body)
                .send()
                .await
                .unwrap();
            (response.status().as_u16(), response.bytes().await.unwrap())
        }
    };
    let (_, direct) = send(jsonrpc).await;
    let (status, through) = send(gateway.url("/a2a/echo-agent-01")).await;
    assert_eq!(status, 200);
    assert_eq!(through, direct, "the agent's answer, untouched");
    let body: Value = serde_json::from_slice(&through).unwrap();
    assert_eq!(
        body["error"]["code"], -32001,
        "the agent's TaskNotFound, not a gateway timeout"
    );
    assert_eq!(body["error"]["data"][0]["domain"], A2A_DOMAIN);
    assert!(
        body["error"]["data"][0]["metadata"]
            .get("executed")
            .is_none()
    );
    assert!(gateway.metrics_text().await.contains(
        r#"kubemq_a2a_requests_total{agent_id="echo-agent-01",method="GetTask",outcome="agent_error"} 1"#
    ));
}

#[tokio::test]
async fn agent_error_statuses_are_relayed_with_their_body() {
    let gateway = Gateway::start().await;
    let app = axum::Router::new()
        .route(
            "/not-found",
            post(|| async { (StatusCode::NOT_FOUND, "no such route") }),
        )
        .route(
            "/rpc-500",
            post(|| async {
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    [("content-type", "application/json")],
                    r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"boom"}}"#,
                )
            }),
        );
    let addr = serve(app).await;
    gateway
        .directory
        .register("lost-01", Some(format!("http://{addr}/not-found")), None);
    gateway
        .directory
        .register("crashy-01", Some(format!("http://{addr}/rpc-500")), None);
    let request = send_message("SendMessage", "x").to_string();

    let response = gateway.post_json("/a2a/lost-01", request.clone()).await;
    assert_eq!(
        response.status(),
        404,
        "executed: the agent's status and body"
    );
    assert_eq!(response.text().await.unwrap(), "no such route");

    let response = gateway.post_json("/a2a/crashy-01", request).await;
    assert_eq!(response.status(), 200, "a JSON-RPC answer, at HTTP 200");
    assert_eq!(
        response.text().await.unwrap(),
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"boom"}}"#
    );
}

#[tokio::test]
async fn a_notification_is_forwarded_and_answered_with_no_body() {
    let gateway = Gateway::start().await;
    let (addr, seen) = recording_agent(|_| StatusCode::NO_CONTENT).await;
    gateway
        .directory
        .register("quiet-01", Some(format!("http://{addr}/")), None);
    let notification = r#"{"jsonrpc":"2.0","method":"custom/ping","params":{"n":1}}"#;
    let response = gateway.post_json("/a2a/quiet-01", notification).await;
    assert_eq!(response.status(), 204);
    assert!(response.bytes().await.unwrap().is_empty());
    assert_eq!(seen.lock().unwrap().as_slice(), [Bytes::from(notification)]);

    let unknown = gateway.post_json("/a2a/nobody-01", notification).await;
    assert_eq!(
        unknown.status(),
        204,
        "a notification is never answered, even with an error"
    );
}

#[tokio::test]
async fn http_json_calls_are_forwarded_to_the_rest_interface() {
    let gateway = Gateway::with_a2a_agent("echo-agent-01").await;
    let send =
        json!({"message": {"messageId": "m-9", "role": "ROLE_USER", "parts": [{"text": "rest"}]}});
    let response = post_a2a(
        &gateway.http,
        gateway.url("/a2a/echo-agent-01/message:send"),
        send.to_string(),
    )
    .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    let task_id = body["task"]["id"].as_str().unwrap().to_owned();

    let response = gateway
        .http
        .get(gateway.url(&format!(
            "/a2a/echo-agent-01/tasks/{task_id}?historyLength=1"
        )))
        .header("a2a-version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let task: Value = response.json().await.unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");

    let response = gateway
        .http
        .get(gateway.url("/a2a/echo-agent-01/tasks/no-such-task"))
        .header("a2a-version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        404,
        "the agent's own REST error, relayed"
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["details"][0]["domain"], A2A_DOMAIN);
}

#[tokio::test]
async fn get_on_the_json_rpc_route_is_405() {
    let gateway = Gateway::start().await;
    let response = gateway
        .http
        .get(gateway.url("/a2a/echo-agent-01"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 405);
}
