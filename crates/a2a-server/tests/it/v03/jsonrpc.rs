//! The v0.3 JSON-RPC methods on the 1.0 endpoint, per operation and error.

use a2a_server::auth::Authentication;
use a2a_server::config::ProtocolVersions;
use a2a_server::{A2aServer, ServerConfig};
use a2a_types::card::{ApiKeyLocation, SecurityScheme};
use serde_json::{Value, json};

use super::{code, events_until, message, ok, rpc, rpc_with, serve, v03_card};
use crate::support::{BindingEcho, TestServer, required_extension};

/// A task left waiting for input (cancelable); its id.
async fn waiting_task(server: &TestServer) -> String {
    let task = ok(server, "message/send", json!({"message": message("ask")})).await;
    assert_eq!(task["status"]["state"], "input-required", "{task}");
    task["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn message_send_answers_a_v03_task() {
    let server = serve(ProtocolVersions::BOTH).await;
    let task = ok(
        &server,
        "message/send",
        json!({"message": message("hello"), "configuration": {"acceptedOutputModes": ["text/plain"], "blocking": true}}),
    )
    .await;
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(
        task["artifacts"][0]["parts"][0],
        json!({"kind": "text", "text": "hello"})
    );
    assert_eq!(task["history"][0]["kind"], "message");
    assert_eq!(task["history"][0]["role"], "user");
    // A 1.0 reader sees the same task.
    let id = task["id"].as_str().unwrap();
    let v1 = server.call("GetTask", json!({"id": id})).await;
    assert_eq!(v1["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn a_message_without_id_or_role_is_the_users_with_a_fresh_id() {
    let server = serve(ProtocolVersions::BOTH).await;
    // As hand-written v0.3 calls (and the gateway examples) send it.
    let task = ok(
        &server,
        "message/send",
        json!({"message": {"parts": [{"text": "Hello?"}]}}),
    )
    .await;
    assert_eq!(task["status"]["state"], "completed", "{task}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "Hello?", "{task}");
    let sent = &task["history"][0];
    assert_eq!(sent["role"], "user", "{task}");
    assert!(
        sent["messageId"].as_str().is_some_and(|id| !id.is_empty()),
        "{task}"
    );
    let response = server
        .http
        .post(server.url("/a2a"))
        .json(
            &json!({"jsonrpc": "2.0", "id": 5, "method": "message/stream",
            "params": {"message": {"parts": [{"kind": "text", "text": "streamed"}]}}}),
        )
        .send()
        .await
        .unwrap();
    let events = super::events(response).await;
    let last = &events.last().unwrap().1;
    assert_eq!(last["result"]["status"]["state"], "completed", "{events:?}");
}

#[tokio::test]
async fn get_and_cancel_answer_v03_tasks_and_errors() {
    let server = serve(ProtocolVersions::BOTH).await;
    let id = waiting_task(&server).await;
    let task = ok(&server, "tasks/get", json!({"id": id, "historyLength": 1})).await;
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "input-required");
    assert_eq!(task["history"].as_array().unwrap().len(), 1);

    let canceled = ok(&server, "tasks/cancel", json!({"id": id})).await;
    assert_eq!(canceled["status"]["state"], "canceled");
    // TaskNotCancelable, TaskNotFound, invalid params, method not found: v0.3 codes.
    assert_eq!(
        code(&server, "tasks/cancel", json!({"id": id})).await,
        -32002
    );
    assert_eq!(
        code(&server, "tasks/get", json!({"id": "nope"})).await,
        -32001
    );
    assert_eq!(code(&server, "tasks/get", json!({})).await, -32602);
    assert_eq!(
        code(&server, "message/send", json!({"message": 7})).await,
        -32602
    );
    assert_eq!(code(&server, "tasks/get", json!([1])).await, -32602);
    let response = rpc(&server, "tasks/get", json!({"id": "nope"})).await;
    assert_eq!(response["id"], "r1");
    assert_eq!(response["jsonrpc"], "2.0");
}

#[tokio::test]
async fn push_configs_are_set_read_listed_and_deleted_in_v03_shapes() {
    let server = serve(ProtocolVersions::BOTH).await;
    let id = waiting_task(&server).await;
    let config = json!({"taskId": id, "pushNotificationConfig": {
        "id": "p1", "url": "http://127.0.0.1:9/hook", "token": "tok",
        "authentication": {"schemes": ["Bearer"], "credentials": "secret"}}});
    let set = ok(&server, "tasks/pushNotificationConfig/set", config.clone()).await;
    assert_eq!(set, config);
    let got = ok(
        &server,
        "tasks/pushNotificationConfig/get",
        json!({"id": id, "pushNotificationConfigId": "p1"}),
    )
    .await;
    assert_eq!(got, config);
    // Without a config id (v0.3 allows it): the task's first config.
    let first = ok(
        &server,
        "tasks/pushNotificationConfig/get",
        json!({"id": id}),
    )
    .await;
    assert_eq!(first, config);
    let list = ok(
        &server,
        "tasks/pushNotificationConfig/list",
        json!({"id": id}),
    )
    .await;
    assert_eq!(list, json!([config]));
    let response = rpc(
        &server,
        "tasks/pushNotificationConfig/delete",
        json!({"id": id, "pushNotificationConfigId": "p1"}),
    )
    .await;
    assert_eq!(response["result"], Value::Null, "{response}");
    assert!(response.get("error").is_none(), "{response}");
    let list = ok(
        &server,
        "tasks/pushNotificationConfig/list",
        json!({"id": id}),
    )
    .await;
    assert_eq!(list, json!([]));
    assert_eq!(
        code(
            &server,
            "tasks/pushNotificationConfig/get",
            json!({"id": id, "pushNotificationConfigId": "p1"})
        )
        .await,
        -32001
    );
    assert_eq!(
        code(
            &server,
            "tasks/pushNotificationConfig/get",
            json!({"id": id})
        )
        .await,
        -32001
    );
    assert_eq!(
        code(
            &server,
            "tasks/pushNotificationConfig/set",
            json!({"taskId": "nope", "pushNotificationConfig": {"url": "http://127.0.0.1:9/h"}})
        )
        .await,
        -32001
    );
}

#[tokio::test]
async fn push_is_refused_with_the_v03_code_when_the_agent_has_none() {
    let mut card = v03_card();
    card.capabilities.push_notifications = Some(false);
    let server = TestServer::start_with(A2aServer::builder(card, BindingEcho)).await;
    let id = waiting_task(&server).await;
    assert_eq!(
        code(
            &server,
            "tasks/pushNotificationConfig/set",
            json!({"taskId": id, "pushNotificationConfig": {"url": "https://hook.example/h"}})
        )
        .await,
        -32003
    );
}

#[tokio::test]
async fn the_extended_card_is_a_v03_card() {
    let server = serve(ProtocolVersions::BOTH).await;
    let card = ok(&server, "agent/getAuthenticatedExtendedCard", Value::Null).await;
    assert_eq!(card["url"], "http://localhost/a2a");
    assert_eq!(card["protocolVersion"], "0.3");
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert!(card.get("supportedInterfaces").is_none(), "{card}");
}

#[tokio::test]
async fn message_stream_frames_v03_responses_ending_with_a_final_update() {
    let server = serve(ProtocolVersions::BOTH).await;
    let response = server
        .http
        .post(server.url("/a2a"))
        .json(
            &json!({"jsonrpc": "2.0", "id": 5, "method": "message/stream",
            "params": {"message": message("streamed")}}),
        )
        .send()
        .await
        .unwrap();
    let events = super::events(response).await;
    assert!(events.len() >= 2, "{events:?}");
    for (name, data) in &events {
        assert_eq!(name, &None);
        assert_eq!(data["jsonrpc"], "2.0");
        assert_eq!(data["id"], 5);
    }
    let kinds: Vec<&str> = events
        .iter()
        .map(|(_, data)| data["result"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"task"), "{kinds:?}");
    assert!(kinds.contains(&"artifact-update"), "{kinds:?}");
    let last = &events.last().unwrap().1["result"];
    assert_eq!(last["kind"], "status-update");
    assert_eq!(last["status"]["state"], "completed");
    assert_eq!(last["final"], true);
    // Only the last update is final.
    let finals = events
        .iter()
        .filter(|(_, data)| data["result"]["final"] == true)
        .count();
    assert_eq!(finals, 1);

    // A message that leaves the task waiting ends the stream with a final input-required.
    let response = server
        .http
        .post(server.url("/a2a"))
        .json(
            &json!({"jsonrpc": "2.0", "id": 6, "method": "message/stream",
            "params": {"message": message("ask")}}),
        )
        .send()
        .await
        .unwrap();
    let events = super::events(response).await;
    let last = &events.last().unwrap().1["result"];
    assert_eq!(last["status"]["state"], "input-required");
    assert_eq!(last["final"], true);
}

#[tokio::test]
async fn a_stream_that_fails_first_is_a_plain_v03_error() {
    let server = serve(ProtocolVersions::BOTH).await;
    let response = rpc(&server, "tasks/resubscribe", json!({"id": "nope"})).await;
    assert_eq!(response["error"]["code"], -32001, "{response}");
}

#[tokio::test]
async fn resubscribe_follows_a_task_to_its_end() {
    let server = serve(ProtocolVersions::BOTH).await;
    let id = waiting_task(&server).await;
    let response = server
        .http
        .post(server.url("/a2a"))
        .json(
            &json!({"jsonrpc": "2.0", "id": "s", "method": "tasks/resubscribe",
            "params": {"id": id}}),
        )
        .send()
        .await
        .unwrap();
    let canceller = {
        let http = server.http.clone();
        let url = server.url("/a2a");
        let id = id.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            http.post(url)
                .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/cancel", "params": {"id": id}}))
                .send()
                .await
                .unwrap()
        })
    };
    let events = events_until(response, |data| data["result"]["final"] == true).await;
    canceller.await.unwrap();
    assert_eq!(events[0].1["result"]["kind"], "task");
    assert_eq!(events[0].1["result"]["id"], id.as_str());
    let last = &events.last().unwrap().1["result"];
    assert_eq!(last["kind"], "status-update");
    assert_eq!(last["status"]["state"], "canceled");
    assert_eq!(last["final"], true);
}

#[tokio::test]
async fn authentication_and_isolation_hold_as_on_1_0() {
    let mut card = v03_card();
    card.security_schemes.insert(
        "key".into(),
        SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
    );
    card.security_requirements
        .push(a2a_types::card::SecurityRequirement::scheme(
            "key",
            std::iter::empty::<&str>(),
        ));
    let server = TestServer::start_secured(
        A2aServer::builder(card, BindingEcho).authentication(
            Authentication::required()
                .named_api_key("alice", "key-a")
                .named_api_key("bob", "key-b"),
        ),
    )
    .await;
    let anonymous = rpc_with(
        &server,
        "message/send",
        json!({"message": message("hi")}),
        &[],
    )
    .await;
    assert_eq!(anonymous.status, 401);
    assert!(anonymous.header("www-authenticate").is_some());
    assert_eq!(anonymous.json()["error"]["code"], -32000);

    let alice = rpc_with(
        &server,
        "message/send",
        json!({"message": message("ask")}),
        &[("X-API-Key", "key-a")],
    )
    .await
    .json();
    let id = alice["result"]["id"].as_str().unwrap().to_owned();
    for (method, params) in [
        ("tasks/get", json!({"id": id})),
        ("tasks/cancel", json!({"id": id})),
        ("tasks/resubscribe", json!({"id": id})),
        ("tasks/pushNotificationConfig/list", json!({"id": id})),
    ] {
        let bob = rpc_with(&server, method, params.clone(), &[("X-API-Key", "key-b")])
            .await
            .json();
        assert_eq!(bob["error"]["code"], -32001, "{method}: {bob}");
    }
    let mine = rpc_with(
        &server,
        "tasks/get",
        json!({"id": id}),
        &[("X-API-Key", "key-a")],
    )
    .await
    .json();
    assert_eq!(mine["result"]["id"], id.as_str(), "{mine}");
}

#[tokio::test]
async fn limits_and_required_extensions_give_v03_errors() {
    let mut config = ServerConfig::default();
    config.max_payload_size = 2048;
    let mut card = v03_card();
    card.capabilities.extensions = vec![required_extension("urn:ext:required")];
    let server = TestServer::start_with(A2aServer::builder(card, BindingEcho).config(config)).await;
    let big = rpc(
        &server,
        "message/send",
        json!({"message": message(&"x".repeat(4096))}),
    )
    .await;
    assert_eq!(big["error"]["code"], -32000, "{big}");
    // ExtensionSupportRequired has no v0.3 code: InvalidRequest, the reason in `data`.
    let response = rpc(&server, "message/send", json!({"message": message("hi")})).await;
    assert_eq!(response["error"]["code"], -32600, "{response}");
    assert_eq!(
        response["error"]["data"][0]["reason"],
        "EXTENSION_SUPPORT_REQUIRED"
    );
    let activated = rpc_with(
        &server,
        "message/send",
        json!({"message": message("hi")}),
        &[("X-A2A-Extensions", "urn:ext:required")],
    )
    .await;
    assert_eq!(activated.json()["result"]["kind"], "task");
    assert_eq!(activated.header("a2a-extensions"), Some("urn:ext:required"));
}

#[tokio::test]
async fn a_v03_request_without_an_id_is_answered_under_a_null_id_with_200() {
    let server = serve(ProtocolVersions::BOTH).await;
    let context = crate::support::uuid();
    let mut sent = message("no id");
    sent["contextId"] = json!(context);
    let post = |body: Value| {
        let server = &server;
        async move {
            server
                .send(
                    reqwest::Method::POST,
                    "/a2a",
                    &[("Content-Type", "application/json")],
                    Some(serde_json::to_vec(&body).unwrap()),
                )
                .await
        }
    };
    let response =
        post(json!({"jsonrpc": "2.0", "method": "message/send", "params": {"message": sent}}))
            .await;
    assert_eq!(response.status, 200);
    let answer = response.json();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["result"]["kind"], "task", "{answer}");
    let listed = server
        .call("ListTasks", json!({"contextId": context}))
        .await;
    assert_eq!(listed["tasks"].as_array().unwrap().len(), 1, "{listed}");

    // As the official v0.3 SDKs answer: the error, under a null id.
    for (body, code) in [
        (
            json!({"jsonrpc": "2.0", "method": "tasks/get", "params": {"id": "nope"}}),
            -32001,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "tasks/get", "params": [1]}),
            -32602,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "message/send", "params": 5}),
            -32600,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "tasks/nope", "params": {}}),
            -32601,
        ),
    ] {
        let response = post(body.clone()).await;
        assert_eq!(response.status, 200, "{body}");
        let answer = response.json();
        assert_eq!(answer["id"], Value::Null, "{body}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{body}: {answer}");
    }
}

