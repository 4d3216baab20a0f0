//! The v0.3 REST paths under the 1.0 HTTP+JSON endpoint, with the v0.3 protobuf JSON
//! bodies the v0.3 SDKs' REST transports send and parse.

use a2a_server::config::ProtocolVersions;
use reqwest::Method;
use serde_json::{Value, json};

use super::{events_until, serve};
use crate::support::{RawResponse, TestServer, uuid};

async fn rest(server: &TestServer, method: Method, path: &str, body: Option<Value>) -> RawResponse {
    let headers = [("Content-Type", "application/json")];
    server
        .send(
            method,
            path,
            &headers,
            body.map(|body| serde_json::to_vec(&body).unwrap()),
        )
        .await
}

/// A v0.3 REST `SendMessageRequest` body, as the v0.3 SDKs write it.
fn send_body(text: &str) -> Value {
    json!({"message": {"messageId": uuid(), "role": "ROLE_USER", "content": [{"text": text}]},
        "configuration": {"acceptedOutputModes": ["text/plain"], "blocking": true}})
}

async fn waiting_task(server: &TestServer) -> String {
    let sent = rest(
        server,
        Method::POST,
        "/rest/v1/message:send",
        Some(send_body("ask")),
    )
    .await;
    assert_eq!(sent.status, 200, "{}", String::from_utf8_lossy(&sent.body));
    let task = sent.json()["task"].clone();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    task["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn message_send_get_and_cancel() {
    let server = serve(ProtocolVersions::BOTH).await;
    let sent = rest(
        &server,
        Method::POST,
        "/rest/v1/message:send",
        Some(send_body("hello")),
    )
    .await;
    assert_eq!(sent.status, 200);
    let task = &sent.json()["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["artifacts"][0]["parts"][0], json!({"text": "hello"}));
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
    assert_eq!(task["history"][0]["content"][0], json!({"text": "hello"}));
    assert!(task.get("kind").is_none(), "{task}");

    let id = waiting_task(&server).await;
    let got = rest(
        &server,
        Method::GET,
        &format!("/rest/v1/tasks/{id}?historyLength=1"),
        None,
    )
    .await;
    assert_eq!(got.status, 200);
    let task = got.json();
    assert_eq!(task["id"], id.as_str());
    assert_eq!(task["history"].as_array().unwrap().len(), 1);
    let canceled = rest(
        &server,
        Method::POST,
        &format!("/rest/v1/tasks/{id}:cancel"),
        None,
    )
    .await;
    assert_eq!(canceled.status, 200);
    assert_eq!(canceled.json()["status"]["state"], "TASK_STATE_CANCELLED");
}

#[tokio::test]
async fn errors_carry_the_v03_code_and_the_1_0_status() {
    let server = serve(ProtocolVersions::BOTH).await;
    let missing = rest(&server, Method::GET, "/rest/v1/tasks/nope", None).await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["code"], -32001);
    assert!(missing.json()["message"].is_string());

    let id = waiting_task(&server).await;
    rest(
        &server,
        Method::POST,
        &format!("/rest/v1/tasks/{id}:cancel"),
        None,
    )
    .await;
    let again = rest(
        &server,
        Method::POST,
        &format!("/rest/v1/tasks/{id}:cancel"),
        None,
    )
    .await;
    assert_eq!(again.json()["code"], -32002);
    assert!(again.status >= 400);

    let bad = rest(
        &server,
        Method::POST,
        "/rest/v1/message:send",
        Some(json!({"message": {"role": "ROLE_X"}})),
    )
    .await;
    assert_eq!(bad.status, 400);
    assert_eq!(bad.json()["code"], -32602);
    let unparsable = server
        .send(
            Method::POST,
            "/rest/v1/message:send",
            &[("Content-Type", "application/json")],
            Some(b"{".to_vec()),
        )
        .await;
    assert_eq!(unparsable.json()["code"], -32700);
    let unknown = rest(&server, Method::GET, "/rest/v1/nothing", None).await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["code"], -32601);
    let wrong = rest(&server, Method::DELETE, "/rest/v1/tasks/t1", None).await;
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.header("allow"), Some("GET"));
    let text = server
        .send(
            Method::POST,
            "/rest/v1/message:send",
            &[("Content-Type", "text/plain")],
            Some(b"hi".to_vec()),
        )
        .await;
    assert_eq!(text.status, 415);
    assert_eq!(text.json()["code"], -32005);
}

#[tokio::test]
async fn a_request_saying_1_0_under_v1_is_the_1_0_binding_with_tenant_v1() {
    let server = serve(ProtocolVersions::BOTH).await;
    let response = server
        .send(
            Method::GET,
            "/rest/v1/tasks/nope",
            &[("A2A-Version", "1.0")],
            None,
        )
        .await;
    assert_eq!(response.status, 404);
    assert_eq!(
        response.json()["error"]["details"][0]["reason"],
        "TASK_NOT_FOUND"
    );
}

