//! When SendMessage answers: at an interrupted state while the turn goes on, at the first
//! update when asked to return immediately, and with a failed task when the work overruns.

use std::time::Duration;

use a2a_server::{RequestContext, ServerConfig, TaskUpdater};
use a2a_types::TaskState;
use serde_json::json;

use super::{input_required_task, send_text, serve_gated, state};
use crate::support::{TestServer, send_params, serve, standard_card};

#[tokio::test]
async fn return_immediately_answers_at_the_first_update() {
    let (server, release) =
        serve_gated(TaskState::Working, Some("started"), Some("finished")).await;
    let mut params = send_params("x", json!({}));
    params["configuration"] = json!({"returnImmediately": true});
    let result = server.call("SendMessage", params).await;
    let task = &result["task"];
    assert_eq!(state(task), "TASK_STATE_WORKING");
    release.notify_one();
    for _ in 0..100 {
        let stored = server.call("GetTask", json!({"id": task["id"]})).await;
        if state(&stored) == "TASK_STATE_COMPLETED" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the task never completed in the background");
}

#[tokio::test]
async fn a_legacy_blocking_false_means_return_immediately() {
    let (server, release) = serve_gated(TaskState::Working, None, None).await;
    let mut params = send_params("x", json!({}));
    params["configuration"] = json!({"blocking": false});
    let result = server.call("SendMessage", params).await;
    assert_eq!(state(&result["task"]), "TASK_STATE_WORKING");
    release.notify_one();
}

#[tokio::test]
async fn return_immediately_on_a_follow_up_waits_for_the_executor_to_change_the_task() {
    let server = serve(|context, updater| async move {
        if context.task.is_none() {
            return Ok(updater.require_input("Which city?").await?);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        updater.working("Looking it up").await?;
        updater.complete("Sunny").await?;
        Ok(())
    })
    .await;
    let task = input_required_task(&server).await;
    let mut params = send_params("Izmir", json!({"taskId": task["id"]}));
    params["configuration"] = json!({"returnImmediately": true});
    let result = server.call("SendMessage", params).await;
    assert_ne!(state(&result["task"]), "TASK_STATE_INPUT_REQUIRED");
}

#[tokio::test]
async fn blocking_send_returns_at_an_interrupted_state_while_the_turn_goes_on() {
    let (server, release) = serve_gated(
        TaskState::AuthRequired,
        Some("Approve in your banking app"),
        Some("Paid"),
    )
    .await;
    let result = send_text(&server, "pay").await;
    assert_eq!(state(&result["task"]), "TASK_STATE_AUTH_REQUIRED");
    // The turn still runs: a follow-up message to the task is refused until it ends.
    let error = server
        .call_err(
            "SendMessage",
            send_params("hurry", json!({"taskId": result["task"]["id"]})),
        )
        .await;
    assert_eq!(error["code"], -32004);
    release.notify_one();
}

#[tokio::test]
async fn an_async_timeout_fails_overrunning_work() {
    let mut config = ServerConfig::default();
    config.async_timeout = Duration::from_millis(100);
    let builder = a2a_server::A2aServer::builder(
        standard_card(),
        crate::support::FnExecutor(|context: RequestContext, updater: TaskUpdater| async move {
            updater.working(()).await?;
            // Honours cancellation, as executors must.
            context.cancellation.cancelled().await;
            Ok(())
        }),
    )
    .config(config);
    let server = TestServer::start_with(builder).await;
    let result = send_text(&server, "x").await;
    assert_eq!(state(&result["task"]), "TASK_STATE_FAILED");
}
