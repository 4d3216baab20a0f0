//! `--agent exec`: a command per message, its stdout streamed as an artifact, its exit
//! status the task's outcome, and nothing of it left running after a cancel or timeout.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Server, artifact_text, eventually, user_message};

#[tokio::test]
async fn tr_answers_the_upper_cased_text_as_an_artifact() {
    let server = Server::start(&["--agent", "exec", "--", "tr", "a-z", "A-Z"]);
    let result = server.send("m1", "hello\nworld\n", json!({})).await;
    let task = &result["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{result}");
    // One part per line, and the text after the last `\n`: joined, exactly stdout.
    assert_eq!(artifact_text(&task["artifacts"][0]), "HELLO\nWORLD\n");

    let result = server.send("m2", "no newline", json!({})).await;
    assert_eq!(artifact_text(&result["task"]["artifacts"][0]), "NO NEWLINE");
}

#[tokio::test]
async fn message_stream_sees_the_lines_as_artifact_chunks() {
    let server = Server::start(&["--agent", "exec", "--", "tr", "a-z", "A-Z"]);
    let body = json!({"message": user_message("m1", "one\ntwo\nthree")});
    let events = server.stream("/message:stream", &body).await;
    let chunks: Vec<&Value> = events
        .iter()
        .filter_map(|event| event.get("artifactUpdate"))
        .collect();
    let texts: Vec<String> = chunks
        .iter()
        .map(|chunk| artifact_text(&chunk["artifact"]))
        .collect();
    assert_eq!(texts, ["ONE", "TWO", "THREE"], "{events:?}");
    let flags: Vec<(bool, bool)> = chunks
        .iter()
        .map(|chunk| {
            (
                chunk["append"].as_bool().unwrap_or(false),
                chunk["lastChunk"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(flags, [(false, false), (true, false), (true, true)]);
    let ids: Vec<&Value> = chunks
        .iter()
        .map(|chunk| &chunk["artifact"]["artifactId"])
        .collect();
    assert!(
        ids.windows(2).all(|pair| pair[0] == pair[1]),
        "one artifact: {ids:?}"
    );
    let last = events.last().unwrap();
    assert_eq!(
        last["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn a_non_zero_exit_fails_the_task_with_the_end_of_stderr() {
    let script = "echo partial; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22; \
                  do echo \"line $i\" >&2; done; echo boom >&2; exit 3";
    let server = Server::start(&["--agent", "exec", "--", "sh", "-c", script]);
    let result = server.send("m1", "x", json!({})).await;
    let status = &result["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{result}");
    let message = status["message"]["parts"][0]["text"].as_str().unwrap();
    assert!(
        message.starts_with("`sh` exited with status 3:"),
        "{message}"
    );
    assert!(message.ends_with("boom"), "{message}");
    assert!(message.contains("line 22"), "{message}");
    assert!(
        !message.contains("line 3\n"),
        "only the last lines: {message}"
    );
    assert_eq!(artifact_text(&result["task"]["artifacts"][0]), "partial\n");
}

/// Whether process `pid` still runs (a zombie does not).
fn running(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Sends a message that the command answers with its pids and then hangs; returns the task
/// id and the pids printed (`sh` itself, then a background `sleep` in its group).
async fn start_hanging_task(server: &Server) -> (Value, Vec<String>) {
    let result = server
        .send(
            "m1",
            "x",
            json!({"configuration": {"returnImmediately": true}}),
        )
        .await;
    let task_id = result["task"]["id"].clone();
    let pids = eventually(Duration::from_secs(10), || async {
        let task = server.call("GetTask", json!({"id": task_id.clone()})).await;
        let text = artifact_text(&task["artifacts"][0]);
        let pids: Vec<String> = text.lines().map(str::to_owned).collect();
        Some(pids).filter(|pids| pids.len() == 2)
    })
    .await
    .expect("the command printed its pids");
    (task_id, pids)
}

#[tokio::test]
async fn cancel_kills_the_whole_process_group_at_once() {
    let script = "echo $$; sleep 30 & echo $!; wait";
    let server = Server::start(&["--agent", "exec", "--", "sh", "-c", script]);
    let (task_id, pids) = start_hanging_task(&server).await;
    assert!(pids.iter().all(|pid| running(pid)), "{pids:?}");

    let started = Instant::now();
    let task = server.call("CancelTask", json!({"id": task_id})).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_CANCELED");
    let gone = eventually(Duration::from_secs(5), || async {
        Some(()).filter(|()| pids.iter().all(|pid| !running(pid)))
    })
    .await;
    assert!(gone.is_some(), "still running: {pids:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // The command itself was reaped: not even a zombie is left.
    let leader = &pids[0];
    let reaped = eventually(Duration::from_secs(2), || async {
        Some(()).filter(|()| !std::path::Path::new(&format!("/proc/{leader}")).exists())
    })
    .await;
    assert!(reaped.is_some(), "{leader} is still in /proc");
}

#[tokio::test]
async fn the_async_timeout_fails_the_task_and_kills_the_command() {
    let script = "echo $$; sleep 30 & echo $!; wait";
    let server = Server::start(&[
        "--agent",
        "exec",
        "--async-timeout",
        "1s",
        "--",
        "sh",
        "-c",
        script,
    ]);
    let (task_id, pids) = start_hanging_task(&server).await;
    let failed = eventually(Duration::from_secs(5), || async {
        let task = server.call("GetTask", json!({"id": task_id.clone()})).await;
        Some(task).filter(|task| task["status"]["state"] == "TASK_STATE_FAILED")
    })
    .await
    .expect("the task fails after 1 s");
    let message = failed["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(message.contains("did not finish within 1 s"), "{message}");
    let gone = eventually(Duration::from_secs(5), || async {
        Some(()).filter(|()| pids.iter().all(|pid| !running(pid)))
    })
    .await;
    assert!(gone.is_some(), "still running: {pids:?}");
}

#[tokio::test]
async fn sigterm_ends_running_commands_within_the_grace_period() {
    let script = "echo $$; sleep 30 & echo $!; wait";
    let mut server = Server::start(&["--agent", "exec", "--", "sh", "-c", script]);
    let (_, pids) = start_hanging_task(&server).await;
    let started = Instant::now();
    let status = server.terminate().expect("the server stops within 5 s");
    assert_eq!(status.code(), Some(0), "log:\n{}", server.log());
    // The support code gives the server a 2 s grace period.
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    let gone = eventually(Duration::from_secs(5), || async {
        Some(()).filter(|()| pids.iter().all(|pid| !running(pid)))
    })
    .await;
    assert!(gone.is_some(), "still running: {pids:?}");
}
