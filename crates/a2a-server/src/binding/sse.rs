//! Turns an [`EventStream`] into a Server-Sent Events response (spec §8.1): one JSON
//! document per `data:` line, `id:` from the task's event sequence, `: keep-alive` comments
//! on idle streams, and an `event: error` frame for an error item, after which it ends.

use std::convert::Infallible;
use std::io::Write as _;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_types::A2aError;
use a2a_types::error::RestStatusProfile;
use a2a_types::jsonrpc::{JsonRpcResponse, RequestId};
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures::Stream;
use http::StatusCode;
use http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};

use crate::handler::{EventStream, StreamEvent};

/// The SSE media type (spec §8.1).
const EVENT_STREAM: &str = "text/event-stream";
/// Sent on idle streams so proxies and clients do not time the connection out.
const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";
/// What is sent if even an error document cannot be written, per binding; never expected, as
/// error documents hold only strings and numbers.
const FALLBACK_JSONRPC_ERROR: &[u8] = b"event: error\ndata: {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"internal error\"}}\n\n";
const FALLBACK_V03_REST_ERROR: &[u8] =
    b"event: error\ndata: {\"code\":-32603,\"message\":\"internal error\"}\n\n";
const FALLBACK_STATUS_ERROR: &[u8] = b"event: error\ndata: {\"error\":{\"code\":500,\"status\":\"INTERNAL\",\"message\":\"internal error\"}}\n\n";

/// How each event's `data:` is written: the binding's envelope.
#[derive(Debug, Clone)]
pub(super) enum Framing {
    /// A complete JSON-RPC response with the request's id (spec §5.1).
    JsonRpc(RequestId),
    /// The bare `StreamResponse`; errors as the binding's error body (spec §5.2).
    HttpJson {
        /// HTTP statuses written into error bodies: the configured status profile.
        profile: RestStatusProfile,
        /// Errors as RFC 9457 problems rather than `google.rpc.Status`, when the request's
        /// `Accept` prefers them.
        problem: bool,
        /// The request path, a problem's `instance`.
        instance: String,
    },
    /// A v0.3 JSON-RPC response per event, its result a v0.3 stream element.
    JsonRpcV03(RequestId),
    /// The v0.3 REST (protobuf JSON) `StreamResponse`; errors as the v0.3 error object.
    HttpJsonV03,
}

/// A `200 text/event-stream` response carrying `events`. A `keepalive` of zero sends no
/// keep-alives (rather than a busy stream of them).
pub(super) fn response(events: EventStream, framing: Framing, keepalive: Duration) -> Response {
    let frames = Frames {
        events,
        framing,
        keepalive: (!keepalive.is_zero()).then_some(keepalive),
        idle: None,
        armed: false,
        done: false,
        _open: crate::metrics::Live::new(crate::metrics::STREAMS_OPEN),
    };
    let mut response = Response::new(Body::from_stream(frames));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(EVENT_STREAM));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The most bytes of ready frames gathered into one body chunk; a frame is never split, so a
/// chunk may pass it by one frame.
const BATCH_BYTES: usize = 64 * 1024;

/// The response body: every frame that is ready when the body is polled goes out in one
/// chunk, so a burst of events costs one write rather than one per event.
struct Frames {
    events: EventStream,
    framing: Framing,
    keepalive: Option<Duration>,
    /// The keep-alive timer, made at the first idle wait and reused.
    idle: Option<Pin<Box<tokio::time::Sleep>>>,
    /// True while `idle` times the current wait; a wait starts after data was sent, so a
    /// keep-alive only ever follows a full idle period.
    armed: bool,
    /// The last frame (the end, or an error frame) was sent.
    done: bool,
    /// Counts the stream in `a2a_streams_open` until the body is dropped.
    _open: crate::metrics::Live,
}

