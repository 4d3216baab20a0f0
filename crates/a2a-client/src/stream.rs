//! [`EventStream`]: the events of SendStreamingMessage and SubscribeToTask, resumed across
//! broken connections without losing or repeating an event.
//!
//! When a connection ends or fails before the task reached a terminal or interrupted state
//! (or a direct message ended the stream), the stream subscribes to the task again
//! (spec §8.4), sending `Last-Event-ID` when the server numbered its events. What the new
//! connection repeats is dropped: by event id when the server sends ids; otherwise the
//! re-subscription's task snapshot is dropped when it shows nothing that was not delivered
//! already, and status updates identical to the last delivered status are dropped. gRPC
//! streams carry no ids, so theirs are always compared by content.

use std::collections::{HashSet, VecDeque};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_types::{
    Artifact, ErrorKind, GetTaskRequest, StreamResponse, SubscribeToTaskRequest, Task, TaskId,
    TaskState, TaskStatus,
};
use futures::{Stream, StreamExt as _};

use crate::A2aClient;
use crate::binding::Call;
use crate::binding::grpc::GrpcEvents;
use crate::error::{ClientError, TimeoutKind};
use crate::sse::{SseDecoder, SseEvent};
use crate::transport::ResponseBody;

/// A stream of [`StreamResponse`]s from the agent.
///
/// Implements [`Stream`] with `Result` items: an `Err` item is the last one. Dropping the
/// stream closes the connection; the task itself carries on.
pub struct EventStream {
    inner: Pin<Box<dyn Stream<Item = Result<StreamResponse, ClientError>> + Send>>,
}

impl std::fmt::Debug for EventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventStream").finish_non_exhaustive()
    }
}

impl Stream for EventStream {
    type Item = Result<StreamResponse, ClientError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl EventStream {
    /// A stream of the one answer a non-streaming call gave.
    pub(crate) fn single(response: StreamResponse) -> Self {
        Self {
            inner: Box::pin(futures::stream::once(async move { Ok(response) })),
        }
    }

    /// Reads the stream to its end.
    ///
    /// # Errors
    /// The stream's error, if it ended with one; the events before it are dropped.
    pub async fn collect_all(mut self) -> Result<Vec<StreamResponse>, ClientError> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event?);
        }
        Ok(events)
    }
}

/// The bytes of a stream's SSE body exactly as the agent sent them: frames, ids, comments
/// and heartbeats included, neither decoded nor re-encoded, for callers that relay a stream
/// (a proxy answering its own client with `text/event-stream`).
///
/// Opened with [`A2aClient::send_streaming_message_raw`] or
/// [`A2aClient::subscribe_to_task_raw`]. The agent's refusal before the stream opens is still
/// a [`ClientError`]; after that, bytes are passed on as they come. The idle timeout and the
/// [longest stream duration](crate::A2aClientBuilder::stream_max_duration) apply; a broken
/// stream is not resumed (the relay's own client can resubscribe with `Last-Event-ID`), and
/// the size limit does not apply to chunks that are not parsed. Offered on JSON-RPC and
/// HTTP+JSON only: a gRPC stream has no bytes in the A2A wire format to pass on, so there
/// the raw calls fail with [`ClientError::Config`]; read the [`EventStream`] instead.
///
/// ```no_run
/// use a2a_client::{A2aClient, message};
/// use futures::StreamExt as _;
///
/// # async fn run(client: A2aClient) -> Result<(), a2a_client::ClientError> {
/// let mut raw = client.send_streaming_message_raw(message::request("Hello")).await?;
/// while let Some(chunk) = raw.next().await {
///     let bytes: bytes::Bytes = chunk?;
///     // Write `bytes` to the relay's own response body.
///     # let _ = bytes;
/// }
/// # Ok(()) }
/// ```
pub struct RawEventStream {
    inner: Pin<Box<dyn Stream<Item = Result<bytes::Bytes, ClientError>> + Send>>,
}

