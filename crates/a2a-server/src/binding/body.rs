//! Reading a request body under the size limit (6 MiB unless configured): a declared
//! `Content-Length` over the limit is refused before reading, and a streamed body is abandoned
//! as soon as it passes it.

use a2a_types::{A2aError, ErrorKind};
use axum::body::Body;
use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use http::HeaderMap;
use http::header::CONTENT_LENGTH;

/// The whole body, or PayloadTooLarge once it passes `limit` bytes.
///
/// # Errors
/// PayloadTooLarge; InvalidRequest when the connection fails mid-body.
pub(super) async fn read_limited(
    body: Body,
    headers: &HeaderMap,
    limit: usize,
) -> Result<Bytes, A2aError> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(too_large(limit));
    }
    let mut stream = body.into_data_stream();
    let mut collected = BytesMut::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|error| {
            tracing::debug!(error = %error, "request body could not be read");
            A2aError::invalid_request("the request body could not be read")
        })?;
        if collected.len().saturating_add(chunk.len()) > limit {
            return Err(too_large(limit));
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(collected.freeze())
}

fn too_large(limit: usize) -> A2aError {
    // The same metadata as `A2aError::payload_too_large`, with a message naming the limit.
    A2aError::new(
        ErrorKind::PayloadTooLarge,
        format!("the request body is larger than {limit} bytes"),
    )
    .with_metadata("limitBytes", limit.to_string())
}