impl Stream for Frames {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let mut batch = Vec::new();
        while batch.len() < BATCH_BYTES {
            match this.events.as_mut().poll_next(cx) {
                Poll::Ready(Some(Ok(event))) => {
                    if let Err(error) = this.framing.write_event(&mut batch, &event) {
                        this.framing.write_error(&mut batch, &error);
                        this.done = true;
                        break;
                    }
                }
                Poll::Ready(Some(Err(error))) => {
                    tracing::debug!(error = %error, "stream ended with an error frame");
                    this.framing.write_error(&mut batch, &error);
                    this.done = true;
                    break;
                }
                Poll::Ready(None) => {
                    this.done = true;
                    break;
                }
                Poll::Pending => break,
            }
        }
        if !batch.is_empty() {
            this.armed = false;
            return Poll::Ready(Some(Ok(Bytes::from(batch))));
        }
        if this.done {
            return Poll::Ready(None);
        }
        // Nothing ready: the events have registered the waker; so does the idle timer.
        let Some(period) = this.keepalive else {
            return Poll::Pending;
        };
        // The clock is read once per idle period, when the wait starts, not at every poll.
        if !this.armed {
            let deadline = tokio::time::Instant::now() + period;
            match this.idle.as_mut() {
                Some(idle) => idle.as_mut().reset(deadline),
                None => this.idle = Some(Box::pin(tokio::time::sleep_until(deadline))),
            }
            this.armed = true;
        }
        let elapsed = this
            .idle
            .as_mut()
            .is_some_and(|idle| idle.as_mut().poll(cx).is_ready());
        if elapsed {
            // The next wait is a full period again.
            this.armed = false;
            return Poll::Ready(Some(Ok(Bytes::from_static(KEEP_ALIVE))));
        }
        Poll::Pending
    }
}

impl Framing {
    /// Writes the frame of one event at the end of `out`.
    ///
    /// # Errors
    /// InternalError when the event cannot be serialised (e.g. an executor's metadata); the
    /// cause is logged, `out` is left as it was, and the caller sends an error frame instead
    /// of an empty event.
    fn write_event(&self, out: &mut Vec<u8>, event: &StreamEvent) -> Result<(), A2aError> {
        /// A JSON-RPC success response, written straight from the event.
        #[derive(serde::Serialize)]
        struct Success<'a, T> {
            jsonrpc: &'static str,
            id: &'a RequestId,
            result: &'a T,
        }
        let start = out.len();
        // The frame is written in place: its head, then the document.
        if let Some(id) = event.sequence {
            // Writing to a `Vec` cannot fail.
            let _ = writeln!(out, "id: {id}");
        }
        out.extend_from_slice(b"data: ");
        let written = match self {
            Self::JsonRpc(id) => serde_json::to_writer(
                &mut *out,
                &Success {
                    jsonrpc: a2a_types::jsonrpc::JSONRPC_VERSION,
                    id,
                    result: &event.response,
                },
            ),
            Self::HttpJson { .. } => serde_json::to_writer(&mut *out, &event.response),
            Self::JsonRpcV03(id) => serde_json::to_writer(
                &mut *out,
                &Success {
                    jsonrpc: a2a_types::jsonrpc::JSONRPC_VERSION,
                    id,
                    result: &super::v03::stream_event(&event.response),
                },
            ),
            Self::HttpJsonV03 => match super::v03::rest_stream_event(&event.response) {
                Ok(element) => serde_json::to_writer(&mut *out, &element),
                Err(error) => {
                    out.truncate(start);
                    return Err(error);
                }
            },
        };
        if let Err(error) = written {
            out.truncate(start);
            return Err(unserialisable(error));
        }
        out.extend_from_slice(b"\n\n");
        Ok(())
    }

    /// The frame of one event.
    #[cfg(test)]
    fn event(&self, event: &StreamEvent) -> Result<Bytes, A2aError> {
        let mut frame = Vec::new();
        self.write_event(&mut frame, event)?;
        Ok(Bytes::from(frame))
    }

    /// Writes the `event: error` frame of `error` at the end of `out`.
    fn write_error(&self, out: &mut Vec<u8>, error: &A2aError) {
        out.extend_from_slice(&self.error(error));
    }

    /// The `event: error` frame of `error`, in the binding's error body.
    fn error(&self, error: &A2aError) -> Bytes {
        let data = match self {
            Self::JsonRpc(id) => serde_json::to_vec(&JsonRpcResponse::error(
                id.clone(),
                error.to_jsonrpc_error(),
            )),
            Self::HttpJson {
                profile,
                problem: true,
                instance,
            } => serde_json::to_vec(&error.to_problem(*profile, Some(instance))),
            Self::HttpJson {
                profile,
                problem: false,
                ..
            } => serde_json::to_vec(&error.to_rpc_status(*profile).to_value()),
            Self::JsonRpcV03(id) => serde_json::to_vec(&JsonRpcResponse::error(
                id.clone(),
                a2a_types::v03::JsonRpcError::from(error).into(),
            )),
            Self::HttpJsonV03 => serde_json::to_vec(&a2a_types::v03::JsonRpcError::from(error)),
        };
        match data {
            Ok(data) => frame(Some("error"), None, &data),
            Err(failure) => {
                tracing::error!(error = %failure, "stream error frame could not be serialised");
                Bytes::from_static(match self {
                    Self::JsonRpc(_) | Self::JsonRpcV03(_) => FALLBACK_JSONRPC_ERROR,
                    Self::HttpJson { .. } => FALLBACK_STATUS_ERROR,
                    Self::HttpJsonV03 => FALLBACK_V03_REST_ERROR,
                })
            }
        }
    }
}

