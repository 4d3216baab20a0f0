//! A conformance run of our own: the conformance agent as the conformance kit runs it
//! (`--agent conformance --no-auth --push-notifications --allow-local-webhooks --store
//! memory`), over the real binary, on both bindings: content types, error bodies,
//! subscriptions that outlive INPUT_REQUIRED, webhook names that do not resolve yet, and the
//! extended card.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Server, user_message};

fn start() -> Server {
    Server::start(&[
        "--agent",
        "conformance",
        "--no-auth",
        "--push-notifications",
        "--allow-local-webhooks",
        "--store",
        "memory",
    ])
}

/// One raw request: status, content type and body.
async fn request(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, String, String) {
    let mut request = reqwest::Client::new().request(method, format!("{}{path}", server.url));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.body(body.to_owned());
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, content_type, response.text().await.unwrap())
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

#[tokio::test]
async fn http_json_errors_are_application_json_and_wrong_content_types_are_refused_first() {
    let server = start();
    let v1 = ("A2A-Version", "1.0");
    for content_type in ["application/a2a+json", "application/json"] {
        let (status, media, body) = request(
            &server,
            reqwest::Method::GET,
            "/tasks/no-such-task",
            &[v1, ("Accept", content_type), ("Content-Type", content_type)],
            None,
        )
        .await;
        assert_eq!(
            (status, media.as_str()),
            (404, "application/json"),
            "{body}"
        );
        assert_eq!(
            json(&body)["error"]["details"][0]["reason"],
            "TASK_NOT_FOUND"
        );
    }
    let (status, media, body) = request(
        &server,
        reqwest::Method::POST,
        "/message:send",
        &[v1, ("Content-Type", "text/plain")],
        Some("hello, not JSON"),
    )
    .await;
    assert_eq!(
        (status, media.as_str()),
        (415, "application/json"),
        "{body}"
    );
    assert_eq!(
        json(&body)["error"]["details"][0]["reason"],
        "CONTENT_TYPE_NOT_SUPPORTED"
    );
    let (status, _, body) = request(
        &server,
        reqwest::Method::POST,
        "/",
        &[v1, ("Content-Type", "text/plain")],
        Some("hello, not JSON"),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(json(&body)["error"]["code"], -32005, "{body}");
    assert_eq!(json(&body)["id"], Value::Null);
}

/// Opens a subscription to `task_id` over `binding` and returns its body once it ends.
async fn subscribe(server: &Server, binding: &str, task_id: &str) -> reqwest::Response {
    let http = reqwest::Client::new();
    let request = if binding == "jsonrpc" {
        http.post(format!("{}/", server.url)).json(&json!({
            "jsonrpc": "2.0", "id": 5, "method": "SubscribeToTask", "params": {"id": task_id}
        }))
    } else {
        http.post(format!("{}/tasks/{task_id}:subscribe", server.url))
            .json(&json!({}))
    };
    let response = request
        .header("A2A-Version", "1.0")
        .header("Accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{binding}");
    response
}

/// The StreamResponses of an SSE body.
fn events(binding: &str, body: &str) -> Vec<Value> {
    body.split("\n\n")
        .flat_map(str::lines)
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| {
            let value = json(data.trim());
            if binding == "jsonrpc" {
                value["result"].clone()
            } else {
                value
            }
        })
        .collect()
}

fn state(event: &Value) -> &str {
    event["task"]["status"]["state"]
        .as_str()
        .or_else(|| event["statusUpdate"]["status"]["state"].as_str())
        .unwrap_or("")
}

#[tokio::test]
async fn a_subscription_outlives_input_required_until_the_follow_up_completes_the_task() {
    let server = start();
    for binding in ["jsonrpc", "rest"] {
        let asked = server
            .send(
                &format!("tck-input-required-sub-{binding}"),
                "ask me",
                json!({}),
            )
            .await;
        let task_id = asked["task"]["id"].as_str().unwrap().to_owned();
        let subscription = subscribe(&server, binding, &task_id).await;
        let body = tokio::spawn(async move { subscription.text().await.unwrap() });
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            !body.is_finished(),
            "{binding}: the subscription ended at INPUT_REQUIRED"
        );
        let mut follow_up =
            user_message(&format!("tck-complete-task-sub-{binding}"), "here is more");
        follow_up["taskId"] = json!(task_id);
        let done = server
            .call("SendMessage", json!({"message": follow_up}))
            .await;
        assert_eq!(done["task"]["status"]["state"], "TASK_STATE_COMPLETED");
        let body = tokio::time::timeout(Duration::from_secs(10), body)
            .await
            .expect("the subscription ends with the task")
            .unwrap();
        let seen = events(binding, &body);
        assert_eq!(
            state(&seen[0]),
            "TASK_STATE_INPUT_REQUIRED",
            "{binding}: {body}"
        );
        assert_eq!(
            state(seen.last().unwrap()),
            "TASK_STATE_COMPLETED",
            "{binding}: {body}"
        );
    }
    // A stream of the turn itself still ends where the turn does.
    let body = json!({"message": user_message("tck-input-required-stream", "ask")});
    let streamed = server.stream("/message:stream", &body).await;
    assert_eq!(
        state(streamed.last().unwrap()),
        "TASK_STATE_INPUT_REQUIRED",
        "{streamed:?}"
    );
}

#[tokio::test]
async fn a_webhook_name_that_does_not_resolve_is_accepted_and_a_forbidden_address_is_not() {
    let server = start();
    let asked = server
        .send("tck-input-required-push", "ask me", json!({}))
        .await;
    let task_id = asked["task"]["id"].as_str().unwrap();
    let unresolvable = "https://does-not-resolve.invalid/hook";
    let created = server
        .call(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task_id, "url": unresolvable}),
        )
        .await;
    assert_eq!(created["url"], unresolvable);
    let (status, _, body) = request(
        &server,
        reqwest::Method::POST,
        &format!("/tasks/{task_id}/pushNotificationConfigs"),
        &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        Some(&json!({"url": unresolvable}).to_string()),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let refused = server
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task_id, "url": "https://169.254.169.254/latest"}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

#[tokio::test]
async fn the_extended_card_is_declared_and_served_to_every_caller_without_authentication() {
    let server = start();
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["capabilities"]["extendedAgentCard"], true);
    assert_eq!(card["capabilities"]["pushNotifications"], true);
    let extended = server.call("GetExtendedAgentCard", json!({})).await;
    assert_eq!(extended["capabilities"]["extendedAgentCard"], true);
    let (status, media, body) = request(
        &server,
        reqwest::Method::GET,
        "/extendedAgentCard",
        &[("A2A-Version", "1.0")],
        None,
    )
    .await;
    assert_eq!(
        (status, media.as_str()),
        (200, "application/a2a+json"),
        "{body}"
    );
    assert_eq!(json(&body)["name"], extended["name"]);
}