impl std::fmt::Debug for RawEventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawEventStream").finish_non_exhaustive()
    }
}

impl Stream for RawEventStream {
    type Item = Result<bytes::Bytes, ClientError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// The refusal of a raw stream over gRPC.
fn no_raw_grpc_stream() -> ClientError {
    ClientError::config(
        "a gRPC stream has no raw event-stream bytes to pass on; read its events instead",
    )
}

/// Opens `call`'s stream, the opening counted against the client's whole-stream limit
/// (`stream_max_duration`, from now); returns that deadline with the connection.
async fn open_within_limit(
    client: &A2aClient,
    call: &Call,
) -> Result<(Option<tokio::time::Instant>, Connection), ClientError> {
    let deadline = client
        .inner
        .stream_max_duration
        .map(|limit| tokio::time::Instant::now() + limit);
    let connection = match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline, client.open_stream(call, None))
            .await
            .unwrap_or(Err(ClientError::Timeout(TimeoutKind::StreamDuration)))?,
        None => client.open_stream(call, None).await?,
    };
    Ok((deadline, connection))
}

/// Opens the stream of `call` for its raw bytes.
pub(crate) async fn open_raw(client: A2aClient, call: Call) -> Result<RawEventStream, ClientError> {
    if client.inner.grpc.is_some() {
        return Err(no_raw_grpc_stream());
    }
    let (deadline, connection) = open_within_limit(&client, &call).await?;
    let body = match connection.source {
        Source::Events { body, .. } => body,
        Source::Single(_) => {
            return Err(ClientError::invalid_response(
                "the agent answered the stream with a single JSON body, not an event stream",
            ));
        }
        Source::Decoded(_) => {
            return Err(no_raw_grpc_stream());
        }
    };
    let idle = client.stream_idle_timeout();
    let inner = futures::stream::unfold(Some(body), move |body| async move {
        let mut body = body?;
        let next = async {
            match tokio::time::timeout(idle, body.next()).await {
                Err(_elapsed) => Some(Err(ClientError::Timeout(TimeoutKind::StreamIdle))),
                Ok(next) => next,
            }
        };
        let item = match deadline {
            None => next.await,
            Some(deadline) => tokio::time::timeout_at(deadline, next)
                .await
                .unwrap_or(Some(Err(ClientError::Timeout(TimeoutKind::StreamDuration)))),
        }?;
        // After an error the body is dropped, which closes the connection.
        let body = item.is_ok().then_some(body);
        Some((item, body))
    });
    Ok(RawEventStream {
        inner: Box::pin(inner),
    })
}

/// Opens the stream of `call` (SendStreamingMessage or SubscribeToTask).
pub(crate) async fn open(client: A2aClient, call: Call) -> Result<EventStream, ClientError> {
    let (task_id, tenant) = match &call {
        Call::SubscribeToTask(request) => (Some(request.id.clone()), request.tenant.clone()),
        Call::SendStreamingMessage(request) => {
            (request.message.task_id.clone(), request.tenant.clone())
        }
        Call::SendMessage(_)
        | Call::GetTask(_)
        | Call::ListTasks(_)
        | Call::CancelTask(_)
        | Call::CreatePushConfig(_)
        | Call::GetPushConfig(_)
        | Call::ListPushConfigs(_)
        | Call::DeletePushConfig(_)
        | Call::GetExtendedAgentCard(_) => (None, String::new()),
    };
    let (deadline, connection) = open_within_limit(&client, &call).await?;
    let resumer = Resumer {
        deadline,
        idle: client.stream_idle_timeout(),
        client,
        connection: Some(connection),
        task_id,
        tenant,
        ids: SeenIds::default(),
        view: View::default(),
        attempts: 0,
        after_resume: false,
        last_error: None,
        finished: false,
    };
    let inner = futures::stream::unfold(resumer, |mut resumer| async move {
        let item = match resumer.deadline {
            None => resumer.next().await?,
            Some(_) if resumer.finished => return None,
            Some(deadline) => match tokio::time::timeout_at(deadline, resumer.next()).await {
                Ok(item) => item?,
                Err(_elapsed) => {
                    // Dropping the connection closes it; nothing comes after this error.
                    resumer.connection = None;
                    resumer.finished = true;
                    Err(ClientError::Timeout(TimeoutKind::StreamDuration))
                }
            },
        };
        Some((item, resumer))
    });
    Ok(EventStream {
        inner: Box::pin(inner),
    })
}

