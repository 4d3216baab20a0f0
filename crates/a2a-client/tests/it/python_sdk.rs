//! Interop with the official Python SDK (`a2a-sdk` 1.3.0): our client against an echo agent
//! served by the SDK's own routes and request handler (`tests/interop/python/echo_agent.py`),
//! over JSON-RPC and HTTP+JSON: send, stream, get, cancel and subscribe.
//!
//! The interpreter is `target/python-sdk/bin/python` (made by `bash .ci/run`), or `A2A_PYTHON`.
//! Without it the tests are skipped with a notice, except under `CI=true`, where they fail:
//! CI must always run against the real peer.

use std::time::Duration;

use a2a_client::{A2aClient, ResponseExt, ResponseKind, message};
use a2a_test_support::python as sdk;
use a2a_types::{
    CancelTaskRequest, GetTaskRequest, ProtocolBinding, StreamResponse, SubscribeToTaskRequest,
    TaskState,
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
    let result = tokio::time::timeout(Duration::from_secs(120), checks(&agent.url, &binding)).await;
    match result {
        Ok(Ok(())) => {}
        Ok(Err(failure)) => panic!("{binding}: {failure}\n--- agent log ---\n{}", agent.log()),
        Err(_) => panic!("{binding}: timed out\n--- agent log ---\n{}", agent.log()),
    }
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
    let fail = |what: &str, error: a2a_client::ClientError| format!("{what}: {error:?}");

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

    // SendStreamingMessage
    let events = client
        .send_streaming_message(message::request("slow 3"))
        .await
        .map_err(|error| fail("stream", error))?
        .collect_all()
        .await
        .map_err(|error| fail("stream events", error))?;
    check(
        matches!(events[0], StreamResponse::Task(_)),
        "stream: a task first",
    )?;
    let chunks: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            StreamResponse::ArtifactUpdate(update) => Some(update.artifact.text()),
            _ => None,
        })
        .collect();
    check(
        chunks == ["chunk 0", "chunk 1", "chunk 2"],
        "stream: three chunks in order",
    )?;
    check(
        events.last().and_then(ResponseExt::state) == Some(TaskState::Completed),
        "stream: ends completed",
    )?;

    // GetTask
    let streamed_id = events[0].task_id().cloned().ok_or("stream: no task id")?;
    let fetched = client
        .get_task(GetTaskRequest {
            tenant: String::new(),
            id: streamed_id.clone(),
            history_length: None,
        })
        .await
        .map_err(|error| fail("get", error))?;
    check(fetched.id == streamed_id, "get: same task")?;
    check(fetched.artifacts.len() == 3, "get: three artifacts")?;

    // CancelTask
    let waiting = client
        .send_message(
            message::draft()
                .text("wait")
                .return_immediately(true)
                .into_request(),
        )
        .await
        .map_err(|error| fail("send wait", error))?;
    let waiting_id = waiting.task_id().cloned().ok_or("wait: no task id")?;
    let canceled = client
        .cancel_task(CancelTaskRequest {
            tenant: String::new(),
            id: waiting_id,
            metadata: None,
        })
        .await
        .map_err(|error| fail("cancel", error))?;
    check(
        canceled.status.state == TaskState::Canceled,
        "cancel: canceled",
    )?;
    let again = client
        .cancel_task(CancelTaskRequest {
            tenant: String::new(),
            id: canceled.id.clone(),
            metadata: None,
        })
        .await;
    check(
        again.as_ref().err().and_then(a2a_client::ClientError::kind)
            == Some(a2a_types::ErrorKind::TaskNotCancelable),
        "cancel again: TaskNotCancelable",
    )?;

    // SubscribeToTask
    let slow = client
        .send_message(
            message::draft()
                .text("slow 4")
                .return_immediately(true)
                .into_request(),
        )
        .await
        .map_err(|error| fail("send slow", error))?;
    let slow_id = slow.task_id().cloned().ok_or("slow: no task id")?;
    let events = client
        .subscribe_to_task(SubscribeToTaskRequest {
            tenant: String::new(),
            id: slow_id.clone(),
        })
        .await
        .map_err(|error| fail("subscribe", error))?
        .collect_all()
        .await
        .map_err(|error| fail("subscribe events", error))?;
    check(
        events[0].kind() == ResponseKind::Task,
        "subscribe: a snapshot first",
    )?;
    check(
        events.last().and_then(ResponseExt::state) == Some(TaskState::Completed),
        "subscribe: ends completed",
    )?;

    // Errors come back typed.
    let missing = client
        .get_task(GetTaskRequest {
            tenant: String::new(),
            id: "no-such-task".into(),
            history_length: None,
        })
        .await;
    check(
        missing
            .as_ref()
            .err()
            .and_then(a2a_client::ClientError::kind)
            == Some(a2a_types::ErrorKind::TaskNotFound),
        "get unknown: TaskNotFound",
    )?;
    Ok(())
}

fn check(holds: bool, what: &str) -> Result<(), String> {
    if holds {
        Ok(())
    } else {
        Err(format!("check failed: {what}"))
    }
}
