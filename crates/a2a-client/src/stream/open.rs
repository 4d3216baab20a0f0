//! Opening a stream: the client's streaming calls, each counted against the longest stream
//! duration, read as decoded events or as raw bytes.

use a2a_types::{SendMessageRequest, SubscribeToTaskRequest};
use futures::StreamExt as _;

use super::connection::{Connection, Source};
use super::events::{EventStream, RawEventStream};
use super::resume::Resumer;
use super::seen::{SeenIds, View};
use crate::A2aClient;
use crate::binding::Call;
use crate::error::{ClientError, TimeoutKind};
use crate::options::SendOperation;
#[cfg(doc)]
use crate::options::{CallOptions, ResumePolicy};

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
async fn open_raw(client: A2aClient, call: Call) -> Result<RawEventStream, ClientError> {
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
async fn open(client: A2aClient, call: Call) -> Result<EventStream, ClientError> {
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

// The streaming calls of the client live beside the streams they open.
impl A2aClient {
    /// Sends `request` with the client's default operation
    /// ([`A2aClientBuilder::default_operation`](crate::A2aClientBuilder::default_operation),
    /// or [`CallOptions::operation`] of this handle): the events of SendStreamingMessage, or
    /// the one answer of SendMessage as a stream of one event, so callers read both alike.
    ///
    /// # Errors
    /// As [`send_message`](Self::send_message) and
    /// [`send_streaming_message`](Self::send_streaming_message).
    pub async fn send_default(
        &self,
        request: SendMessageRequest,
    ) -> Result<EventStream, ClientError> {
        match self.send_operation() {
            SendOperation::SendMessage => {
                let answer = self.send_message(request).await?;
                Ok(EventStream::single(answer.into()))
            }
            SendOperation::SendStreamingMessage => self.send_streaming_message(request).await,
        }
    }

    /// `SendStreamingMessage`: the task's events as they happen (spec §2.2). A stream that
    /// breaks before the task reaches a final state is resumed (see [`ResumePolicy`]).
    ///
    /// # Errors
    /// An error before the first event: the agent's refusal or a transport failure. Later
    /// errors arrive as stream items.
    pub async fn send_streaming_message(
        &self,
        request: SendMessageRequest,
    ) -> Result<EventStream, ClientError> {
        let request = self.with_history_length(request);
        open(self.clone(), Call::SendStreamingMessage(request)).await
    }

    /// `SendStreamingMessage`, read as the raw bytes of its SSE body, for callers that relay
    /// the stream unchanged (see [`RawEventStream`]). JSON-RPC and HTTP+JSON only.
    ///
    /// # Errors
    /// The agent's refusal or a transport failure before the stream opens;
    /// [`ClientError::Config`] over gRPC.
    pub async fn send_streaming_message_raw(
        &self,
        request: SendMessageRequest,
    ) -> Result<RawEventStream, ClientError> {
        let request = self.with_history_length(request);
        open_raw(self.clone(), Call::SendStreamingMessage(request)).await
    }

    /// `SubscribeToTask`, read as the raw bytes of its SSE body (see [`RawEventStream`]).
    /// JSON-RPC and HTTP+JSON only.
    ///
    /// # Errors
    /// As [`send_streaming_message_raw`](Self::send_streaming_message_raw).
    pub async fn subscribe_to_task_raw(
        &self,
        request: SubscribeToTaskRequest,
    ) -> Result<RawEventStream, ClientError> {
        open_raw(self.clone(), Call::SubscribeToTask(request)).await
    }

    /// `SubscribeToTask`: the task's snapshot, then its events (spec §2.6); resumed like
    /// [`send_streaming_message`](Self::send_streaming_message).
    ///
    /// # Errors
    /// An error before the first event (TaskNotFound, UnsupportedOperation for a finished
    /// task…); later errors arrive as stream items.
    pub async fn subscribe_to_task(
        &self,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream, ClientError> {
        open(self.clone(), Call::SubscribeToTask(request)).await
    }
}
