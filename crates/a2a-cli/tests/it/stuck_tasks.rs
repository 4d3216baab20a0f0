//! `--stuck-task-ttl`: the in-memory store's sweep of stuck tasks runs and spares live turns;
//! other stores refuse the option.

use std::time::Duration;

use serde_json::json;

use crate::support::{Server, run};

#[tokio::test]
async fn with_the_sweep_on_a_turn_running_past_the_ttl_still_completes() {
    let server = Server::start(&[
        "--store",
        "memory",
        "--stuck-task-ttl",
        "200ms",
        "--agent",
        "exec",
        "--",
        "sh",
        "-c",
        "echo started; sleep 1; echo done",
    ]);
    let result = server.send("m-1", "go", json!({})).await;
    assert_eq!(
        result["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{result}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let id = result["task"]["id"].as_str().unwrap();
    let task = server.call("GetTask", json!({"id": id})).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
}

#[test]
fn the_stuck_task_ttl_is_refused_for_sql_stores() {
    let output = run(&[
        "serve",
        "--store",
        "sqlite://unused.db",
        "--stuck-task-ttl",
        "10m",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--stuck-task-ttl"), "{stderr}");
    assert!(stderr.contains("memory only"), "{stderr}");
}

#[test]
fn help_shows_the_stuck_task_ttl_with_its_variable_and_default() {
    let output = run(&["serve", "--help"]);
    let help = String::from_utf8_lossy(&output.stdout);
    let at = help
        .find("--stuck-task-ttl")
        .unwrap_or_else(|| panic!("{help}"));
    let entry: String = help[at..].lines().take(4).collect();
    assert!(entry.contains("[env: A2A_STUCK_TASK_TTL]"), "{entry}");
    assert!(entry.contains("[default: 0]"), "{entry}");
}