/// One decoded event and the SSE id it carried.
#[derive(Debug)]
pub(crate) struct Item {
    response: StreamResponse,
    id: Option<String>,
}

/// One open connection's events.
pub(crate) struct Connection {
    source: Source,
}

enum Source {
    /// An SSE body.
    Events {
        body: ResponseBody,
        decoder: SseDecoder,
        pending: VecDeque<SseEvent>,
        ended: bool,
    },
    /// A plain answer holding one event.
    Single(Option<Box<StreamResponse>>),
    /// Events decoded by the binding already (gRPC messages), with no ids.
    Decoded(GrpcEvents),
}

impl Connection {
    /// An SSE body.
    pub(crate) fn events(body: ResponseBody, max_event_size: usize) -> Self {
        Self {
            source: Source::Events {
                body,
                decoder: SseDecoder::new(max_event_size),
                pending: VecDeque::new(),
                ended: false,
            },
        }
    }

    /// A plain answer holding one event.
    pub(crate) fn single(response: StreamResponse) -> Self {
        Self {
            source: Source::Single(Some(Box::new(response))),
        }
    }

    /// Events a binding decoded itself.
    pub(crate) fn decoded(events: GrpcEvents) -> Self {
        Self {
            source: Source::Decoded(events),
        }
    }

    /// The next event; `None` when the connection ended.
    async fn next(
        &mut self,
        client: &A2aClient,
        idle: Duration,
    ) -> Option<Result<Item, ClientError>> {
        match &mut self.source {
            Source::Single(response) => response.take().map(|response| {
                Ok(Item {
                    response: *response,
                    id: None,
                })
            }),
            Source::Decoded(events) => match tokio::time::timeout(idle, events.next()).await {
                Err(_elapsed) => Some(Err(ClientError::Timeout(TimeoutKind::StreamIdle))),
                Ok(next) => next.map(|decoded| decoded.map(|response| Item { response, id: None })),
            },
            Source::Events {
                body,
                decoder,
                pending,
                ended,
            } => loop {
                if let Some(event) = pending.pop_front() {
                    let decoded = client.endpoint().decode_event(&event).map(|response| Item {
                        response,
                        id: event.id,
                    });
                    return Some(decoded);
                }
                if *ended {
                    return None;
                }
                // Any bytes count as life, heartbeat comments included.
                match tokio::time::timeout(idle, body.next()).await {
                    Err(_elapsed) => {
                        return Some(Err(ClientError::Timeout(TimeoutKind::StreamIdle)));
                    }
                    Ok(None) => *ended = true,
                    Ok(Some(Err(error))) => return Some(Err(error)),
                    Ok(Some(Ok(chunk))) => match decoder.feed(&chunk) {
                        Ok(events) => pending.extend(events),
                        Err(error) => return Some(Err(error)),
                    },
                }
            },
        }
    }
}

/// The ids already delivered: numbers compared by value (the server's task sequence), other
/// ids by equality.
#[derive(Debug, Default)]
struct SeenIds {
    last: Option<String>,
    highest_number: Option<u64>,
    others: HashSet<String>,
}

impl SeenIds {
    fn contains(&self, id: &str) -> bool {
        match (id.parse::<u64>(), self.highest_number) {
            (Ok(number), Some(highest)) => number <= highest,
            (Ok(_), None) | (Err(_), _) => self.others.contains(id),
        }
    }

