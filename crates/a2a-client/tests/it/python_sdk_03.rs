//! Interop with the official Python SDK 0.3.26: our client against an A2A v0.3 agent served
//! by the SDK's own v0.3 server apps (`tests/interop/python03/serve_agent.py`), over
//! JSON-RPC and REST: discovery from a v0.3 card, send, stream, get, cancel, resubscribe,
//! push config set/get/list/delete, the authenticated extended card, typed errors.
//!
//! The interpreter is `target/python-sdk-03/bin/python` (with `a2a-sdk[http-server]==0.3.26`),
//! or `A2A_PYTHON_03`. Without it the tests are skipped with a notice, except under
//! `CI=true`, where they fail.

use std::time::Duration;

use a2a_client::{A2aClient, ClientError, ProtocolVersion, ResponseExt, message};
use a2a_test_support::python as sdk;
use a2a_types::{
    DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ProtocolBinding, TaskPushNotificationConfig, TaskState,
};

use crate::python_checks::{
    cancel_twice, check, ends_completed, fail, get_streamed, stream_three_chunks, subscribe_slow,
    unknown_task_not_found, within_limit,
};

const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_03_agent_over_jsonrpc() {
    interop(ProtocolBinding::JsonRpc).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_03_agent_over_rest() {
    interop(ProtocolBinding::HttpJson).await;
}

async fn interop(binding: ProtocolBinding) {
    let Some(python) = sdk::interpreter_03() else {
        return;
    };
    let agent = tokio::task::spawn_blocking(move || {
        sdk::serve_agent_03(&python, Some("JSONRPC"), STARTUP_TIMEOUT)
    })
    .await
    .unwrap();
    within_limit(&binding, &agent, checks(&agent.url, &binding)).await;
}

#[allow(clippy::too_many_lines)]
async fn checks(url: &str, binding: &ProtocolBinding) -> Result<(), String> {
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

    // message/stream, tasks/get
    let events = stream_three_chunks(&client).await?;
    let fetched = get_streamed(&client, &events).await?;
    check(
        fetched.status.state == TaskState::Completed,
        "get: completed",
    )?;

    // tasks/cancel, tasks/resubscribe
    cancel_twice(&client).await?;
    let events = subscribe_slow(&client, "resubscribe").await?;
    ends_completed(&events, "resubscribe")?;

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
    unknown_task_not_found(&client).await
}
