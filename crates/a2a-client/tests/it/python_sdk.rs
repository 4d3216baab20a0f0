//! Interop with the official Python SDK (`a2a-sdk` 1.3.0): our client against an echo agent
//! served by the SDK's own routes and request handler (`tests/interop/python/echo_agent.py`),
//! over JSON-RPC and HTTP+JSON: send, stream, get, cancel and subscribe.
//!
//! The interpreter is `target/python-sdk/bin/python` (made by `bash .ci/run`), or `A2A_PYTHON`.
//! Without it the tests are skipped with a notice, except under `CI=true`, where they fail:
//! CI must always run against the real peer.

use std::time::Duration;

use a2a_client::{A2aClient, ResponseExt as _, ResponseKind, message};
use a2a_test_support::python as sdk;
use a2a_types::{ProtocolBinding, TaskState};

use crate::python_checks::{
    cancel_twice, check, ends_completed, fail, get_streamed, stream_three_chunks, subscribe_slow,
    unknown_task_not_found, within_limit,
};

/// How long the echo agent may take to print its `ready URL` line.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_echo_agent_over_jsonrpc() {
    interop(ProtocolBinding::JsonRpc).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_echo_agent_over_http_json() {
    interop(ProtocolBinding::HttpJson).await;
}

async fn interop(binding: ProtocolBinding) {
    let Some(python) = sdk::interpreter() else {
        return;
    };
    let agent = tokio::task::spawn_blocking(move || sdk::echo_agent(&python, STARTUP_TIMEOUT))
        .await
        .unwrap();
    within_limit(&binding, &agent, checks(&agent.url, &binding)).await;
}

async fn checks(url: &str, binding: &ProtocolBinding) -> Result<(), String> {
    let client = A2aClient::builder()
        .prefer_binding(binding.clone())
        .discover(url)
        .await
        .map_err(|error| format!("discover: {error:?}"))?;
    if &client.binding() != binding {
        return Err(format!("picked {} instead", client.binding()));
    }

    // SendMessage
    let answer = client
        .send_message(message::request("hello"))
        .await
        .map_err(|error| fail("send", error))?;
    let a2a_types::SendMessageResponse::Task(task) = answer else {
        return Err(format!("send: expected a task, got {answer:?}"));
    };
    check(task.status.state == TaskState::Completed, "send: completed")?;
    check(
        task.artifacts[0].text() == "echo: hello",
        "send: echo artifact",
    )?;

    // SendStreamingMessage, GetTask, CancelTask
    let events = stream_three_chunks(&client).await?;
    get_streamed(&client, &events).await?;
    cancel_twice(&client).await?;

    // SubscribeToTask
    let events = subscribe_slow(&client, "subscribe").await?;
    check(
        events[0].kind() == ResponseKind::Task,
        "subscribe: a snapshot first",
    )?;
    ends_completed(&events, "subscribe")?;

    // Errors come back typed.
    unknown_task_not_found(&client).await
}
