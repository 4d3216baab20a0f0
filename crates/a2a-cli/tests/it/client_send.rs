//! `a2a send`: one message, its answer as text or JSON, streamed or not, with files and
//! data parts, over any binding.

use serde_json::json;

use crate::client_mock::cli;
use crate::support::{Server, TempFile};

#[test]
fn the_echo_answer_is_printed_with_the_tasks_state() {
    let server = Server::start(&["--agent", "echo"]);
    let run = cli(&["send", &server.url, "hello there"]);
    let text = run.ok();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("task ") && lines[0].ends_with("  COMPLETED"),
        "{text}"
    );
    assert!(lines[1].starts_with("  context "), "{text}");
    assert!(text.ends_with("── echo ──\nhello there\n"), "{text}");
}

#[test]
fn json_prints_the_send_message_response() {
    let server = Server::start(&["--agent", "echo"]);
    for binding in ["jsonrpc", "rest"] {
        let run = cli(&["send", &server.url, "hi", "--json", "--binding", binding]);
        let lines = run.json_lines();
        assert_eq!(lines.len(), 1, "{binding}");
        let task = &lines[0]["task"];
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{binding}");
        assert_eq!(task["artifacts"][0]["parts"][0]["text"], "hi", "{binding}");
    }
}

#[test]
fn the_binding_is_named_by_its_spec_name_in_any_case_or_by_its_alias() {
    let server = Server::start(&["--agent", "echo"]);
    for binding in [
        "JSONRPC",
        "jsonrpc",
        "JsonRpc",
        "HTTP+JSON",
        "http+json",
        "rest",
        "REST",
    ] {
        let run = cli(&["send", &server.url, "hi", "--json", "--binding", binding]);
        let lines = run.json_lines();
        assert_eq!(
            lines[0]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{binding}"
        );
    }
    let run = cli(&["send", &server.url, "hi", "--binding", "soap"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("invalid value 'soap' for '--binding"),
        "{}",
        run.stderr
    );
    // The card offers no gRPC interface: a binding the user names is a requirement.
    let run = cli(&["send", &server.url, "hi", "--binding", "grpc"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("no GRPC interface"), "{}", run.stderr);
}

#[test]
fn grpc_is_spoken_when_asked_for_by_name_in_any_case() {
    let server = Server::start(&["--agent", "echo", "--grpc-bind", "127.0.0.1:0"]);
    for binding in ["grpc", "GRPC", "Grpc"] {
        let run = cli(&["send", &server.url, "hi", "--json", "--binding", binding]);
        let lines = run.json_lines();
        let task = &lines[0]["task"];
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{binding}");
        assert_eq!(task["artifacts"][0]["parts"][0]["text"], "hi", "{binding}");
    }
    let run = cli(&[
        "send",
        &server.url,
        "hi",
        "--stream",
        "--json",
        "--binding",
        "grpc",
    ]);
    let lines = run.json_lines();
    assert!(lines[0].get("task").is_some(), "{lines:?}");
    assert_eq!(
        lines.last().unwrap()["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{lines:?}"
    );
}

/// `a2a send URL go --stream --message-id MESSAGE_ID` against a conformance agent; its
/// output, from a successful run.
#[track_caller]
fn stream_from_the_conformance_agent(message_id: &str) -> String {
    let server = Server::start(&["--agent", "conformance"]);
    let run = cli(&[
        "send",
        &server.url,
        "go",
        "--stream",
        "--message-id",
        message_id,
    ]);
    run.ok().to_owned()
}

#[test]
fn a_stream_prints_states_and_artifact_text_as_they_come() {
    let text = stream_from_the_conformance_agent("tck-stream-001-a");
    assert!(text.contains("● WORKING\n"), "{text}");
    assert!(text.contains("\nStream hello from TCK\n"), "{text}");
    assert!(text.ends_with("● COMPLETED\n"), "{text}");
    let working = text.find("WORKING").unwrap();
    let artifact = text.find("Stream hello").unwrap();
    assert!(working < artifact, "{text}");
}

#[test]
fn a_stream_in_json_is_one_stream_response_per_line() {
    let server = Server::start(&["--agent", "conformance"]);
    for binding in ["jsonrpc", "rest"] {
        let run = cli(&[
            "send",
            &server.url,
            "go",
            "--stream",
            "--json",
            "--binding",
            binding,
            "--message-id",
            &format!("tck-stream-artifact-chunked-{binding}"),
        ]);
        let events = run.json_lines();
        for event in &events {
            let members: Vec<&String> = event.as_object().unwrap().keys().collect();
            assert_eq!(members.len(), 1, "exactly one member: {event}");
        }
        let chunks: Vec<&str> = events
            .iter()
            .filter_map(|event| event["artifactUpdate"]["artifact"]["parts"][0]["text"].as_str())
            .collect();
        assert_eq!(chunks, ["chunk-1 ", "chunk-2"], "{binding}");
        let last = events.last().unwrap();
        assert_eq!(
            last["statusUpdate"]["status"]["state"],
            "TASK_STATE_COMPLETED"
        );
    }
}

#[test]
fn appended_text_chunks_of_one_artifact_print_as_one_flowing_text() {
    let text = stream_from_the_conformance_agent("tck-stream-artifact-chunked-2");
    assert!(text.contains("chunk-1 chunk-2\n● COMPLETED"), "{text}");
    assert_eq!(text.matches("──").count(), 2, "one artifact title: {text}");
    // An agent streaming one word per chunk reads as the sentence, on one line.
    let server = Server::start(&["--agent", "echo"]);
    let run = cli(&["send", &server.url, "hello big world", "--stream"]);
    let text = run.ok();
    assert!(
        text.contains("── echo ──\nhello big world\n● COMPLETED"),
        "{text}"
    );
}

#[test]
fn files_and_data_travel_as_raw_and_data_parts() {
    let server = Server::start(&["--agent", "echo"]);
    let file = TempFile::new("notes.txt", "file body");
    let run = cli(&[
        "send",
        &server.url,
        "see attached",
        "--file",
        file.path(),
        "--data",
        r#"{"k": [1, 2]}"#,
        "--history-length",
        "5",
        "--json",
    ]);
    let response = &run.json_lines()[0];
    let sent = &response["task"]["history"][0]["parts"];
    assert_eq!(sent[0], json!({"text": "see attached"}));
    assert_eq!(
        sent[1],
        json!({"raw": "ZmlsZSBib2R5", "filename": "notes.txt", "mediaType": "text/plain"})
    );
    assert_eq!(sent[2], json!({"data": {"k": [1, 2]}}));
}

#[test]
fn task_and_context_ids_continue_a_task() {
    let server = Server::start(&["--agent", "conformance"]);
    let first = cli(&[
        "send",
        &server.url,
        "start",
        "--json",
        "--message-id",
        "tck-input-required-x",
    ]);
    let task = first.json_lines()[0]["task"].clone();
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let task_id = task["id"].as_str().unwrap();
    let context_id = task["contextId"].as_str().unwrap();

    let second = cli(&[
        "send",
        &server.url,
        "the answer",
        "--task-id",
        task_id,
        "--context-id",
        context_id,
    ]);
    let text = second.ok();
    assert!(
        text.starts_with(&format!("task {task_id}  COMPLETED")),
        "{text}"
    );
    assert!(text.contains("  agent: the answer\n"), "{text}");
}

#[test]
fn return_immediately_answers_before_the_task_finishes() {
    let server = Server::start(&["--agent", "conformance"]);
    let run = cli(&[
        "send",
        &server.url,
        "slow",
        "--return-immediately",
        "--json",
        "--message-id",
        "test-resubscribe-message-id-ri",
    ]);
    let state = run.json_lines()[0]["task"]["status"]["state"].clone();
    assert!(
        state == "TASK_STATE_SUBMITTED" || state == "TASK_STATE_WORKING",
        "{state}"
    );
}
