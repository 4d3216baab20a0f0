//! `--blocking-timeout`: a blocking SendMessage past its time limit answers with the task as
//! it stands, and the turn goes on.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::Server;

#[tokio::test]
async fn a_blocking_send_past_the_blocking_timeout_answers_with_the_working_task() {
    let server = Server::start(&[
        "--agent",
        "exec",
        "--blocking-timeout",
        "300ms",
        "--",
        "sh",
        "-c",
        "echo started; sleep 2; echo done",
    ]);
    let started = Instant::now();
    let result = server.send("m-1", "go", json!({})).await;
    assert!(
        started.elapsed() < Duration::from_millis(1800),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        result["task"]["status"]["state"], "TASK_STATE_WORKING",
        "{result}"
    );
    let id = result["task"]["id"].as_str().unwrap().to_owned();
    let finished = crate::support::eventually(Duration::from_secs(10), || async {
        let task = server.call("GetTask", json!({"id": id})).await;
        Some(task).filter(|task| task["status"]["state"] == "TASK_STATE_COMPLETED")
    })
    .await;
    assert!(finished.is_some(), "the turn went on to completion");
}
