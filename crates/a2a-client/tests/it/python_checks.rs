//! What the interop tests against the official Python SDK's agents share (the v1.0 echo
//! agent of `python_sdk`, the v0.3 agent of `python_sdk_03`): running the checks under a
//! time limit with the agent's log on failure, and the checks both agents answer alike
//! (they behave the same by message text: `slow N`, `wait`, anything else echoed).

use std::future::Future;
use std::time::Duration;

use a2a_client::{A2aClient, ClientError, ResponseExt, message};
use a2a_test_support::python::Listening;
use a2a_types::{
    CancelTaskRequest, ErrorKind, GetTaskRequest, ProtocolBinding, StreamResponse,
    SubscribeToTaskRequest, Task, TaskState,
};

/// `Ok` when `holds`, else the failure `check failed: WHAT`.
pub fn check(holds: bool, what: &str) -> Result<(), String> {
    if holds {
        Ok(())
    } else {
        Err(format!("check failed: {what}"))
    }
}

/// `what: ERROR`, the failure of a call.
#[allow(clippy::needless_pass_by_value)] // taken by value for `.map_err(|error| fail(…, error))`
pub fn fail(what: &str, error: ClientError) -> String {
    format!("{what}: {error:?}")
}

/// Runs `checks` within two minutes; panics with the first failure (or the timeout) and the
/// agent's log.
pub async fn within_limit(
    binding: &ProtocolBinding,
    agent: &Listening,
    checks: impl Future<Output = Result<(), String>>,
) {
    match tokio::time::timeout(Duration::from_secs(120), checks).await {
        Ok(Ok(())) => {}
        Ok(Err(failure)) => panic!("{binding}: {failure}\n--- agent log ---\n{}", agent.log()),
        Err(_) => panic!("{binding}: timed out\n--- agent log ---\n{}", agent.log()),
    }
}

/// `slow 3` streamed: a task first, three chunks in order, completed last; the events.
pub async fn stream_three_chunks(client: &A2aClient) -> Result<Vec<StreamResponse>, String> {
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
    Ok(events)
}

/// The task those `events` streamed, fetched: the same task, with its three artifacts.
pub async fn get_streamed(client: &A2aClient, events: &[StreamResponse]) -> Result<Task, String> {
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
    Ok(fetched)
}

/// A `wait` task canceled, then canceled again: `TaskNotCancelable`.
pub async fn cancel_twice(client: &A2aClient) -> Result<(), String> {
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
    )
}

/// A `slow 4` task sent to return at once, then subscribed to (`what` names the call in
/// failures: `subscribe`, or v0.3's `resubscribe`); the events.
pub async fn subscribe_slow(client: &A2aClient, what: &str) -> Result<Vec<StreamResponse>, String> {
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
    client
        .subscribe_to_task(SubscribeToTaskRequest {
            tenant: String::new(),
            id: slow_id,
        })
        .await
        .map_err(|error| fail(what, error))?
        .collect_all()
        .await
        .map_err(|error| fail(&format!("{what} events"), error))
}

/// `events` end completed (`what` names the call, as for [`subscribe_slow`]).
pub fn ends_completed(events: &[StreamResponse], what: &str) -> Result<(), String> {
    check(
        events.last().and_then(ResponseExt::state) == Some(TaskState::Completed),
        &format!("{what}: ends completed, got {events:?}"),
    )
}

/// A task that does not exist: `TaskNotFound`, typed.
pub async fn unknown_task_not_found(client: &A2aClient) -> Result<(), String> {
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
    )
}
