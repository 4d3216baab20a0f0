//! Making and reading a [`ResponseBody`].

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;

use super::ResponseBody;
use crate::ClientError;

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