    fn record(&mut self, id: &str) {
        self.last = Some(id.to_owned());
        match id.parse::<u64>() {
            Ok(number) => {
                self.highest_number = Some(self.highest_number.map_or(number, |h| h.max(number)));
            }
            Err(_) => {
                self.others.insert(id.to_owned());
            }
        }
    }
}

/// What the caller has been shown: the task as its delivered events build it.
#[derive(Debug, Default)]
struct View {
    task: Option<Task>,
    state: Option<TaskState>,
    last_status: Option<TaskStatus>,
    ended_by_message: bool,
}

impl View {
    /// Nothing more will come: a direct message, or a terminal or interrupted state.
    fn is_final(&self) -> bool {
        self.ended_by_message
            || self
                .state
                .is_some_and(|state| state.is_terminal() || state.is_interrupted())
    }

    fn apply(&mut self, response: &StreamResponse) {
        match response {
            StreamResponse::Task(task) => {
                self.state = Some(task.status.state);
                self.last_status = Some(task.status.clone());
                self.task = Some(task.clone());
            }
            StreamResponse::Message(_) => self.ended_by_message = true,
            StreamResponse::StatusUpdate(event) => {
                self.state = Some(event.status.state);
                self.last_status = Some(event.status.clone());
                if let Some(task) = &mut self.task {
                    task.status = event.status.clone();
                }
            }
            StreamResponse::ArtifactUpdate(event) => {
                if let Some(task) = &mut self.task {
                    merge_artifact(&mut task.artifacts, &event.artifact, event.append);
                }
            }
        }
    }

    /// Whether a snapshot shows anything not delivered: another state or status message, or
    /// an artifact that is new or differs. History and timestamps are not compared.
    fn snapshot_adds(&self, snapshot: &Task) -> bool {
        let Some(known) = &self.task else {
            return true;
        };
        if known.status.state != snapshot.status.state
            || known.status.message != snapshot.status.message
        {
            return true;
        }
        snapshot.artifacts.iter().any(|artifact| {
            !known.artifacts.iter().any(|seen| {
                seen.artifact_id == artifact.artifact_id && seen.parts == artifact.parts
            })
        })
    }

    /// Whether a status update only repeats the last delivered status.
    fn repeats_status(&self, status: &TaskStatus) -> bool {
        self.last_status.as_ref() == Some(status)
    }
}

fn merge_artifact(artifacts: &mut Vec<Artifact>, artifact: &Artifact, append: bool) {
    match artifacts
        .iter_mut()
        .find(|known| known.artifact_id == artifact.artifact_id)
    {
        Some(known) if append => known.parts.extend(artifact.parts.iter().cloned()),
        Some(known) => *known = artifact.clone(),
        None => artifacts.push(artifact.clone()),
    }
}

/// What a re-subscription gave.
enum Reconnected {
    /// A new connection is open.
    Open,
    /// The task finished meanwhile: its final snapshot, when it shows something new.
    Finished(Option<Box<StreamResponse>>),
}

/// The state behind an [`EventStream`].
struct Resumer {
    client: A2aClient,
    /// When the stream is closed whatever happens (the longest stream duration).
    deadline: Option<tokio::time::Instant>,
    idle: Duration,
    connection: Option<Connection>,
    task_id: Option<TaskId>,
    tenant: String,
    ids: SeenIds,
    view: View,
    /// Re-subscriptions in a row without a new event.
    attempts: u32,
    /// The open connection is a re-subscription and has not delivered anything new yet.
    after_resume: bool,
    last_error: Option<ClientError>,
    finished: bool,
}

