//! Interop with the official Python SDK 0.3.26: our client against an A2A v0.3 agent served
//! by the SDK's own v0.3 server apps (`tests/interop/python03/serve_agent.py`), over
//! JSON-RPC and REST: discovery from a v0.3 card, send, stream, get, cancel, resubscribe,
//! push config set/get/list/delete, the authenticated extended card, typed errors.
//!
//! The interpreter is `target/python-sdk-03/bin/python` (with `a2a-sdk[http-server]==0.3.26`),
//! or `A2A_PYTHON_03`. Without it the tests are skipped with a notice, except under
//! `CI=true`, where they fail.

use std::path::PathBuf;
use std::time::Duration;

use a2a_client::{A2aClient, ClientError, ProtocolVersion, ResponseExt, message};
use a2a_test_support::python::{Listening, command, workspace_root};
use a2a_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, ErrorKind,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ProtocolBinding, StreamResponse,
    SubscribeToTaskRequest, TaskPushNotificationConfig, TaskState,
};

/// The v0.3 agent script, relative to the workspace root.
const AGENT: &str = "tests/interop/python03/serve_agent.py";
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// The interpreter of the venv with the Python SDK 0.3.26, or `None` (after a notice) to skip.
pub(crate) fn python_03() -> Option<PathBuf> {
    let python = std::env::var_os("A2A_PYTHON_03").map_or_else(
        || workspace_root().join("target/python-sdk-03/bin/python"),
        PathBuf::from,
    );
    if python.is_file() {
        return Some(python);
    }
    let missing = format!(
        "the Python SDK 0.3 interpreter ({}, or A2A_PYTHON_03) does not exist; create it with \
         python3 -m venv target/python-sdk-03 && \
         target/python-sdk-03/bin/pip install 'a2a-sdk[http-server]==0.3.26'",
        python.display()
    );
    assert!(!a2a_test_support::is_ci(), "CI=true and {missing}");
    eprintln!("skipping the Python SDK 0.3 interop test: {missing}");
    None
}