/// Logs why an event could not be written; the client sees an internal error.
#[allow(clippy::needless_pass_by_value)] // shaped for `map_err(unserialisable)`
fn unserialisable(error: serde_json::Error) -> A2aError {
    tracing::error!(error = %error, "stream event could not be serialised");
    A2aError::internal()
}

/// One SSE event. `data` is compact JSON, which never holds a raw line break (they are
/// escaped inside strings), so it fits on one `data:` line: one JSON document per line.
fn frame(event: Option<&str>, id: Option<u64>, data: &[u8]) -> Bytes {
    let mut frame = Vec::with_capacity(data.len() + 32);
    if let Some(event) = event {
        frame.extend_from_slice(format!("event: {event}\n").as_bytes());
    }
    if let Some(id) = id {
        frame.extend_from_slice(format!("id: {id}\n").as_bytes());
    }
    frame.extend_from_slice(b"data: ");
    frame.extend_from_slice(data);
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::{Message, StreamResponse, Task, TaskState};
    use futures::StreamExt as _;
    use serde_json::json;

    /// The JSON document of a frame's `data:` line.
    fn data_of(frame: &[u8]) -> serde_json::Value {
        let text = std::str::from_utf8(frame).unwrap();
        let line = text
            .lines()
            .find_map(|line| line.strip_prefix("data: "))
            .unwrap();
        serde_json::from_str(line).unwrap()
    }

    fn task_event(sequence: Option<u64>) -> StreamEvent {
        StreamEvent {
            sequence,
            response: StreamResponse::Task(Task::new("t1".into(), "c1".into(), TaskState::Working)),
        }
    }

    fn rest() -> Framing {
        Framing::HttpJson {
            profile: RestStatusProfile::Spec,
            problem: false,
            instance: "/rest/message:stream".into(),
        }
    }

    #[test]
    fn rest_frames_carry_the_bare_stream_response_and_the_sequence() {
        let frame = rest().event(&task_event(Some(3))).unwrap();
        let text = std::str::from_utf8(&frame).unwrap();
        assert!(text.starts_with("id: 3\ndata: {\"task\":{"), "{text}");
        assert!(text.ends_with("}\n\n"), "{text}");
        assert_eq!(text.matches('\n').count(), 3, "{text}");
        assert_eq!(data_of(&frame)["task"]["id"], "t1");
    }

    #[test]
    fn jsonrpc_frames_are_responses_with_the_request_id() {
        let framing = Framing::JsonRpc(RequestId::from_value(json!(7)).unwrap());
        let frame = framing.event(&task_event(None)).unwrap();
        assert!(
            frame.starts_with(b"data: "),
            "no id line without a sequence"
        );
        let data = data_of(&frame);
        assert_eq!(data["jsonrpc"], "2.0");
        assert_eq!(data["id"], 7);
        assert_eq!(
            data["result"]["task"]["status"]["state"],
            "TASK_STATE_WORKING"
        );
    }

    #[test]
    fn text_with_line_breaks_stays_on_one_data_line() {
        let event = StreamEvent {
            sequence: None,
            response: StreamResponse::Message(Message::agent_text("one\ntwo\r\nthree")),
        };
        let frame = rest().event(&event).unwrap();
        let text = std::str::from_utf8(&frame).unwrap();
        assert_eq!(
            text.lines().filter(|line| !line.is_empty()).count(),
            1,
            "{text}"
        );
        assert_eq!(
            data_of(&frame)["message"]["parts"][0]["text"],
            "one\ntwo\r\nthree"
        );
    }

    #[test]
    fn error_frames_use_the_bindings_error_body() {
        let error = A2aError::task_not_found("t9");
        let framing = Framing::JsonRpc(RequestId::String("r1".into()));
        let frame = framing.error(&error);
        assert!(frame.starts_with(b"event: error\ndata: "));
        let data = data_of(&frame);
        assert_eq!(data["id"], "r1");
        assert_eq!(data["error"]["code"], -32001);

        let data = data_of(&rest().error(&error));
        assert_eq!(data["error"]["code"], 404);
        assert_eq!(data["error"]["details"][0]["reason"], "TASK_NOT_FOUND");

        let problem = Framing::HttpJson {
            profile: RestStatusProfile::Spec,
            problem: true,
            instance: "/rest/tasks/t9:subscribe".into(),
        };
        let data = data_of(&problem.error(&error));
        assert_eq!(data["status"], 404);
        assert_eq!(data["instance"], "/rest/tasks/t9:subscribe");
    }

    #[test]
    fn fallback_error_frames_are_json_of_their_binding() {
        for fallback in [FALLBACK_JSONRPC_ERROR, FALLBACK_STATUS_ERROR] {
            let text = std::str::from_utf8(fallback).unwrap();
            assert!(text.starts_with("event: error\n"), "{text}");
            assert!(text.ends_with("\n\n"), "{text}");
            let value = data_of(fallback);
            assert!(value["error"]["code"].is_i64(), "{value}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn idle_streams_get_keep_alives_and_errors_end_them() {
        let (sender, receiver) = futures::channel::mpsc::unbounded();
        let events: EventStream = Box::pin(receiver);
        let response = response(events, rest(), Duration::from_secs(15));
        assert_eq!(response.headers()[CONTENT_TYPE], EVENT_STREAM);
        assert_eq!(response.headers()[CACHE_CONTROL], "no-cache");
        let mut body = response.into_body().into_data_stream();
        sender.unbounded_send(Ok(task_event(Some(1)))).unwrap();
        let start = tokio::time::Instant::now();
        assert!(body.next().await.unwrap().unwrap().starts_with(b"id: 1\n"));
        assert_eq!(&body.next().await.unwrap().unwrap()[..], KEEP_ALIVE);
        assert_eq!(start.elapsed(), Duration::from_secs(15));
        sender.unbounded_send(Err(A2aError::server_busy())).unwrap();
        assert!(
            body.next()
                .await
                .unwrap()
                .unwrap()
                .starts_with(b"event: error\n")
        );
        assert!(body.next().await.is_none(), "nothing after the error frame");
    }
}