#[tokio::test]
async fn tasks_send_is_an_alias_of_message_send_and_tasks_send_subscribe_of_message_stream() {
    let server = serve(ProtocolVersions::BOTH).await;
    let task = ok(
        &server,
        "tasks/send",
        json!({"message": message("old name")}),
    )
    .await;
    assert_eq!(task["kind"], "task", "{task}");
    assert_eq!(task["status"]["state"], "completed", "{task}");
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"], "old name",
        "{task}"
    );

    let response = server
        .http
        .post(server.url("/a2a"))
        .json(
            &json!({"jsonrpc": "2.0", "id": 9, "method": "tasks/sendSubscribe",
            "params": {"message": message("streamed, old name")}}),
        )
        .send()
        .await
        .unwrap();
    let events = super::events(response).await;
    assert!(events.iter().all(|(_, data)| data["id"] == 9), "{events:?}");
    let last = &events.last().unwrap().1;
    assert_eq!(last["result"]["kind"], "status-update", "{events:?}");
    assert_eq!(last["result"]["status"]["state"], "completed", "{events:?}");
    assert_eq!(last["result"]["final"], true, "{events:?}");

    // With v0.3 off, the old names are refused as v0.3 calls are: VersionNotSupported.
    let off = serve(ProtocolVersions::V1_ONLY).await;
    assert_eq!(
        code(&off, "tasks/send", json!({"message": message("x")})).await,
        -32009
    );
}
