//! [`Transport`]: how a request reaches an agent. [`HttpTransport`] goes over the network
//! with reqwest; [`InProcessTransport`] calls a tower service such as an axum `Router`
//! directly, with no socket.
//!
//! A transport only moves bytes. Bindings, headers, credentials, timeouts and retries are the
//! client's, so they behave the same over every transport.

mod http_transport;
mod in_process;

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;

use crate::ClientError;

pub use self::http_transport::{HttpTransport, TlsOptions};
pub use self::in_process::InProcessTransport;

/// Sends one HTTP request and returns the response as soon as its head has arrived; the body
/// is read from [`ResponseBody`] afterwards, so streams are not buffered.
///
/// Implementations must not follow redirects (the client decides) and should
/// map connection failures to [`ClientError::Transport`] and an expired connect timeout to
/// [`ClientError::Timeout`]. Overall request timeouts are applied by the client.
#[async_trait::async_trait]
pub trait Transport: Send + Sync + std::fmt::Debug + 'static {
    /// Sends `request`, whose URI is absolute.
    async fn send(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<ResponseBody>, ClientError>;
}

/// The body of a response, as a stream of chunks. Dropping it releases the connection.
pub struct ResponseBody {
    chunks: Pin<Box<dyn Stream<Item = Result<Bytes, ClientError>> + Send>>,
}

impl ResponseBody {
    /// A body read from `chunks`.
    pub fn from_stream(
        chunks: impl Stream<Item = Result<Bytes, ClientError>> + Send + 'static,
    ) -> Self {
        Self {
            chunks: Box::pin(chunks),
        }
    }

    /// A body holding `bytes`.
    pub fn from_bytes(bytes: impl Into<Bytes>) -> Self {
        let bytes = bytes.into();
        Self::from_stream(futures::stream::once(async move { Ok(bytes) }))
    }

    /// An empty body.
    #[must_use]
    pub fn empty() -> Self {
        Self::from_stream(futures::stream::empty())
    }
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResponseBody")
    }
}

impl Stream for ResponseBody {
    type Item = Result<Bytes, ClientError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.chunks.as_mut().poll_next(cx)
    }
}

/// Reads a whole body, refusing more than `limit` bytes.
pub(crate) async fn read_body(mut body: ResponseBody, limit: usize) -> Result<Bytes, ClientError> {
    use futures::StreamExt as _;
    let mut collected = bytes::BytesMut::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk?;
        if collected.len() + chunk.len() > limit {
            return Err(ClientError::PayloadTooLarge { limit });
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(collected.freeze())
}
