//! Graceful shutdown: queued tasks fail at once and their subscribers are told,
//! running turns get the grace, then are canceled and failed; new work is refused.

use std::sync::Arc;
use std::time::Duration;

use a2a_server::CallContext;
use a2a_types::error::ErrorKind;
use a2a_types::{StreamResponse, TaskState};
use futures::StreamExt as _;
use serde_json::{Value, json};

use crate::support::{
    Probe, eventually, hold_the_only_slot, send_params_returning, serve_probe, start_blocking,
};

const SHUTTING_DOWN: &str = "the server is shutting down";

fn assert_failed_by_shutdown(task: &Value) {
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED", "{task}");
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"], SHUTTING_DOWN,
        "{task}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_fails_the_queued_task_at_once_and_lets_the_running_turn_finish() {
    let probe = Probe::default();
    let (server, first) = hold_the_only_slot(&probe).await;
    let queued = server.send_returning_immediately("queued").await;
    let queued_id = queued["task"]["id"].as_str().unwrap().to_owned();
    let request = serde_json::from_value(json!({"id": queued_id})).unwrap();
    let Ok(mut subscriber) = server
        .server
        .handler()
        .subscribe_to_task(&CallContext::v1(), request)
        .await
    else {
        panic!("the queued task can be subscribed to");
    };

    let shutdown = {
        let server = server.server.clone();
        tokio::spawn(async move { server.shutdown(Duration::from_secs(10)).await })
    };
    let mut states = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(5), subscriber.next())
        .await
        .expect("the subscriber hears of the shutdown in time")
    {
        match event.unwrap().response {
            StreamResponse::Task(task) => states.push(task.status.state),
            StreamResponse::StatusUpdate(update) => states.push(update.status.state),
            other => panic!("unexpected event {other:?}"),
        }
    }
    assert_eq!(states, [TaskState::Submitted, TaskState::Failed]);
    let task = server.call("GetTask", json!({"id": queued_id})).await;
    assert_failed_by_shutdown(&task);
    assert!(
        !shutdown.is_finished(),
        "shutdown waits for the running turn"
    );

    probe.release();
    let answer = first.await.unwrap();
    assert_eq!(answer["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    tokio::time::timeout(Duration::from_secs(5), shutdown)
        .await
        .expect("shutdown returns once the running turn settled")
        .unwrap();
    assert_eq!(probe.ran(), ["hold"], "the queued task never ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_that_outlives_the_grace_is_canceled_and_its_task_failed() {
    let probe = Probe::default();
    let server = Arc::new(serve_probe(&probe, 0, 0).await);
    let blocked = start_blocking(&server, &probe, "stubborn").await;

    tokio::time::timeout(
        Duration::from_secs(5),
        server.server.shutdown(Duration::from_millis(200)),
    )
    .await
    .expect("shutdown returns soon after the grace");

    assert_eq!(probe.canceled(), ["stubborn"], "its cancellation fired");
    let answer = blocked.await.unwrap();
    assert_failed_by_shutdown(&answer["task"]);
    let task_id = answer["task"]["id"].clone();
    let task = server.call("GetTask", json!({"id": task_id})).await;
    assert_failed_by_shutdown(&task);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_after_shutdown_are_refused_as_unavailable() {
    let probe = Probe::default();
    let server = serve_probe(&probe, 0, 0).await;
    let before = server
        .call("SendMessage", send_params_returning("done", false))
        .await;
    server.server.shutdown(Duration::from_secs(1)).await;

    for return_immediately in [false, true] {
        let error = server
            .call_err(
                "SendMessage",
                send_params_returning("late", return_immediately),
            )
            .await;
        assert_eq!(error["code"], -32000, "{error}");
        assert_eq!(error["data"][0]["reason"], "UNAVAILABLE", "{error}");
    }
    let response = server.rest_send_message("rest").await;
    assert_eq!(response.status, 503, "{}", response.json());
    let error = server.streaming_refusal("s", "after shutdown").await;
    assert_eq!(error.kind(), ErrorKind::Unavailable);

    // Reads still work: only new work is refused.
    let task = server
        .call("GetTask", json!({"id": before["task"]["id"]}))
        .await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(probe.ran(), ["done"]);
    eventually("nothing else to run", || async { probe.ran().len() == 1 }).await;
}