#[tokio::test]
async fn push_configs_over_rest_in_both_sdk_shapes() {
    let server = serve(ProtocolVersions::BOTH).await;
    let id = waiting_task(&server).await;
    let base = format!("/rest/v1/tasks/{id}/pushNotificationConfigs");
    // The Python SDK sends a CreateTaskPushNotificationConfigRequest.
    let python = json!({"parent": format!("tasks/{id}"), "configId": "p1", "config": {
        "name": format!("tasks/{id}/pushNotificationConfigs/p1"),
        "pushNotificationConfig": {"url": "http://127.0.0.1:9/hook", "token": "tok"}}});
    let created = rest(&server, Method::POST, &base, Some(python)).await;
    assert_eq!(
        created.status,
        200,
        "{}",
        String::from_utf8_lossy(&created.body)
    );
    let expected = json!({"name": format!("tasks/{id}/pushNotificationConfigs/p1"),
        "pushNotificationConfig": {"id": "p1", "url": "http://127.0.0.1:9/hook", "token": "tok"}});
    assert_eq!(created.json(), expected);
    // The JS SDK sends the TaskPushNotificationConfig itself.
    let js = json!({"name": format!("tasks/{id}/pushNotificationConfigs/p2"),
        "pushNotificationConfig": {"id": "p2", "url": "http://127.0.0.1:9/other"}});
    let created = rest(&server, Method::POST, &base, Some(js)).await;
    assert_eq!(created.json()["pushNotificationConfig"]["id"], "p2");

    let got = rest(&server, Method::GET, &format!("{base}/p1"), None).await;
    assert_eq!(got.json(), expected);
    let list = rest(&server, Method::GET, &base, None).await.json();
    assert_eq!(list["configs"].as_array().unwrap().len(), 2, "{list}");
    assert_eq!(list["configs"][0], expected);
    let deleted = rest(&server, Method::DELETE, &format!("{base}/p1"), None).await;
    assert_eq!(deleted.status, 200);
    assert_eq!(deleted.json(), json!({}));
    let gone = rest(&server, Method::GET, &format!("{base}/p1"), None).await;
    assert_eq!(gone.status, 404);
    assert_eq!(gone.json()["code"], -32001);
}

#[tokio::test]
async fn the_card_path_answers_the_v03_card() {
    let server = serve(ProtocolVersions::BOTH).await;
    let card = rest(&server, Method::GET, "/rest/v1/card", None).await;
    assert_eq!(card.status, 200);
    assert_eq!(card.json()["url"], "http://localhost/a2a");
    assert_eq!(card.json()["protocolVersion"], "0.3");
}

#[tokio::test]
async fn message_stream_and_subscribe_send_v03_stream_responses() {
    let server = serve(ProtocolVersions::BOTH).await;
    let response = server
        .http
        .post(server.url("/rest/v1/message:stream"))
        .json(&send_body("streamed"))
        .send()
        .await
        .unwrap();
    let events = super::events(response).await;
    assert!(events[0].1.get("task").is_some(), "{events:?}");
    assert!(
        events
            .iter()
            .any(|(_, data)| data.get("artifactUpdate").is_some())
    );
    let last = &events.last().unwrap().1["statusUpdate"];
    assert_eq!(last["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(last["final"], true);

    let id = waiting_task(&server).await;
    let response = server
        .http
        .get(server.url(&format!("/rest/v1/tasks/{id}:subscribe")))
        .send()
        .await
        .unwrap();
    let http = server.http.clone();
    let cancel = server.url(&format!("/rest/v1/tasks/{id}:cancel"));
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        http.post(cancel).send().await.unwrap()
    });
    let events = events_until(response, |data| data["statusUpdate"]["final"] == true).await;
    canceller.await.unwrap();
    assert_eq!(events[0].1["task"]["id"], id.as_str());
    let last = &events.last().unwrap().1["statusUpdate"];
    assert_eq!(last["status"]["state"], "TASK_STATE_CANCELLED");
}

#[tokio::test]
async fn the_card_path_gives_schemes_both_v03_sdks_read() {
    use a2a_server::A2aServer;
    use a2a_server::auth::Authentication;
    use a2a_types::card::{ApiKeyLocation, SecurityRequirement, SecurityScheme};

    let mut card = super::v03_card();
    card.security_schemes.insert(
        "key".into(),
        SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
    );
    card.security_requirements.push(SecurityRequirement::scheme(
        "key",
        std::iter::empty::<&str>(),
    ));
    let server = TestServer::start_secured(
        A2aServer::builder(card.clone(), crate::support::BindingEcho)
            .extended_card(card)
            .authentication(Authentication::required().api_key("key-0123456789")),
    )
    .await;
    let anonymous = rest(&server, Method::GET, "/rest/v1/card", None).await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(anonymous.json()["code"], -32000);
    let card = server
        .send(
            Method::GET,
            "/rest/v1/card",
            &[("X-API-Key", "key-0123456789")],
            None,
        )
        .await
        .json();
    // The v0.3 JSON members (Python) and the protobuf wrapper (JS), side by side.
    assert_eq!(
        card["securitySchemes"]["key"],
        json!({"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"},
            "type": "apiKey", "in": "header", "name": "X-API-Key"})
    );
    assert_eq!(card["security"], json!([{"key": []}]));
}
