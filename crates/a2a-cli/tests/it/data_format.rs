//! `--data-format`: what the exec agent's command reads on stdin — the text, the whole
//! message as JSON, or the SendMessage request as JSON.

use serde_json::{Value, json};

use crate::support::{Server, artifact_text, run};

async fn stdin_of(format: &str) -> String {
    let server = Server::start(&["--agent", "exec", "--data-format", format, "--", "cat"]);
    let result = server
        .send(
            "m-1",
            "hello",
            json!({"metadata": {"trace": "t-1"}, "configuration": {"historyLength": 2}}),
        )
        .await;
    assert_eq!(
        result["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{result}"
    );
    artifact_text(&result["task"]["artifacts"][0])
}

#[tokio::test]
async fn the_command_reads_the_text_by_default_and_with_payload() {
    assert_eq!(stdin_of("payload").await, "hello");
}

#[tokio::test]
async fn the_command_reads_the_whole_message_as_json_with_message() {
    let message: Value = serde_json::from_str(&stdin_of("pojo").await).unwrap();
    assert_eq!(message["messageId"], "m-1");
    assert_eq!(message["role"], "ROLE_USER");
    assert_eq!(message["parts"][0]["text"], "hello");
    assert!(message["taskId"].is_string(), "{message}");
}

#[tokio::test]
async fn the_command_reads_the_request_as_json_with_raw() {
    let request: Value = serde_json::from_str(&stdin_of("raw").await).unwrap();
    assert_eq!(request["message"]["parts"][0]["text"], "hello");
    assert_eq!(request["metadata"]["trace"], "t-1");
    assert_eq!(request["configuration"]["historyLength"], 2);
}

#[test]
fn an_unknown_data_format_is_refused() {
    let output = run(&[
        "serve",
        "--agent",
        "exec",
        "--data-format",
        "xml",
        "--",
        "cat",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--data-format"), "{stderr}");
    assert!(stderr.contains("payload, message or raw"), "{stderr}");
}
