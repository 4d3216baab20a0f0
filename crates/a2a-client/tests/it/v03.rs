//! A2A v0.3 from the client's side: our own server spoken to in v0.3 on both HTTP bindings,
//! and what goes on the wire to a v0.3 agent (no `A2A-Version`, `X-A2A-Extensions`, the
//! v0.3 method names and REST paths).

use a2a_client::{A2aClient, ProtocolVersion, ResponseExt as _, message};
use a2a_types::{
    DeleteTaskPushNotificationConfigRequest, ErrorKind, ListTasksRequest, ProtocolBinding,
    StreamResponse, TaskState,
};
use axum::body::Body;
use axum::response::Response;

use crate::support::{
    Agent, Mock, bindings, cancel, get, json_response, start_task, stream_text, subscribe_all,
};

/// A client of our server at the URL of `binding`, forced to v0.3.
fn v03_client(agent: &Agent, binding: &ProtocolBinding) -> A2aClient {
    let path = match binding {
        ProtocolBinding::JsonRpc => "/a2a",
        _ => "/rest",
    };
    A2aClient::builder()
        .url(format!("{}{path}", agent.base()), binding.clone())
        .protocol_version(ProtocolVersion::V0_3)
        .build()
        .unwrap()
}

#[tokio::test]
async fn our_server_answers_every_v03_call_of_our_client() {
    let agent = Agent::start().await;
    for binding in bindings() {
        let client = v03_client(&agent, &binding);
        assert_eq!(client.protocol_version(), ProtocolVersion::V0_3);

        let answer = client
            .send_message(message::request("hello"))
            .await
            .unwrap_or_else(|error| panic!("{binding}: send: {error:?}"));
        assert_eq!(answer.state(), Some(TaskState::Completed), "{binding}");

        let events = stream_text(&client, "slow 3 10")
            .await
            .unwrap_or_else(|error| panic!("{binding}: stream: {error:?}"));
        assert!(matches!(events[0], StreamResponse::Task(_)), "{binding}");
        let chunks = events
            .iter()
            .filter(|event| matches!(event, StreamResponse::ArtifactUpdate(_)))
            .count();
        assert_eq!(chunks, 3, "{binding}: {events:?}");
        assert_eq!(
            events.last().and_then(|event| event.state()),
            Some(TaskState::Completed),
            "{binding}"
        );

        let id = events[0].task_id().unwrap().clone();
        let task = client.get_task(get(&id)).await.unwrap();
        assert_eq!(task.artifacts.len(), 3, "{binding}");

        let waiting = start_task(&client, "wait").await;
        let canceled = client.cancel_task(cancel(&waiting)).await.unwrap();
        assert_eq!(canceled.status.state, TaskState::Canceled, "{binding}");
        let again = client.cancel_task(cancel(&waiting)).await.unwrap_err();
        assert_eq!(
            again.kind(),
            Some(ErrorKind::TaskNotCancelable),
            "{binding}: {again:?}"
        );

        let slow = start_task(&client, "slow 3 50").await;
        let events = subscribe_all(&client, &slow).await.unwrap();
        assert_eq!(
            events.last().and_then(|event| event.state()),
            Some(TaskState::Completed),
            "{binding}: {events:?}"
        );

        let missing = client.get_task(get("no-such-task")).await.unwrap_err();
        assert_eq!(missing.kind(), Some(ErrorKind::TaskNotFound), "{binding}");
        // v0.3 has no ListTasks: refused without a request.
        let list = client
            .list_tasks(ListTasksRequest::default())
            .await
            .unwrap_err();
        assert_eq!(
            list.kind(),
            Some(ErrorKind::UnsupportedOperation),
            "{binding}"
        );
    }
}

/// A v0.3-only card at `/.well-known/agent-card.json`: JSON-RPC at `/rpc`, REST at `/rest`.
fn v03_card(base: &str, preferred: &str) -> serde_json::Value {
    let url = if preferred == "JSONRPC" {
        format!("{base}/rpc")
    } else {
        format!("{base}/rest")
    };
    serde_json::json!({
        "name": "Old agent", "description": "Speaks v0.3", "version": "1",
        "protocolVersion": "0.3.0", "url": url, "preferredTransport": preferred,
        "additionalInterfaces": [
            {"url": format!("{base}/rpc"), "transport": "JSONRPC"},
            {"url": format!("{base}/rest"), "transport": "HTTP+JSON"}
        ],
        "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"], "skills": []
    })
}

fn v03_task(state: &str) -> serde_json::Value {
    serde_json::json!({"kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": state}})
}

#[tokio::test]
async fn a_v03_card_is_called_in_v03_over_jsonrpc_without_a2a_version() {
    let mock = Mock::start(|request, _| {
        let path = request.uri.path().to_owned();
        if path == "/.well-known/agent-card.json" {
            let base = format!("http://{}", request.header("host").unwrap());
            return json_response(200, &v03_card(&base, "JSONRPC"));
        }
        let body = request.json();
        match body["method"].as_str() {
            // The Python SDK 0.3 server drops `result: null`.
            Some("tasks/pushNotificationConfig/delete") => {
                json_response(200, &serde_json::json!({"jsonrpc": "2.0", "id": body["id"]}))
            }
            _ => json_response(
                200,
                &serde_json::json!({"jsonrpc": "2.0", "id": body["id"], "result": v03_task("completed")}),
            ),
        }
    })
    .await;
    let client = A2aClient::builder()
        .extension("urn:example:ext")
        .discover(&mock.url("/"))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V0_3);
    assert_eq!(client.binding(), ProtocolBinding::JsonRpc);
    let answer = client.send_message(message::request("hi")).await.unwrap();
    assert_eq!(answer.state(), Some(TaskState::Completed));
    client
        .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: "t-1".into(),
            id: "p-1".into(),
        })
        .await
        .unwrap();

    let requests = mock.requests();
    let send = &requests[1];
    assert_eq!(send.uri.path(), "/rpc");
    assert_eq!(send.header("a2a-version"), None);
    assert_eq!(send.header("x-a2a-extensions"), Some("urn:example:ext"));
    assert_eq!(send.header("a2a-extensions"), None);
    let body = send.json();
    assert_eq!(body["method"], "message/send");
    assert_eq!(body["params"]["message"]["kind"], "message");
    assert_eq!(body["params"]["message"]["parts"][0]["kind"], "text");
    assert_eq!(
        requests[2].json()["method"],
        "tasks/pushNotificationConfig/delete"
    );
}

