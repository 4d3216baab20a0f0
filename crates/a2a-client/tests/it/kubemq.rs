//! Streams in KubeMQ's agent shapes (GW-20) from a fake SSE peer: `task.status`,
//! `task.artifact`, `task.done` and `task.error`, plain and wrapped again in
//! `{type, payload: …}`, read as the normal `StreamResponse` events over both HTTP bindings,
//! mixed with A2A events.

use a2a_client::{A2aClient, ClientError};
use a2a_types::{ProtocolBinding, StreamResponse, TaskState};
use axum::body::Body;
use axum::response::Response;
use serde_json::{Value, json};

use crate::support::{Mock, stream_text};

fn sse(body: String) -> Response {
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .body(Body::from(body))
        .unwrap()
}

/// One SSE frame named `name`; `wrapped` wraps `data` once more, as newer brokers do.
fn frame(name: &str, data: &Value, wrapped: bool) -> String {
    let data = if wrapped {
        json!({"type": data["type"], "payload": data})
    } else {
        data.clone()
    };
    format!("event: {name}\ndata: {data}\n\n")
}

/// A peer streaming `body` to every request; a client of it over `binding`.
async fn peer(binding: ProtocolBinding, body: String) -> (Mock, A2aClient) {
    let mock = Mock::start(move |_, _| sse(body.clone())).await;
    let path = if binding == ProtocolBinding::JsonRpc {
        "/a2a/agent-01"
    } else {
        "/a2a/agent-01/rest"
    };
    let client = A2aClient::from_url(&mock.url(path), binding).unwrap();
    (mock, client)
}

fn kubemq_stream(wrapped: bool) -> String {
    [
        ": keepalive\n\n".to_owned(),
        frame(
            "task.status",
            &json!({"type": "status_update", "payload": {"status": "working", "progress": 1, "total": 2}}),
            wrapped,
        ),
        frame(
            "task.artifact",
            &json!({"type": "artifact", "payload": {"name": "summary", "data": "half done"}}),
            wrapped,
        ),
        frame(
            "task.artifact",
            &json!({"type": "artifact", "payload": {"name": "table", "data": {"rows": 2}}}),
            wrapped,
        ),
        frame(
            "task.status",
            &json!({"type": "status_update", "payload": {"status": "working", "progress": 2, "total": 2}}),
            wrapped,
        ),
        frame(
            "task.done",
            &json!({"type": "done", "payload": {"message": "all done"}}),
            wrapped,
        ),
    ]
    .concat()
}

#[tokio::test]
async fn both_forms_read_as_status_and_artifact_updates_over_both_bindings() {
    for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson] {
        for wrapped in [false, true] {
            let (mock, client) = peer(binding.clone(), kubemq_stream(wrapped)).await;
            let events = stream_text(&client, "go").await.unwrap();
            let case = format!("{binding:?}, wrapped {wrapped}");
            assert_eq!(events.len(), 5, "{case}: {events:#?}");
            let StreamResponse::StatusUpdate(first) = &events[0] else {
                panic!("{case}: {:?}", events[0]);
            };
            assert_eq!(first.status.state, TaskState::Working, "{case}");
            let metadata = first.metadata.as_ref().unwrap();
            assert_eq!(
                (&metadata["progress"], &metadata["total"]),
                (&json!(1), &json!(2))
            );
            let StreamResponse::ArtifactUpdate(summary) = &events[1] else {
                panic!("{case}: {:?}", events[1]);
            };
            assert_eq!(summary.artifact.name, "summary");
            assert_eq!(summary.artifact.artifact_id.as_str(), "summary");
            assert_eq!(summary.artifact.text(), "half done");
            let StreamResponse::ArtifactUpdate(table) = &events[2] else {
                panic!("{case}: {:?}", events[2]);
            };
            let part = serde_json::to_value(&table.artifact.parts[0]).unwrap();
            assert_eq!(part["data"], json!({"rows": 2}), "{case}");
            let StreamResponse::StatusUpdate(second) = &events[3] else {
                panic!("{case}: {:?}", events[3]);
            };
            assert_eq!(second.metadata.as_ref().unwrap()["progress"], 2);
            let StreamResponse::StatusUpdate(done) = &events[4] else {
                panic!("{case}: {:?}", events[4]);
            };
            assert_eq!(done.status.state, TaskState::Completed, "{case}");
            assert_eq!(done.status.text(), "all done", "{case}");
            // One request: the stream ended at `task.done`, nothing was resumed.
            assert_eq!(mock.requests().len(), 1, "{case}");
        }
    }
}

#[tokio::test]
async fn a_task_error_ends_the_stream_with_its_code_and_message() {
    for wrapped in [false, true] {
        let body = [
            frame(
                "task.status",
                &json!({"type": "status_update", "payload": {"status": "working"}}),
                wrapped,
            ),
            frame(
                "task.error",
                &json!({"type": "error", "payload": {"code": -32001, "message": "agent timeout: agent-01"}}),
                wrapped,
            ),
        ]
        .concat();
        let (_mock, client) = peer(ProtocolBinding::JsonRpc, body).await;
        let mut stream = client
            .send_streaming_message(a2a_client::message::request("go"))
            .await
            .unwrap();
        use futures::StreamExt as _;
        let first = stream.next().await.unwrap().unwrap();
        assert!(
            matches!(first, StreamResponse::StatusUpdate(_)),
            "{first:?}"
        );
        let error = stream.next().await.unwrap().unwrap_err();
        let ClientError::Agent(agent_error) = &error else {
            panic!("not the stream's error: {error}");
        };
        assert_eq!(agent_error.message(), "agent timeout: agent-01");
        assert_eq!(agent_error.peer_code(), Some(-32001));
        // KubeMQ's gateway code, not the A2A error of that number (TaskNotFound).
        assert_eq!(error.gateway_code(), Some(-32001));
        assert!(error.is_retryable(), "a gateway timeout may be retried");
        assert!(stream.next().await.is_none());
    }
}

#[tokio::test]
async fn kubemq_events_mix_with_a2a_events_and_untyped_names() {
    // An A2A JSON-RPC task event first (its id is the stream's), then KubeMQ events: one with
    // only `type` (no `event:` name), one with only the name (no `type`).
    let task = json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"}}}});
    let body = format!(
        "data: {task}\n\ndata: {}\n\nevent: task.done\ndata: {}\n\n",
        json!({"type": "status_update", "payload": {"status": "input-required", "task_id": "t1"}}),
        json!({"status": "failed"}),
    );
    let (_mock, client) = peer(ProtocolBinding::JsonRpc, body).await;
    let mut stream = client
        .send_streaming_message(a2a_client::message::request("go"))
        .await
        .unwrap();
    use futures::StreamExt as _;
    let first = stream.next().await.unwrap().unwrap();
    assert!(matches!(first, StreamResponse::Task(_)), "{first:?}");
    let Some(Ok(StreamResponse::StatusUpdate(update))) = stream.next().await else {
        panic!("no status update");
    };
    assert_eq!(update.status.state, TaskState::InputRequired);
    assert_eq!(update.task_id.as_str(), "t1");
    // A `task.done` naming a terminal state ends the stream in that state.
    let Some(Ok(StreamResponse::StatusUpdate(done))) = stream.next().await else {
        panic!("no done event");
    };
    assert_eq!(
        done.status.state,
        TaskState::Failed,
        "the terminal state it names"
    );
    assert!(stream.next().await.is_none());
}