/// The SDK's v0.3 agent on an ephemeral port, its card preferring `preferred`.
pub(crate) fn start_agent(python: &std::path::Path, preferred: &str) -> Listening {
    let mut agent = command(python, &workspace_root().join(AGENT));
    agent.args(["0", preferred]);
    Listening::start(agent, "ready ", "serve_agent.py", STARTUP_TIMEOUT)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_03_agent_over_jsonrpc() {
    interop(ProtocolBinding::JsonRpc).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_03_agent_over_rest() {
    interop(ProtocolBinding::HttpJson).await;
}

async fn interop(binding: ProtocolBinding) {
    let Some(python) = python_03() else {
        return;
    };
    let agent = tokio::task::spawn_blocking(move || start_agent(&python, "JSONRPC"))
        .await
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(120), checks(&agent.url, &binding)).await;
    match result {
        Ok(Ok(())) => {}
        Ok(Err(failure)) => panic!("{binding}: {failure}\n--- agent log ---\n{}", agent.log()),
        Err(_) => panic!("{binding}: timed out\n--- agent log ---\n{}", agent.log()),
    }
}

#[allow(clippy::too_many_lines)]
async fn checks(url: &str, binding: &ProtocolBinding) -> Result<(), String> {
    let fail = |what: &str, error: ClientError| format!("{what}: {error:?}");

    // The card offers only 0.3: no preference picks its preferred transport, in 0.3.
    let default = A2aClient::discover(url)
        .await
        .map_err(|error| fail("discover", error))?;
    check(
        default.protocol_version() == ProtocolVersion::V0_3
            && default.binding() == ProtocolBinding::JsonRpc,
        "discover: JSONRPC in 0.3",
    )?;
    // Forcing 1.0 on a card without a 1.0 interface is refused.
    let forced = A2aClient::builder()
        .protocol_version(ProtocolVersion::V1_0)
        .discover(url)
        .await;
    check(
        matches!(forced, Err(ClientError::NoUsableInterface { .. })),
        "forced 1.0: no usable interface",
    )?;

    let client = A2aClient::builder()
        .prefer_binding(binding.clone())
        .discover(url)
        .await
        .map_err(|error| fail("discover", error))?;
    check(&client.binding() == binding, "the preferred binding")?;
    check(
        client.protocol_version() == ProtocolVersion::V0_3,
        "spoken in 0.3",
    )?;

    // message/send
    let answer = client
        .send_message(message::request("hello"))
        .await
        .map_err(|error| fail("send", error))?;
    let a2a_types::SendMessageResponse::Task(task) = answer else {
        return Err(format!("send: expected a task, got {answer:?}"));
    };
    check(task.status.state == TaskState::Completed, "send: completed")?;
    check(
        task.artifacts
            .first()
            .map(a2a_types::Artifact::text)
            .as_deref()
            == Some("echo: hello"),
        "send: echo artifact",
    )?;

    // Every kind of part survives the trip (the SDK stores what it read; tasks/get gives it
    // back): bytes, a URL, data, text. (Numbers in data are left out: protobuf JSON, on
    // REST, turns them into floats.)
    let parts = client
        .send_message(
            message::draft()
                .text("parts")
                .part(
                    a2a_types::Part::raw(b"hello file".to_vec())
                        .with_filename("f.txt")
                        .with_media_type("text/plain"),
                )
                .part(
                    a2a_types::Part::url("https://example.com/x.png").with_media_type("image/png"),
                )
                .data(serde_json::json!({"k": ["a", true]}))
                .into_request(),
        )
        .await
        .map_err(|error| fail("send parts", error))?;
    let parts_id = parts.task_id().cloned().ok_or("parts: no task id")?;
    let stored = client
        .get_task(GetTaskRequest {
            tenant: String::new(),
            id: parts_id,
            history_length: None,
        })
        .await
        .map_err(|error| fail("get parts", error))?;
    let sent = stored
        .history
        .first()
        .map(|message| message.parts.clone())
        .unwrap_or_default();
    let expected = vec![
        a2a_types::Part::text("parts"),
        a2a_types::Part::raw(b"hello file".to_vec())
            .with_filename("f.txt")
            .with_media_type("text/plain"),
        a2a_types::Part::url("https://example.com/x.png").with_media_type("image/png"),
        a2a_types::Part::data(serde_json::json!({"k": ["a", true]})),
    ];
    check(
        sent.len() == expected.len()
            && sent
                .iter()
                .zip(&expected)
                .all(|(got, want)| got.content == want.content && got.filename == want.filename),
        &format!("parts: each part back as sent, got {sent:?}"),
    )?;

    // message/stream
    let events = client
        .send_streaming_message(message::request("slow 3"))
        .await
        .map_err(|error| fail("stream", error))?
        .collect_all()
        .await
        .map_err(|error| fail("stream events", error))?;
    check(
        matches!(events.first(), Some(StreamResponse::Task(_))),
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

    // tasks/get
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
    check(
        fetched.status.state == TaskState::Completed,
        "get: completed",
    )?;

    // tasks/cancel
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
        again.as_ref().err().and_then(ClientError::kind) == Some(ErrorKind::TaskNotCancelable),
        &format!("cancel again: TaskNotCancelable, got {again:?}"),
    )?;

    // tasks/resubscribe
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
        .map_err(|error| fail("resubscribe", error))?
        .collect_all()
        .await
        .map_err(|error| fail("resubscribe events", error))?;
    check(
        events.last().and_then(ResponseExt::state) == Some(TaskState::Completed),
        &format!("resubscribe: ends completed, got {events:?}"),
    )?;

    // tasks/pushNotificationConfig/set and get (both bindings), list and delete (JSON-RPC:
    // the SDK's 0.3 REST server does not implement them).
    let mut config = TaskPushNotificationConfig::new("http://127.0.0.1:9/webhook");
    config.task_id = Some(task.id.clone());
    config.id = Some("hook-1".into());
    config.token = Some("secret-token".into());
    let created = client
        .create_task_push_notification_config(config)
        .await
        .map_err(|error| fail("push set", error))?;
    check(
        created.task_id.as_ref() == Some(&task.id)
            && created.url == "http://127.0.0.1:9/webhook"
            && created.token.as_deref() == Some("secret-token"),
        &format!("push set: the config back, got {created:?}"),
    )?;
    let got = client
        .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: task.id.clone(),
            id: "hook-1".into(),
        })
        .await
        .map_err(|error| fail("push get", error))?;
    check(got.url == created.url, "push get: same url")?;
    if binding == &ProtocolBinding::JsonRpc {
        let listed = client
            .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
                tenant: String::new(),
                task_id: task.id.clone(),
                page_size: 0,
                page_token: String::new(),
            })
            .await
            .map_err(|error| fail("push list", error))?;
        check(listed.configs.len() == 1, "push list: one config")?;
        // The SDK answers delete with neither `result` nor `error`.
        client
            .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
                tenant: String::new(),
                task_id: task.id.clone(),
                id: "hook-1".into(),
            })
            .await
            .map_err(|error| fail("push delete", error))?;
        let listed = client
            .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
                tenant: String::new(),
                task_id: task.id.clone(),
                page_size: 0,
                page_token: String::new(),
            })
            .await
            .map_err(|error| fail("push list after delete", error))?;
        check(listed.configs.is_empty(), "push list: none after delete")?;
    }

    // agent/getAuthenticatedExtendedCard, GET /v1/card
    let extended = client
        .get_extended_agent_card(GetExtendedAgentCardRequest::default())
        .await
        .map_err(|error| fail("extended card", error))?;
    check(
        extended.name == "Python v0.3 agent (extended)",
        "extended card: its name",
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
        missing.as_ref().err().and_then(ClientError::kind) == Some(ErrorKind::TaskNotFound),
        &format!("get unknown: TaskNotFound, got {missing:?}"),
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