impl Resumer {
    async fn next(&mut self) -> Option<Result<StreamResponse, ClientError>> {
        loop {
            if self.finished {
                return None;
            }
            let Some(connection) = self.connection.as_mut() else {
                match self.reconnect().await {
                    Ok(Reconnected::Open) => continue,
                    Ok(Reconnected::Finished(last)) => {
                        self.finished = true;
                        return last.map(|last| Ok(*last));
                    }
                    Err(error) => {
                        self.finished = true;
                        return Some(Err(error));
                    }
                }
            };
            match connection.next(&self.client, self.idle).await {
                Some(Ok(item)) => {
                    if let Some(response) = self.accept(item) {
                        return Some(Ok(response));
                    }
                }
                Some(Err(error)) => {
                    self.connection = None;
                    if self.view.is_final() {
                        // Whatever broke after the end does not matter.
                        self.finished = true;
                        return None;
                    }
                    if !self.may_resume() || !error.is_retryable() {
                        self.finished = true;
                        return Some(Err(error));
                    }
                    tracing::debug!(error = %error, "the stream broke; resubscribing");
                    self.last_error = Some(error);
                }
                None => {
                    self.connection = None;
                    if self.view.is_final() || !self.may_resume() {
                        // Spec §8.3: a stream that ends early is for the caller to re-check,
                        // not an error.
                        self.finished = true;
                        return None;
                    }
                    tracing::debug!("the stream ended before the task did; resubscribing");
                }
            }
        }
    }

    fn may_resume(&self) -> bool {
        self.client.resume_policy().is_enabled() && self.task_id.is_some()
    }

    /// Decides whether `item` is new; records it when it is.
    fn accept(&mut self, item: Item) -> Option<StreamResponse> {
        let seen = item.id.as_deref().is_some_and(|id| self.ids.contains(id));
        let repeated = self.after_resume
            && match &item.response {
                // A snapshot is compared by content whether or not it carries an id: one
                // from a server that ignores Last-Event-ID may repeat what was shown.
                StreamResponse::Task(snapshot) => !self.view.snapshot_adds(snapshot),
                StreamResponse::StatusUpdate(event) => {
                    item.id.is_none() && self.view.repeats_status(&event.status)
                }
                StreamResponse::Message(_) | StreamResponse::ArtifactUpdate(_) => false,
            };
        if let Some(id) = &item.id
            && !seen
        {
            // Even a dropped event moves the resume point on.
            self.ids.record(id);
        }
        if seen || repeated {
            tracing::trace!(id = ?item.id, "dropped an event delivered before");
            return None;
        }
        if self.task_id.is_none() {
            // Events in KubeMQ's shapes may name no task: nothing to resume then.
            self.task_id = item
                .response
                .task_id()
                .filter(|id| !id.as_str().is_empty())
                .cloned();
        }
        self.view.apply(&item.response);
        self.after_resume = false;
        self.attempts = 0;
        self.last_error = None;
        Some(item.response)
    }

    /// Subscribes again, with backoff, until a connection opens, the task turns out to have
    /// finished, or the attempts run out.
    async fn reconnect(&mut self) -> Result<Reconnected, ClientError> {
        let Some(task_id) = self.task_id.clone() else {
            return Err(self.interrupted());
        };
        let policy = self.client.resume_policy().clone();
        // What the last refusal's `Retry-After` asked for: the next attempt waits that long
        // at least.
        let mut asked: Option<Duration> = None;
        loop {
            if self.attempts >= policy.max_attempts {
                return Err(self.interrupted());
            }
            let wait = self
                .client
                .wait_after(policy.delay(self.attempts), asked.take());
            tokio::time::sleep(wait).await;
            self.attempts += 1;
            let call = Call::SubscribeToTask(SubscribeToTaskRequest {
                tenant: self.tenant.clone(),
                id: task_id.clone(),
            });
            let opened = self
                .client
                .open_stream_failed(&call, self.ids.last.as_deref())
                .await
                .map_err(|failed| {
                    asked = failed.retry_after;
                    failed.error
                });
            match opened {
                Ok(connection) => {
                    self.connection = Some(connection);
                    self.after_resume = true;
                    return Ok(Reconnected::Open);
                }
                // Spec §8.4: a task that finished meanwhile cannot be subscribed to; its
                // final state comes from GetTask. v0.3 agents (the Python SDK's) answer
                // InvalidParams instead; the snapshot tells whether it was that.
                Err(ClientError::Agent(error))
                    if error.kind() == ErrorKind::UnsupportedOperation
                        || (error.kind() == ErrorKind::InvalidParams
                            && self.client.protocol_version() == crate::ProtocolVersion::V0_3) =>
                {
                    return self.final_snapshot(task_id).await;
                }
                Err(error) if error.is_retryable() => {
                    tracing::debug!(error = %error, attempt = self.attempts, "resubscribing failed");
                    self.last_error = Some(error);
                }
                Err(error) => return Err(error),
            }
        }
    }

