//! `--store-cleanup-interval`: the in-memory store's passes that free expired finished tasks.

use std::time::Duration;

use serde_json::json;

use crate::support::{Server, run};

#[tokio::test]
async fn with_a_cleanup_pass_after_every_save_expired_tasks_are_gone() {
    let server = Server::start(&[
        "--store",
        "memory",
        "--store-cleanup-interval",
        "0",
        "--completed-task-ttl",
        "200ms",
    ]);
    let first = server.send("m-1", "first", json!({})).await;
    let id = first["task"]["id"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(400)).await;
    // This save runs the pass that drops the first task.
    server.send("m-2", "second", json!({})).await;
    let answer = server.rpc("GetTask", json!({"id": id})).await;
    assert_eq!(answer["error"]["code"], -32001, "{answer}");
    let page = server.call("ListTasks", json!({})).await;
    assert_eq!(page["totalSize"], 1, "{page}");
}

#[test]
fn the_cleanup_interval_is_refused_for_sql_stores() {
    let output = run(&[
        "serve",
        "--store",
        "sqlite://unused.db",
        "--store-cleanup-interval",
        "10",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--store-cleanup-interval"), "{stderr}");
    assert!(stderr.contains("memory only"), "{stderr}");
}
