//! The recording transport: each HTTP call's request, response head and body chunks tee'd
//! into the log as they pass, so a stream is recorded frame by frame without buffering.

use std::pin::Pin;
use std::sync::{Arc, PoisonError};
use std::task::{Context, Poll};
use std::time::Instant;

use a2a_client::ClientError;
use a2a_client::transport::{ResponseBody, Transport};
use bytes::Bytes;
use futures::Stream;
use serde_json::Value;

use super::context::RecordContext;
use super::log::{CALL_IDS, SseFrame, WireCall, WireLog, elapsed_ms, now};
use super::operation::operation_of;
use super::redact::{
    MAX_BODY_CHARS, REDACTED, cut, pretty_bytes, pretty_value, redact_form, redact_json,
};
use super::replay::{a2a_command, curl_command};

/// Most SSE frames kept for one call.
const MAX_FRAMES: usize = 2000;

/// A [`Transport`] that records every call in a [`WireLog`] and passes it to `inner`.
#[derive(Debug, Clone)]
pub struct RecordingTransport {
    inner: Arc<dyn Transport>,
    log: Arc<WireLog>,
    context: Arc<RecordContext>,
}

impl RecordingTransport {
    /// Records `inner`'s calls in `log`, for the connection `context` describes.
    pub fn new(inner: Arc<dyn Transport>, log: Arc<WireLog>, context: Arc<RecordContext>) -> Self {
        Self {
            inner,
            log,
            context,
        }
    }
}

#[async_trait::async_trait]
impl Transport for RecordingTransport {
    async fn send(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<ResponseBody>, ClientError> {
        let started = Instant::now();
        let call = self.describe(&request);
        let id = self.log.begin(call);
        // Outside a handler's scope there is nobody to tell.
        let _ =
            CALL_IDS.try_with(|ids| ids.lock().unwrap_or_else(PoisonError::into_inner).push(id));
        match self.inner.send(request).await {
            Ok(response) => {
                let status = response.status().as_u16();
                let headers = self.headers(response.headers());
                let is_sse = response
                    .headers()
                    .get(http::header::CONTENT_TYPE)
                    .and_then(|value| value.to_str().ok())
                    .is_some_and(|value| value.starts_with("text/event-stream"));
                self.log.update(id, |call| {
                    call.status = Some(status);
                    call.response_headers = headers;
                    call.duration_ms = elapsed_ms(started);
                });
                let (parts, body) = response.into_parts();
                let tee = Tee {
                    inner: body,
                    log: Arc::clone(&self.log),
                    id,
                    started,
                    is_sse,
                    text: Vec::new(),
                    pending: String::new(),
                    frames: 0,
                    finished: false,
                };
                Ok(http::Response::from_parts(
                    parts,
                    ResponseBody::from_stream(tee),
                ))
            }
            Err(error) => {
                let text = crate::error::error_chain(&error);
                self.log.update(id, |call| {
                    call.error = Some(text);
                    call.duration_ms = elapsed_ms(started);
                });
                Err(error)
            }
        }
    }
}

impl RecordingTransport {
    fn headers(&self, headers: &http::HeaderMap) -> Vec<(String, String)> {
        headers
            .iter()
            .map(|(name, value)| {
                let value = if self.context.is_secret(name.as_str()) {
                    REDACTED.to_owned()
                } else {
                    String::from_utf8_lossy(value.as_bytes()).into_owned()
                };
                (name.as_str().to_owned(), value)
            })
            .collect()
    }