    async fn final_snapshot(&mut self, task_id: TaskId) -> Result<Reconnected, ClientError> {
        let task = self
            .client
            .get_task(GetTaskRequest {
                tenant: self.tenant.clone(),
                id: task_id,
                history_length: None,
            })
            .await?;
        if !task.status.state.is_terminal() && !task.status.state.is_interrupted() {
            // Subscribing was refused for another reason (streaming switched off).
            return Err(self.interrupted());
        }
        let last = self
            .view
            .snapshot_adds(&task)
            .then(|| Box::new(StreamResponse::Task(task)));
        Ok(Reconnected::Finished(last))
    }

    fn interrupted(&mut self) -> ClientError {
        ClientError::StreamInterrupted {
            source: self.last_error.take().map(Box::new),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::{Part, TaskArtifactUpdateEvent, TaskStatusUpdateEvent};

    fn status(state: TaskState) -> StreamResponse {
        StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus::new(state),
            metadata: None,
        })
    }

    fn artifact(id: &str, text: &str, append: bool) -> StreamResponse {
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            artifact: Artifact::new(vec![Part::text(text)]).with_id(id),
            append,
            last_chunk: false,
            metadata: None,
        })
    }

    #[test]
    fn numeric_ids_compare_by_value() {
        let mut ids = SeenIds::default();
        ids.record("3");
        assert!(ids.contains("2") && ids.contains("3"));
        assert!(!ids.contains("4"));
        ids.record("a");
        assert!(ids.contains("a") && !ids.contains("b"));
        assert_eq!(ids.last.as_deref(), Some("a"));
    }

    #[test]
    fn a_snapshot_adds_nothing_when_it_matches_what_was_delivered() {
        let mut view = View::default();
        let task = Task::new("t".into(), "c".into(), TaskState::Working);
        view.apply(&StreamResponse::Task(task.clone()));
        view.apply(&artifact("a1", "one ", false));
        view.apply(&artifact("a1", "two", true));
        let mut snapshot = task.clone();
        snapshot.artifacts =
            vec![Artifact::new(vec![Part::text("one "), Part::text("two")]).with_id("a1")];
        assert!(!view.snapshot_adds(&snapshot));
        snapshot
            .artifacts
            .push(Artifact::from_text("new").with_id("a2"));
        assert!(view.snapshot_adds(&snapshot));
        let mut done = task;
        done.status = TaskStatus::new(TaskState::Completed);
        assert!(view.snapshot_adds(&done));
    }

    #[test]
    fn streams_are_final_after_messages_and_terminal_or_interrupted_states() {
        for (state, last) in [
            (TaskState::Working, false),
            (TaskState::Completed, true),
            (TaskState::InputRequired, true),
            (TaskState::AuthRequired, true),
        ] {
            let mut view = View::default();
            view.apply(&status(state));
            assert_eq!(view.is_final(), last, "{state:?}");
        }
        let mut view = View::default();
        view.apply(&StreamResponse::Message(a2a_types::Message::agent_text(
            "hi",
        )));
        assert!(view.is_final());
    }
}
