//! `--agent conformance`: every messageId prefix of the conformance kit, over JSON-RPC.

use serde_json::{Value, json};

use crate::support::{Server, artifact_text, interface_bindings};

fn start() -> Server {
    Server::start(&["--agent", "conformance"])
}

fn status_text(task: &Value) -> &str {
    task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn each_prefix_drives_its_outcome() {
    let server = start();
    // (messageId, state, status message, first artifact part)
    let cases = [
        (
            "tck-complete-task-1",
            "TASK_STATE_COMPLETED",
            "Hello from TCK",
            Value::Null,
        ),
        (
            "tck-input-required-1",
            "TASK_STATE_INPUT_REQUIRED",
            "",
            Value::Null,
        ),
        ("tck-reject-task-1", "TASK_STATE_REJECTED", "", Value::Null),
        (
            "tck-artifact-text-1",
            "TASK_STATE_COMPLETED",
            "",
            json!({"text": "Generated text content"}),
        ),
        (
            "tck-artifact-file-1",
            "TASK_STATE_COMPLETED",
            "",
            json!({"raw": "dGNr", "filename": "output.txt", "mediaType": "text/plain"}),
        ),
        (
            "tck-artifact-file-url-1",
            "TASK_STATE_COMPLETED",
            "",
            json!({"url": "https://example.com/output.txt", "filename": "output.txt",
                   "mediaType": "text/plain"}),
        ),
        (
            "tck-artifact-data-1",
            "TASK_STATE_COMPLETED",
            "",
            json!({"data": {"key": "value", "count": 42}}),
        ),
        (
            "tck-stream-001-1",
            "TASK_STATE_COMPLETED",
            "",
            json!({"text": "Stream hello from TCK"}),
        ),
        ("tck-stream-002-1", "TASK_STATE_COMPLETED", "", Value::Null),
        (
            "tck-stream-003-1",
            "TASK_STATE_COMPLETED",
            "",
            json!({"text": "Stream task lifecycle"}),
        ),
        (
            "tck-stream-ordering-001-1",
            "TASK_STATE_COMPLETED",
            "",
            json!({"text": "Ordered output"}),
        ),
        (
            "anything-else",
            "TASK_STATE_COMPLETED",
            "echo me",
            Value::Null,
        ),
    ];
    for (message_id, state, status_message, part) in cases {
        let result = server.send(message_id, "echo me", json!({})).await;
        let task = &result["task"];
        assert_eq!(task["status"]["state"], state, "{message_id}: {result}");
        if !status_message.is_empty() {
            assert_eq!(status_text(task), status_message, "{message_id}");
        }
        match part {
            Value::Null => assert!(task.get("artifacts").is_none(), "{message_id}: {result}"),
            part => assert_eq!(task["artifacts"][0]["parts"][0], part, "{message_id}"),
        }
    }
}

#[tokio::test]
async fn message_response_answers_with_a_message_and_no_task() {
    let server = start();
    let result = server.send("tck-message-response-1", "hi", json!({})).await;
    assert!(result.get("task").is_none(), "{result}");
    assert_eq!(result["message"]["role"], "ROLE_AGENT");
    assert_eq!(
        result["message"]["parts"][0]["text"],
        "Direct message response"
    );
}

#[tokio::test]
async fn an_input_required_task_continues_with_a_follow_up() {
    let server = start();
    let first = server
        .send("tck-input-required-1", "start", json!({}))
        .await;
    assert_eq!(
        first["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    let task_id = first["task"]["id"].clone();

    let mut follow_up = json!({"messageId": "tck-complete-task-2", "role": "ROLE_USER",
                               "parts": [{"text": "done"}]});
    follow_up["taskId"] = task_id.clone();
    let second = server
        .call("SendMessage", json!({"message": follow_up}))
        .await;
    let task = &second["task"];
    assert_eq!(task["id"], task_id);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{second}");
    assert_eq!(status_text(task), "Hello from TCK");
    let history: Vec<&str> = task["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "ROLE_USER")
        .map(|message| message["messageId"].as_str().unwrap())
        .collect();
    assert_eq!(history, ["tck-input-required-1", "tck-complete-task-2"]);
}

#[tokio::test]
async fn streams_go_working_then_artifact_then_completed() {
    let server = start();
    for prefix in [
        "tck-stream-001",
        "tck-stream-003",
        "tck-stream-ordering-001",
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
                          "params": {"message": {"messageId": format!("{prefix}-s"),
                                                 "role": "ROLE_USER", "parts": [{"text": "go"}]}}});
        let events = server.stream("/", &body).await;
        let kinds: Vec<String> = events
            .iter()
            .map(|event| {
                let result = &event["result"];
                if let Some(status) = result.get("statusUpdate") {
                    status["status"]["state"].as_str().unwrap().to_owned()
                } else if let Some(artifact) = result.get("artifactUpdate") {
                    format!("artifact {}", artifact_text(&artifact["artifact"]))
                } else {
                    "task".to_owned()
                }
            })
            .collect();
        let artifacts = kinds
            .iter()
            .filter(|kind| kind.starts_with("artifact"))
            .count();
        assert_eq!(artifacts, 1, "{prefix}: {kinds:?}");
        let working = kinds.iter().position(|kind| kind == "TASK_STATE_WORKING");
        let artifact = kinds.iter().position(|kind| kind.starts_with("artifact"));
        assert!(working < artifact, "{prefix}: {kinds:?}");
        assert_eq!(
            kinds.last().unwrap(),
            "TASK_STATE_COMPLETED",
            "{prefix}: {kinds:?}"
        );
    }
}

#[tokio::test]
async fn the_card_declares_streaming_and_both_bindings() {
    let server = start();
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["capabilities"]["streaming"], true);
    let bindings = interface_bindings(&card);
    assert_eq!(bindings, ["JSONRPC", "HTTP+JSON"]);
}
