//! Deleting a push config is idempotent (spec §2.10): a config already gone, on a task of the
//! caller's, is a success again; an unknown task is still TaskNotFound. HTTP+JSON answers
//! 200 `{}`, or 204 No Content under the `rfc7807-java` status profile.

use a2a_server::{A2aServer, ServerConfig};
use a2a_types::error::RestStatusProfile;
use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{BindingEcho, TestServer, standard_card, user_message};

/// A server with push notifications on and loopback webhooks allowed, under `profile`.
async fn serve_push(profile: RestStatusProfile) -> TestServer {
    let mut card = standard_card();
    card.capabilities.push_notifications = Some(true);
    let mut config = ServerConfig::default();
    config.push.allow_local_webhooks = true;
    config.rest_status_profile = profile;
    TestServer::start_with(A2aServer::builder(card, BindingEcho).config(config)).await
}

/// A completed task with the config `c1`; the task's id.
async fn task_with_a_config(server: &TestServer) -> String {
    let task = server
        .call("SendMessage", json!({"message": user_message("hello")}))
        .await;
    let id = task["task"]["id"].as_str().unwrap().to_owned();
    server
        .call(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "id": "c1", "url": "http://127.0.0.1:9/hook"}),
        )
        .await;
    id
}

#[tokio::test]
async fn deleting_a_push_config_twice_succeeds_over_jsonrpc() {
    let server = serve_push(RestStatusProfile::Spec).await;
    let id = task_with_a_config(&server).await;
    let delete = json!({"taskId": id, "id": "c1"});
    for attempt in ["first", "second"] {
        let response = server
            .jsonrpc("DeleteTaskPushNotificationConfig", delete.clone())
            .await;
        assert!(response.get("error").is_none(), "{attempt}: {response}");
        assert_eq!(response["result"], json!({}), "{attempt}: {response}");
    }
    let listed = server
        .call("ListTaskPushNotificationConfigs", json!({"taskId": id}))
        .await;
    assert!(
        listed["configs"].as_array().is_none_or(Vec::is_empty),
        "{listed}"
    );
    // A config that never existed on an existing task is gone too.
    server
        .call(
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": id, "id": "never"}),
        )
        .await;
    let error = server
        .call_err(
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": "no-such-task", "id": "c1"}),
        )
        .await;
    assert_eq!(error["code"], -32001, "{error}");
}

#[tokio::test]
async fn deleting_a_push_config_twice_answers_200_with_an_empty_object_over_http_json() {
    let server = serve_push(RestStatusProfile::Spec).await;
    let id = task_with_a_config(&server).await;
    let path = format!("/rest/tasks/{id}/pushNotificationConfigs/c1");
    for attempt in ["first", "second"] {
        let response = server.send_v1(Method::DELETE, &path).await;
        assert_eq!(response.status, 200, "{attempt}");
        assert_eq!(response.json(), json!({}), "{attempt}");
    }
    let unknown = server
        .send_v1(
            Method::DELETE,
            "/rest/tasks/no-such-task/pushNotificationConfigs/c1",
        )
        .await;
    assert_eq!(unknown.status, 404);
}

#[tokio::test]
async fn deleting_a_push_config_answers_204_under_the_rfc7807_java_profile() {
    let server = serve_push(RestStatusProfile::Rfc7807Java).await;
    let id = task_with_a_config(&server).await;
    let path = format!("/rest/tasks/{id}/pushNotificationConfigs/c1");
    for attempt in ["first", "second"] {
        let response = server.send_v1(Method::DELETE, &path).await;
        assert_eq!(response.status, 204, "{attempt}");
        assert!(response.body.is_empty(), "{attempt}");
    }
    let unknown = server
        .send_v1(
            Method::DELETE,
            "/rest/tasks/no-such-task/pushNotificationConfigs/c1",
        )
        .await;
    assert_eq!(unknown.status, 404);
    let problem: Value = unknown.json();
    assert!(
        problem.get("error").is_some() || problem.get("type").is_some(),
        "{problem}"
    );
}

#[tokio::test]
async fn deleting_a_push_config_twice_succeeds_over_v03_jsonrpc() {
    let server = serve_push(RestStatusProfile::Spec).await;
    let id = task_with_a_config(&server).await;
    let delete = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/pushNotificationConfig/delete",
        "params": {"id": id, "pushNotificationConfigId": "c1"}});
    for attempt in ["first", "second"] {
        let response: Value = server
            .http
            .post(server.url("/a2a"))
            .json(&delete)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(response.get("error").is_none(), "{attempt}: {response}");
        assert_eq!(response["result"], Value::Null, "{attempt}: {response}");
    }
}
