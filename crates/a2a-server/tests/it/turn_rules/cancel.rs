//! Cancels: the executor's cancel hook, terminal tasks, and tasks waiting for input.

use std::time::Duration;

use a2a_server::executor::CancelRequest;
use a2a_server::{AgentExecutor, ExecutorError, RequestContext, ServerConfig, TaskUpdater};
use a2a_types::A2aError;
use serde_json::{Value, json};

use super::{ask_then_complete, input_required_task, state};
use crate::support::{TestServer, send_params, serve, standard_card};

/// An executor with a cancel hook that refuses shipped orders.
struct Shop;

#[async_trait::async_trait]
impl AgentExecutor for Shop {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        updater.working("Packing").await?;
        context.cancellation.cancelled().await;
        let late = updater.working("still packing").await;
        assert!(late.is_err(), "updates after cancel are rejected");
        Ok(())
    }

    async fn cancel(&self, request: CancelRequest<'_>) -> Result<(), ExecutorError> {
        match request.task.history[0].text().as_str() {
            "shipped" => Err(A2aError::task_not_cancelable(request.task.id.as_str())
                .with_metadata("why", "shipped")
                .into()),
            "broken hook" => Err(ExecutorError::failed("database unreachable")),
            _ => Ok(()),
        }
    }
}

async fn working_task(server: &TestServer, text: &str) -> Value {
    let mut params = send_params(text, json!({}));
    params["configuration"] = json!({"returnImmediately": true});
    server.call("SendMessage", params).await["task"].clone()
}

#[tokio::test]
async fn cancel_calls_the_hook_marks_the_task_canceled_and_aborts_the_running_turn() {
    let server = TestServer::start(Shop).await;
    let task = working_task(&server, "order 1").await;
    let canceled = server.call("CancelTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&canceled), "TASK_STATE_CANCELED");
    tokio::time::sleep(Duration::from_millis(50)).await;
    let stored = server.call("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&stored), "TASK_STATE_CANCELED");
}

#[tokio::test]
async fn a_cancel_hook_refusal_answers_and_keeps_the_task() {
    let server = TestServer::start(Shop).await;
    let task = working_task(&server, "shipped").await;
    let error = server
        .call_err("CancelTask", json!({"id": task["id"]}))
        .await;
    assert_eq!(error["code"], -32002);
    let stored = server.call("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&stored), "TASK_STATE_WORKING");
    let broken = working_task(&server, "broken hook").await;
    let error = server
        .call_err("CancelTask", json!({"id": broken["id"]}))
        .await;
    assert_eq!(error["code"], -32603);
}

#[tokio::test]
async fn cancel_of_a_terminal_task_is_not_cancelable_unless_idempotent_cancel_is_on() {
    let server = TestServer::start(Shop).await;
    let task = working_task(&server, "order").await;
    server.call("CancelTask", json!({"id": task["id"]})).await;
    let error = server
        .call_err("CancelTask", json!({"id": task["id"]}))
        .await;
    assert_eq!(error["code"], -32002);

    let mut config = ServerConfig::default();
    config.idempotent_cancel = true;
    let lenient = TestServer::start_with(
        a2a_server::A2aServer::builder(standard_card(), Shop).config(config),
    )
    .await;
    let task = working_task(&lenient, "order").await;
    lenient.call("CancelTask", json!({"id": task["id"]})).await;
    let again = lenient.call("CancelTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&again), "TASK_STATE_CANCELED");
}

#[tokio::test]
async fn cancel_of_a_task_waiting_for_input_needs_no_running_turn() {
    let server = serve(ask_then_complete).await;
    let task = input_required_task(&server).await;
    let canceled = server.call("CancelTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&canceled), "TASK_STATE_CANCELED");
    let error = server
        .call_err("CancelTask", json!({"id": "missing"}))
        .await;
    assert_eq!(error["code"], -32001);
}