    fn describe(&self, request: &http::Request<Bytes>) -> WireCall {
        let url = self.redact_url(&request.uri().to_string());
        let content_type = request
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let json: Option<Value> = serde_json::from_slice(request.body()).ok();
        let (operation, binding) =
            operation_of(request.method(), request.uri().path(), json.as_ref());
        let request_body = if content_type.starts_with("application/x-www-form-urlencoded") {
            redact_form(&String::from_utf8_lossy(request.body()))
        } else {
            match &json {
                Some(value) => pretty_value(&redact_json(value.clone())),
                None => cut(String::from_utf8_lossy(request.body()).into_owned()),
            }
        };
        let request_headers = self.headers(request.headers());
        let curl = curl_command(
            request.method().as_str(),
            &url,
            request.headers(),
            request.body(),
            &self.context,
        );
        let a2a = a2a_command(
            &operation,
            request.uri().path(),
            json.as_ref(),
            binding.as_deref(),
            &self.context,
        );
        WireCall {
            id: 0,
            connection: self.context.connection.clone(),
            time: now(),
            operation,
            binding,
            method: request.method().as_str().to_owned(),
            url,
            request_headers,
            request_body,
            status: None,
            response_headers: Vec::new(),
            response_body: None,
            sse: Vec::new(),
            duration_ms: 0,
            error: None,
            curl,
            a2a,
        }
    }

    fn redact_url(&self, url: &str) -> String {
        let Ok(mut parsed) = url::Url::parse(url) else {
            return url.to_owned();
        };
        if parsed.query().is_none() {
            return url.to_owned();
        }
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(name, value)| {
                let value = if self.context.is_secret(&name) {
                    REDACTED.to_owned()
                } else {
                    value.into_owned()
                };
                (name.into_owned(), value)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
        parsed.to_string()
    }
}

/// A response body that records what passes through it.
struct Tee {
    inner: ResponseBody,
    log: Arc<WireLog>,
    id: u64,
    started: Instant,
    is_sse: bool,
    /// A plain body read so far.
    text: Vec<u8>,
    /// A stream's text after its last complete frame.
    pending: String,
    frames: usize,
    finished: bool,
}

impl Tee {
    fn chunk(&mut self, chunk: &[u8]) {
        if !self.is_sse {
            if self.text.len() < MAX_BODY_CHARS {
                self.text.extend_from_slice(chunk);
            }
            return;
        }
        self.pending
            .push_str(&String::from_utf8_lossy(chunk).replace("\r\n", "\n"));
        let mut frames = Vec::new();
        while let Some(end) = self.pending.find("\n\n") {
            let frame: String = self.pending.drain(..end + 2).collect();
            let frame = frame.trim_end_matches('\n').to_owned();
            if !frame.is_empty() {
                frames.push(frame);
            }
        }
        self.push_frames(frames);
    }

    fn push_frames(&mut self, frames: Vec<String>) {
        if frames.is_empty() {
            return;
        }
        let room = MAX_FRAMES.saturating_sub(self.frames);
        self.frames += frames.len();
        let time = now();
        let duration = elapsed_ms(self.started);
        self.log.update(self.id, |call| {
            call.sse
                .extend(frames.into_iter().take(room).map(|frame| SseFrame {
                    time: time.clone(),
                    frame,
                }));
            call.duration_ms = duration;
        });
    }

    fn finish(&mut self, error: Option<String>) {
        if self.finished {
            return;
        }
        self.finished = true;
        let rest = std::mem::take(&mut self.pending);
        let rest = rest.trim_end_matches('\n');
        if !rest.is_empty() {
            self.push_frames(vec![rest.to_owned()]);
        }
        let body = (!self.is_sse).then(|| pretty_bytes(&self.text));
        let duration = elapsed_ms(self.started);
        self.log.update(self.id, |call| {
            call.response_body = body;
            call.duration_ms = duration;
            if error.is_some() {
                call.error = error;
            }
        });
    }
}

impl Stream for Tee {
    type Item = Result<Bytes, ClientError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = Pin::new(&mut self.inner).poll_next(cx);
        match &polled {
            Poll::Ready(Some(Ok(chunk))) => {
                let chunk = chunk.clone();
                self.chunk(&chunk);
            }
            Poll::Ready(Some(Err(error))) => {
                let text = crate::error::error_chain(error);
                self.finish(Some(text));
            }
            Poll::Ready(None) => self.finish(None),
            Poll::Pending => {}
        }
        polled
    }
}

impl Drop for Tee {
    fn drop(&mut self) {
        // A body dropped before its end: the reader stopped (a closed page, a cancelled stream).
        if !self.finished {
            self.finish(None);
        }
    }
}
