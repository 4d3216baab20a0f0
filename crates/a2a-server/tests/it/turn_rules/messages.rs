//! Which messages a task takes: none while a turn runs or after it finished, none naming
//! another context or an unknown task; the shape of a client's message; the tasks it
//! references.

use a2a_server::ServerConfig;
use a2a_types::TaskState;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{ask_then_complete, input_required_task, send_text, serve_gated, state};
use crate::support::{TestServer, send_params, serve, standard_card};

/// A message to `task` is refused as an unsupported operation.
async fn expect_unsupported_message(server: &TestServer, task: &Value) {
    let params = send_params("again", json!({"taskId": task["id"]}));
    let error = server.call_err("SendMessage", params).await;
    assert_eq!(error["code"], -32004);
}

#[tokio::test]
async fn a_message_to_a_working_task_is_unsupported() {
    let (server, release) = serve_gated(TaskState::Working, None, None).await;
    let mut params = send_params("x", json!({}));
    params["configuration"] = json!({"returnImmediately": true});
    let task = server.call("SendMessage", params).await["task"].clone();
    expect_unsupported_message(&server, &task).await;
    release.notify_one();
}

#[tokio::test]
async fn a_message_to_a_finished_task_is_unsupported() {
    let server = serve(ask_then_complete).await;
    let task = input_required_task(&server).await;
    let done = server
        .call(
            "SendMessage",
            send_params("Izmir", json!({"taskId": task["id"]})),
        )
        .await;
    assert_eq!(state(&done["task"]), "TASK_STATE_COMPLETED");
    assert_eq!(
        done["task"]["status"]["message"]["parts"][0]["text"],
        "Sunny in Izmir."
    );
    expect_unsupported_message(&server, &task).await;
}

#[tokio::test]
async fn a_message_naming_another_context_is_invalid_params() {
    let server = serve(ask_then_complete).await;
    let task = input_required_task(&server).await;
    let error = server
        .call_err(
            "SendMessage",
            send_params(
                "Izmir",
                json!({"taskId": task["id"], "contextId": "someone-elses"}),
            ),
        )
        .await;
    assert_eq!(error["code"], -32602);
}

#[tokio::test]
async fn a_message_to_an_unknown_task_is_task_not_found() {
    let server = serve(ask_then_complete).await;
    let error = server
        .call_err(
            "SendMessage",
            send_params("x", json!({"taskId": "no-such-task"})),
        )
        .await;
    assert_eq!(error["code"], -32001);
}

#[tokio::test]
async fn client_message_shape_is_checked() {
    let server = serve(ask_then_complete).await;
    let cases = [
        json!({"message": {"role": "ROLE_USER", "parts": [{"text": "no id"}]}}),
        json!({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}]}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": []}}),
    ];
    for params in cases {
        let error = server.call_err("SendMessage", params.clone()).await;
        assert_eq!(error["code"], -32602, "{params}");
    }
    let mut lenient = ServerConfig::default();
    lenient.lenient_message_id = true;
    let server = TestServer::start_with(
        a2a_server::A2aServer::builder(
            standard_card(),
            crate::support::FnExecutor(ask_then_complete),
        )
        .config(lenient),
    )
    .await;
    let result = server
        .call(
            "SendMessage",
            json!({"message": {"role": "ROLE_USER", "parts": [{"text": "no id"}]}}),
        )
        .await;
    assert!(
        result["task"]["history"][0]["messageId"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
}

#[tokio::test]
async fn referenced_tasks_reach_the_executor() {
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let server = serve(move |context, updater| {
        let sender = sender.clone();
        async move {
            sender
                .send(
                    context
                        .referenced_tasks
                        .iter()
                        .map(|task| task.id.to_string())
                        .collect::<Vec<_>>(),
                )
                .unwrap();
            updater.complete(()).await?;
            Ok(())
        }
    })
    .await;
    let first = send_text(&server, "a").await;
    let _ = receiver.recv().await;
    let id = first["task"]["id"].clone();
    server
        .call(
            "SendMessage",
            send_params("b", json!({"referenceTaskIds": [id, "unknown"]})),
        )
        .await;
    assert_eq!(receiver.recv().await.unwrap(), [id.as_str().unwrap()]);
}

#[tokio::test]
async fn referenced_tasks_are_not_loaded_when_that_is_turned_off() {
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let executor = crate::support::FnExecutor(
        move |context: a2a_server::RequestContext, updater: a2a_server::TaskUpdater| {
            let sender = sender.clone();
            async move {
                sender.send(context.referenced_tasks.len()).unwrap();
                updater.complete(()).await?;
                Ok(())
            }
        },
    );
    let mut config = ServerConfig::default();
    config.populate_referenced_tasks = false;
    let server = TestServer::start_with(
        a2a_server::A2aServer::builder(standard_card(), executor).config(config),
    )
    .await;
    let first = send_text(&server, "a").await;
    assert_eq!(receiver.recv().await.unwrap(), 0);
    server
        .call(
            "SendMessage",
            send_params("b", json!({"referenceTaskIds": [first["task"]["id"]]})),
        )
        .await;
    assert_eq!(receiver.recv().await.unwrap(), 0, "nothing loaded");
}
