//! A call over the HTTP bindings: one request through the transport, its answer decoded, or
//! an SSE body for a stream.

use std::sync::atomic::Ordering;

use bytes::Bytes;
use http::HeaderMap;
use http::header::{ACCEPT, CONTENT_TYPE, HeaderValue, LOCATION};

use super::Failed;
use crate::auth::Applied;
use crate::binding::{Call, EVENT_STREAM, Reply};
use crate::client::A2aClient;
use crate::error::ClientError;
use crate::stream;
use crate::transport::{ResponseBody, read_body};

impl A2aClient {
    /// One attempt at a non-streaming call.
    pub(super) async fn unary_http<T: Reply>(&self, call: &Call) -> Result<T, Failed> {
        let (response, applied) = self.send(call, None).await?;
        let retry_after = a2a_retry::retry_after(response.headers());
        let fail = |error| Failed::new(error, applied).retry_after(retry_after);
        let status = response.status();
        let location = location_of(response.headers());
        let body = read_body(response.into_body(), self.inner.max_payload_size)
            .await
            .map_err(fail)?;
        if !status.is_success() {
            return Err(fail(self.inner.endpoint.error_from_answer(
                status.as_u16(),
                location.as_deref(),
                &body,
            )));
        }
        self.inner
            .endpoint
            .decode(call.method(), &body)
            .map_err(fail)
    }

    /// One attempt at opening a stream: its SSE body, or the single answer a server may send
    /// instead.
    pub(super) async fn open_stream_http(
        &self,
        call: &Call,
        last_event_id: Option<&str>,
    ) -> Result<stream::Connection, Failed> {
        let (response, applied) = self.send(call, last_event_id).await?;
        let retry_after = a2a_retry::retry_after(response.headers());
        let fail = |error| Failed::new(error, applied).retry_after(retry_after);
        let status = response.status();
        let is_event_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.trim_start().starts_with(EVENT_STREAM));
        if status.is_success() && is_event_stream {
            return Ok(stream::Connection::events(
                response.into_body(),
                self.inner.max_payload_size,
            ));
        }
        let location = location_of(response.headers());
        let body = read_body(response.into_body(), self.inner.max_payload_size)
            .await
            .map_err(fail)?;
        if !status.is_success() {
            return Err(fail(self.inner.endpoint.error_from_answer(
                status.as_u16(),
                location.as_deref(),
                &body,
            )));
        }
        // A plain answer to a streaming call: an error before the first event (sent unframed), or a
        // server that answered with a single result.
        let single = self
            .inner
            .endpoint
            .decode(call.method(), &body)
            .map_err(fail)?;
        Ok(stream::Connection::single(single))
    }

    /// Sends one request for `call` and returns the response once its head arrived.
    async fn send(
        &self,
        call: &Call,
        last_event_id: Option<&str>,
    ) -> Result<(http::Response<ResponseBody>, Applied), ClientError> {
        let inner = &self.inner;
        let request_id = inner.next_request_id.fetch_add(1, Ordering::Relaxed);
        let prepared = inner.endpoint.prepare(call, request_id)?;
        let mut url = prepared.url;
        let (mut headers, applied) = self.request_headers(&mut url, last_event_id).await?;
        if let Some(content_type) = prepared.content_type {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        }
        headers.insert(ACCEPT, HeaderValue::from_static(prepared.accept));
        let mut request = http::Request::builder()
            .method(prepared.method)
            .uri(url.as_str())
            .body(prepared.body.unwrap_or_else(Bytes::new))
            .map_err(|error| ClientError::config(format!("cannot build the request: {error}")))?;
        *request.headers_mut() = headers;
        let response = inner.transport.send(request).await?;
        Ok((response, applied))
    }
}

fn location_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(LOCATION)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}
