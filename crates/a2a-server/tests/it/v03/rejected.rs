//! A rejected task reaches v0.3 callers as `failed` with `metadata.original_state:
//! "rejected"`, the same on JSON-RPC and HTTP+JSON, in results and in streams; 1.0 callers
//! see REJECTED.

use a2a_server::{A2aServer, ServerConfig};
use reqwest::Method;
use serde_json::{Value, json};

use super::{events, message, ok, v03_card};
use crate::support::{FnExecutor, TestServer, uuid};

/// An agent that rejects every task.
async fn serve_rejecting() -> TestServer {
    let executor = FnExecutor(
        |_context: a2a_server::RequestContext, updater: a2a_server::TaskUpdater| async move {
            updater.reject("not for me").await?;
            Ok(())
        },
    );
    let mut config = ServerConfig::default();
    config.push.allow_local_webhooks = true;
    TestServer::start_with(A2aServer::builder(v03_card(), executor).config(config)).await
}

#[tokio::test]
async fn a_rejected_task_is_failed_with_its_original_state_over_v03_jsonrpc() {
    let server = serve_rejecting().await;
    let task = ok(&server, "message/send", json!({"message": message("hi")})).await;
    assert_eq!(task["status"]["state"], "failed", "{task}");
    assert_eq!(task["metadata"]["original_state"], "rejected", "{task}");
    let id = task["id"].as_str().unwrap();
    let got = ok(&server, "tasks/get", json!({"id": id})).await;
    assert_eq!(got["status"]["state"], "failed", "{got}");
    assert_eq!(got["metadata"]["original_state"], "rejected", "{got}");

    // The stream's last status update too.
    let response = server
        .http
        .post(server.url("/a2a"))
        .json(
            &json!({"jsonrpc": "2.0", "id": 3, "method": "message/stream",
            "params": {"message": message("hi")}}),
        )
        .send()
        .await
        .unwrap();
    let events = events(response).await;
    let last = &events.last().unwrap().1["result"];
    assert_eq!(last["kind"], "status-update", "{events:?}");
    assert_eq!(last["status"]["state"], "failed", "{events:?}");
    assert_eq!(last["metadata"]["original_state"], "rejected", "{events:?}");
    assert_eq!(last["final"], true, "{events:?}");
    assert!(
        events
            .iter()
            .all(|(_, event)| event["result"]["status"]["state"] != "rejected"),
        "{events:?}"
    );

    // A 1.0 reader sees what happened.
    let v1 = server.call("GetTask", json!({"id": id})).await;
    assert_eq!(v1["status"]["state"], "TASK_STATE_REJECTED", "{v1}");
    assert!(v1.get("metadata").is_none(), "{v1}");
}

#[tokio::test]
async fn a_rejected_task_is_failed_with_its_original_state_over_v03_rest() {
    let server = serve_rejecting().await;
    let body =
        json!({"message": {"messageId": uuid(), "role": "ROLE_USER", "content": [{"text": "hi"}]}});
    let sent = server
        .send(
            Method::POST,
            "/rest/v1/message:send",
            &[("Content-Type", "application/json")],
            Some(serde_json::to_vec(&body).unwrap()),
        )
        .await;
    assert_eq!(sent.status, 200, "{}", String::from_utf8_lossy(&sent.body));
    let task = sent.json()["task"].clone();
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED", "{task}");
    assert_eq!(task["metadata"]["original_state"], "rejected", "{task}");
    let id = task["id"].as_str().unwrap();
    let got = server
        .send(Method::GET, &format!("/rest/v1/tasks/{id}"), &[], None)
        .await
        .json();
    assert_eq!(got["status"]["state"], "TASK_STATE_FAILED", "{got}");
    assert_eq!(got["metadata"]["original_state"], "rejected", "{got}");

    // The 1.0 REST binding answers REJECTED.
    let sent = server.rest_send_message("hi").await;
    let v1: Value = sent.json();
    assert_eq!(v1["task"]["status"]["state"], "TASK_STATE_REJECTED", "{v1}");
}
