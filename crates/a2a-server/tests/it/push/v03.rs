//! A webhook registered over v0.3 gets v0.3 deliveries: the task, `kind: "task"`, with the
//! v0.3 token header; one registered over 1.0 on the same task keeps 1.0 deliveries.

use reqwest::Method;
use serde_json::{Value, json};

use super::receiver::Receiver;
use super::{push_config, server, until};

/// A v0.3 JSON-RPC call (no `A2A-Version`): its result.
async fn v03(server: &crate::support::TestServer, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = server
        .send(
            Method::POST,
            "/a2a",
            &[("Content-Type", "application/json")],
            Some(serde_json::to_vec(&body).unwrap()),
        )
        .await
        .json();
    assert!(response.get("error").is_none(), "{method}: {response}");
    response["result"].clone()
}

fn v03_message(text: &str, task_id: Option<&str>) -> Value {
    let mut message = json!({"kind": "message", "messageId": crate::support::uuid(),
        "role": "user", "parts": [{"kind": "text", "text": text}]});
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    message
}

#[tokio::test]
async fn a_webhook_registered_over_v03_receives_v03_tasks() {
    let server = server(push_config()).await;
    let legacy = Receiver::start(Vec::new()).await;
    let modern = Receiver::start(Vec::new()).await;
    let task = v03(
        &server,
        "message/send",
        json!({"message": v03_message("ask", None)}),
    )
    .await;
    let id = task["id"].as_str().unwrap().to_owned();
    let url = legacy.url("/hook");
    let set = v03(
        &server,
        "tasks/pushNotificationConfig/set",
        json!({"taskId": id, "pushNotificationConfig": {"id": "old", "url": url, "token": "tok-03"}}),
    )
    .await;
    // The caller reads back the URL it sent.
    assert_eq!(set["pushNotificationConfig"]["url"], url.as_str());
    server
        .call(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "id": "new", "url": modern.url("/hook"), "token": "tok-10"}),
        )
        .await;
    // A 1.0 reader sees the v0.3 marker in the fragment, never sent to the webhook.
    let listed = server
        .call("ListTaskPushNotificationConfigs", json!({"taskId": id}))
        .await;
    assert_eq!(
        listed["configs"][1]["url"],
        format!("{url}#a2a-push=0.3"),
        "{listed}"
    );

    v03(
        &server,
        "message/send",
        json!({"message": v03_message("go on", Some(&id))}),
    )
    .await;
    let bodies = until("the v0.3 webhook sees the completed task", || async {
        let bodies = legacy.bodies();
        bodies
            .last()
            .is_some_and(|body| body["status"]["state"] == "completed")
            .then_some(bodies)
    })
    .await;
    for body in &bodies {
        assert_eq!(body["kind"], "task", "{body}");
        assert_eq!(body["id"], id.as_str());
    }
    assert_eq!(
        bodies.last().unwrap()["artifacts"][0]["parts"][0]["kind"],
        "text"
    );
    for headers in legacy.headers() {
        assert_eq!(headers["x-a2a-notification-token"], "tok-03");
        // A v0.3 body is not announced as 1.0.
        assert!(headers.get("a2a-version").is_none(), "{headers:?}");
    }
    for hit in legacy.hits() {
        // The webhook got the path it registered (no fragment is ever sent).
        assert!(hit.status == 200);
    }

    let modern_bodies = until("the 1.0 webhook sees the completion", || async {
        let bodies = modern.bodies();
        bodies
            .iter()
            .any(|body| body["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED")
            .then_some(bodies)
    })
    .await;
    assert!(modern_bodies.iter().all(|body| body.get("kind").is_none()));
}

#[tokio::test]
async fn an_inline_v03_config_is_remembered_as_v03() {
    let server = server(push_config()).await;
    let legacy = Receiver::start(Vec::new()).await;
    v03(
        &server,
        "message/send",
        json!({"message": v03_message("work", None), "configuration": {
            "acceptedOutputModes": [], "blocking": true,
            "pushNotificationConfig": {"url": legacy.url("/inline"), "token": "t"}}}),
    )
    .await;
    let bodies = until(
        "the inline v0.3 webhook sees the completed task",
        || async {
            let bodies = legacy.bodies();
            bodies
                .last()
                .is_some_and(|body| body["status"]["state"] == "completed")
                .then_some(bodies)
        },
    )
    .await;
    assert!(
        bodies.iter().all(|body| body["kind"] == "task"),
        "{bodies:?}"
    );
}
