//! The two streams a caller reads: [`EventStream`] (decoded events) and [`RawEventStream`]
//! (the SSE body's bytes).

use std::pin::Pin;
use std::task::{Context, Poll};

use a2a_types::StreamResponse;
use futures::{Stream, StreamExt as _};

use crate::error::ClientError;
#[cfg(doc)]
use crate::{A2aClient, ClientError as _};

/// A stream of [`StreamResponse`]s from the agent.
///
/// Implements [`Stream`] with `Result` items: an `Err` item is the last one. Dropping the
/// stream closes the connection; the task itself carries on.
pub struct EventStream {
    pub(super) inner: Pin<Box<dyn Stream<Item = Result<StreamResponse, ClientError>> + Send>>,
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
    pub(super) inner: Pin<Box<dyn Stream<Item = Result<bytes::Bytes, ClientError>> + Send>>,
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
