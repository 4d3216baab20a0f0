//! The per-request `returnImmediately` decision over the socket: the request's own choice
//! (`returnImmediately`, or v0.3's `blocking`), then the server's hook, then its default.

use std::time::Duration;

use a2a_server::{A2aServer, CallContext, ServerConfig};
use a2a_types::SendMessageRequest;
use serde_json::{Value, json};

use crate::support::{FnExecutor, TestServer, send_params};

/// A server whose turns take a while, and whose hook makes messages marked `batch` in
/// their metadata answer at once, and those marked `interactive` wait.
async fn server(config: ServerConfig) -> TestServer {
    let executor = FnExecutor(|_context, updater: a2a_server::TaskUpdater| async move {
        updater.working(()).await?;
        tokio::time::sleep(Duration::from_millis(400)).await;
        updater.complete("done").await?;
        Ok(())
    });
    let hook = |_call: &CallContext, request: &SendMessageRequest| {
        let kind = request
            .message
            .metadata
            .as_ref()
            .and_then(|metadata| metadata.get("kind"))
            .and_then(Value::as_str);
        match kind {
            Some("batch") => Some(true),
            Some("interactive") => Some(false),
            _ => None,
        }
    };
    let builder = A2aServer::builder(crate::support::standard_card(), executor)
        .config(config)
        .return_immediately(hook);
    TestServer::start_with(builder).await
}

/// The state a SendMessage answered with.
async fn answered_state(server: &TestServer, kind: Option<&str>, configuration: Value) -> String {
    let extra = match kind {
        Some(kind) => json!({"metadata": {"kind": kind}}),
        None => json!({}),
    };
    let mut params = send_params("work", extra);
    params["configuration"] = configuration;
    let result = server.call("SendMessage", params).await;
    result["task"]["status"]["state"]
        .as_str()
        .unwrap_or_else(|| panic!("no task: {result}"))
        .to_owned()
}

#[tokio::test]
async fn the_hook_settles_a_send_that_leaves_it_open() {
    let server = server(ServerConfig::default()).await;
    assert_eq!(
        answered_state(&server, Some("batch"), json!({})).await,
        "TASK_STATE_WORKING",
        "the hook made it answer at once"
    );
    assert_eq!(
        answered_state(&server, None, json!({})).await,
        "TASK_STATE_COMPLETED",
        "no answer from the hook: the server's default (blocking)"
    );
}

#[tokio::test]
async fn the_request_own_choice_wins_over_the_hook() {
    let server = server(ServerConfig::default()).await;
    assert_eq!(
        answered_state(
            &server,
            Some("interactive"),
            json!({"returnImmediately": true})
        )
        .await,
        "TASK_STATE_WORKING",
        "returnImmediately: true beats the hook's false"
    );
    assert_eq!(
        answered_state(&server, Some("batch"), json!({"blocking": true})).await,
        "TASK_STATE_COMPLETED",
        "a legacy blocking: true beats the hook's true"
    );
}

#[tokio::test]
async fn the_hook_wins_over_the_server_default() {
    let mut config = ServerConfig::default();
    config.default_return_immediately = true;
    let server = server(config).await;
    assert_eq!(
        answered_state(&server, Some("interactive"), json!({})).await,
        "TASK_STATE_COMPLETED",
        "the hook's false beats the default true"
    );
    assert_eq!(
        answered_state(&server, None, json!({})).await,
        "TASK_STATE_WORKING",
        "no answer from the hook: the default (return at once)"
    );
}