#[tokio::test]
async fn a_v03_card_preferring_rest_is_called_on_the_v03_rest_paths() {
    let mock = Mock::start(|request, _| {
        let path = request.uri.path().to_owned();
        if path == "/.well-known/agent-card.json" {
            let base = format!("http://{}", request.header("host").unwrap());
            return json_response(200, &v03_card(&base, "HTTP+JSON"));
        }
        if path == "/rest/v1/tasks/gone" {
            return json_response(404, &serde_json::json!({"message": "Task not found"}));
        }
        let task = serde_json::json!({"id": "t-1", "contextId": "c-1",
            "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a", "parts": [{"text": "done"}]}]});
        if path == "/rest/v1/message:send" {
            return json_response(200, &serde_json::json!({"task": task}));
        }
        if path == "/rest/v1/message:stream" {
            let events = [
                serde_json::json!({"task": {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
                serde_json::json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1",
                    "status": {"state": "TASK_STATE_COMPLETED"}, "final": true}}),
            ];
            let body: String = events.iter().map(|event| format!("data: {event}\n\n")).collect();
            return Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from(body))
                .unwrap();
        }
        json_response(200, &task)
    })
    .await;
    let client = A2aClient::discover(&mock.url("/")).await.unwrap();
    assert_eq!(client.binding(), ProtocolBinding::HttpJson);
    assert_eq!(client.protocol_version(), ProtocolVersion::V0_3);

    let answer = client.send_message(message::request("hi")).await.unwrap();
    assert_eq!(answer.state(), Some(TaskState::Completed));
    let events = stream_text(&client, "hi").await.unwrap();
    assert_eq!(
        events.last().and_then(|event| event.state()),
        Some(TaskState::Completed)
    );
    let canceled = client.cancel_task(cancel("t-1")).await.unwrap();
    assert_eq!(canceled.artifacts[0].text(), "done");
    let missing = client.get_task(get("gone")).await.unwrap_err();
    assert_eq!(missing.kind(), Some(ErrorKind::TaskNotFound));

    let requests = mock.requests();
    let send = &requests[1];
    assert_eq!(send.uri.path(), "/rest/v1/message:send");
    assert_eq!(send.header("a2a-version"), None);
    let body = send.json();
    assert_eq!(body["message"]["role"], "ROLE_USER");
    assert_eq!(body["message"]["content"][0]["text"], "hi");
    assert_eq!(body["configuration"]["blocking"], true);
    let cancel_request = &requests[3];
    assert_eq!(cancel_request.method, http::Method::POST);
    assert_eq!(cancel_request.uri.path(), "/rest/v1/tasks/t-1:cancel");
    assert_eq!(
        cancel_request.json(),
        serde_json::json!({"name": "tasks/t-1"})
    );
}

#[tokio::test]
async fn a_v03_stream_that_breaks_after_the_task_finished_ends_with_its_final_state() {
    let mock = Mock::start(|request, _| {
        let path = request.uri.path().to_owned();
        if path == "/.well-known/agent-card.json" {
            let base = format!("http://{}", request.header("host").unwrap());
            return json_response(200, &v03_card(&base, "JSONRPC"));
        }
        let body = request.json();
        match body["method"].as_str() {
            // The stream ends while the task is still working.
            Some("message/stream") => {
                let event = serde_json::json!({"jsonrpc": "2.0", "id": body["id"],
                    "result": v03_task("working")});
                Response::builder()
                    .header("content-type", "text/event-stream")
                    .body(Body::from(format!("data: {event}\n\n")))
                    .unwrap()
            }
            // As the Python SDK 0.3 answers a resubscribe to a finished task.
            Some("tasks/resubscribe") => json_response(
                200,
                &serde_json::json!({"jsonrpc": "2.0", "id": body["id"],
                    "error": {"code": -32602, "message": "Task t-1 is in terminal state: completed"}}),
            ),
            _ => json_response(
                200,
                &serde_json::json!({"jsonrpc": "2.0", "id": body["id"], "result": v03_task("completed")}),
            ),
        }
    })
    .await;
    let client = A2aClient::discover(&mock.url("/")).await.unwrap();
    let events = stream_text(&client, "hi").await.unwrap();
    let states: Vec<_> = events.iter().map(|event| event.state()).collect();
    assert_eq!(
        states,
        [Some(TaskState::Working), Some(TaskState::Completed)],
        "{events:?}"
    );
    let methods: Vec<String> = mock
        .requests()
        .iter()
        .skip(1)
        .map(|request| request.json()["method"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        methods,
        ["message/stream", "tasks/resubscribe", "tasks/get"]
    );
}
