//! Relays an agent's Server-Sent Events to the client as they arrive.
//!
//! Events are passed on whole, as soon as their blank line arrives, so the relay can put a
//! `: keepalive` comment or a final error frame between two events without ever splitting
//! one. Only the event in progress is held, up to `max_response_bytes`. A stream that
//! carries no event for `max_sse_idle` ends with a `task.error` frame carrying -32001;
//! comments from the agent do not count as events. Dropping the relayed stream (the client
//! went away) drops the agent's stream with it.
//!
//! ```
//! use a2a_gateway::proxy::{ProxyConfig, stream::{Framing, relay}};
//! use a2a_types::jsonrpc::RequestId;
//! use bytes::Bytes;
//! use futures::StreamExt as _;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let agent = futures::stream::iter([
//!     Ok::<_, std::io::Error>(Bytes::from_static(b"data: {\"a\":")),
//!     Ok(Bytes::from_static(b"1}\n\ndata: {\"b\":2}\n\n")),
//! ]);
//! let frames: Vec<_> = relay(agent, "echo", Framing::JsonRpc(RequestId::from(1_i64)), &ProxyConfig::default())
//!     .map(|frame| frame.unwrap())
//!     .collect()
//!     .await;
//! assert_eq!(frames, [Bytes::from_static(b"data: {\"a\":1}\n\ndata: {\"b\":2}\n\n")]);
//! # }
//! ```

use std::convert::Infallible;
use std::fmt::Display;
use std::time::Duration;

use a2a_types::jsonrpc::{JsonRpcResponse, RequestId};
use axum::body::Body;
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use futures::stream::BoxStream;
use futures::{Stream, StreamExt as _};
use http::header::{CACHE_CONTROL, HeaderMap, HeaderValue};
use tokio::time::Instant;

use super::error::GatewayError;
use super::{ProxyConfig, headers};

/// The comment sent on a quiet stream.
const KEEPALIVE: &[u8] = b": keepalive\n\n";

/// The event name of the frame that ends a stream with an error, as KubeMQ names it.
const ERROR_EVENT: &str = "task.error";

/// The envelope of the stream's events, which the final error frame must match.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Framing {
    /// JSON-RPC: each event is a JSON-RPC response to the request with this id.
    JsonRpc(RequestId),
    /// HTTP+JSON: each event is a bare document; errors are `google.rpc.Status` bodies.
    HttpJson,
}

/// The agent's stream `upstream`, relayed event by event with keepalives, the event size
/// cap and the idle timeout of `config`, and ended by a `task.error` frame when the agent
/// goes quiet, breaks off, or sends an oversized event.
pub fn relay<S, E>(
    upstream: S,
    agent_id: &str,
    framing: Framing,
    config: &ProxyConfig,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: Display + Send + 'static,
{
    relay_mapped(upstream, agent_id, framing, config, None)
}

/// Rewrites a block of whole events before it is sent (a translation between protocol
/// versions); keepalives and the gateway's error frames are not passed through it.
pub(crate) type EventMap = Box<dyn Fn(&[u8]) -> Bytes + Send + Sync>;

/// [`relay`], with each block of events the agent sent rewritten by `map`.
fn relay_mapped<S, E>(
    upstream: S,
    agent_id: &str,
    framing: Framing,
    config: &ProxyConfig,
    map: Option<EventMap>,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: Display + Send + 'static,
{
    let keepalive = (!config.sse_keepalive.is_zero()).then_some(config.sse_keepalive);
    let now = Instant::now();
    let broken = agent_id.to_owned();
    let relay = Relay {
        upstream: upstream
            .map(move |chunk| {
                chunk.map_err(|error| {
                    tracing::warn!(agent_id = %broken, "agent stream broke off");
                    // The cause may name the agent's URL with the caller's query: debug only.
                    tracing::debug!(error = %error, "agent stream broke off");
                })
            })
            .boxed(),
        events: EventSplitter::new(config.max_response_bytes),
        agent_id: agent_id.to_owned(),
        framing,
        legacy_codes: config.legacy_codes,
        max_idle: config.max_sse_idle,
        idle_deadline: now + config.max_sse_idle,
        keepalive,
        keepalive_deadline: keepalive.map(|period| now + period),
        map,
    };
    futures::stream::unfold(Some(relay), |relay| async move {
        let mut relay = relay?;
        match relay.next_frame().await {
            Step::Send(frame) => Some((Ok(frame), Some(relay))),
            Step::Last(frame) => Some((Ok(frame), None)),
            Step::End => None,
        }
    })
}

/// The `200 text/event-stream` response relaying the agent's stream `upstream`. It holds
/// `held` (the agent's concurrency permit, the open-stream count) until the stream ends or
/// the client goes away, which drops the agent's stream too.
pub(crate) fn response<H: Send + 'static>(
    upstream: reqwest::Response,
    agent_id: &str,
    framing: Framing,
    config: &ProxyConfig,
    held: H,
) -> Response {
    let response_headers = headers::to_client(upstream.headers());
    let events = upstream.bytes_stream();
    relayed_response(events, response_headers, agent_id, framing, config, held)
}

/// [`response`], with each block of the agent's events rewritten by `map`.
pub(crate) fn mapped_response<H: Send + 'static>(
    upstream: reqwest::Response,
    agent_id: &str,
    framing: Framing,
    config: &ProxyConfig,
    held: H,
    map: EventMap,
) -> Response {
    let mut response_headers = headers::to_client(upstream.headers());
    // Translated events are not in the agent's protocol version.
    response_headers.remove(super::headers::VERSION_HEADER);
    let events = upstream.bytes_stream();
    let frames = relay_mapped(events, agent_id, framing, config, Some(map));
    streamed(frames, response_headers, held)
}

/// The `200 text/event-stream` response relaying `upstream`, an SSE byte stream, with
/// `response_headers`; `held` is kept as in [`response`].
pub(crate) fn relayed_response<S, E, H>(
    upstream: S,
    response_headers: HeaderMap,
    agent_id: &str,
    framing: Framing,
    config: &ProxyConfig,
    held: H,
) -> Response
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: Display + Send + 'static,
    H: Send + 'static,
{
    let frames = relay(upstream, agent_id, framing, config);
    streamed(frames, response_headers, held)
}

/// The `200 text/event-stream` response sending `frames`, holding `held` until they end.
fn streamed<F, H>(frames: F, mut response_headers: HeaderMap, held: H) -> Response
where
    F: Stream<Item = Result<Bytes, Infallible>> + Send + 'static,
    H: Send + 'static,
{
    let frames = frames.map(move |frame| {
        let _held = &held;
        frame
    });
    let mut response = Response::new(Body::from_stream(frames));
    response_headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    *response.headers_mut() = response_headers;
    response
}

/// What the relay does next.
enum Step {
    /// Send this and go on.
    Send(Bytes),
    /// Send this and end.
    Last(Bytes),
    /// End.
    End,
}

struct Relay {
    upstream: BoxStream<'static, Result<Bytes, ()>>,
    events: EventSplitter,
    agent_id: String,
    framing: Framing,
    /// [`ProxyConfig::legacy_codes`].
    legacy_codes: bool,
    max_idle: Duration,
    idle_deadline: Instant,
    keepalive: Option<Duration>,
    keepalive_deadline: Option<Instant>,
    map: Option<EventMap>,
}

impl Relay {
    async fn next_frame(&mut self) -> Step {
        loop {
            let keepalive_deadline = self.keepalive_deadline;
            tokio::select! {
                biased;
                chunk = self.upstream.next() => match chunk {
                    Some(Ok(chunk)) => match self.events.push(&chunk) {
                        Ok(Some(block)) => {
                            if block.has_fields {
                                self.idle_deadline = Instant::now() + self.max_idle;
                            }
                            self.sent_something();
                            return Step::Send(match &self.map {
                                Some(map) => map(&block.bytes),
                                None => block.bytes,
                            });
                        }
                        Ok(None) => {}
                        Err(EventTooLarge) => {
                            return Step::Last(self.error_frame(&GatewayError::ResponseTooLarge {
                                agent_id: self.agent_id.clone(),
                            }));
                        }
                    },
                    Some(Err(())) => {
                        return Step::Last(self.error_frame(&GatewayError::Unreachable {
                            agent_id: self.agent_id.clone(),
                        }));
                    }
                    // An unterminated last event is dropped, as a client would drop it.
                    None => return Step::End,
                },
                () = tokio::time::sleep_until(self.idle_deadline) => {
                    tracing::warn!(agent_id = %self.agent_id, "agent stream idle timeout");
                    return Step::Last(self.error_frame(&GatewayError::Timeout {
                        agent_id: self.agent_id.clone(),
                    }));
                }
                () = sleep_until(keepalive_deadline) => {
                    self.sent_something();
                    return Step::Send(Bytes::from_static(KEEPALIVE));
                }
            }
        }
    }

    /// A keepalive is due a full period after the last thing sent.
    fn sent_something(&mut self) {
        self.keepalive_deadline = self.keepalive.map(|period| Instant::now() + period);
    }

    fn error_frame(&self, error: &GatewayError) -> Bytes {
        error_frame_with(&self.framing, error, self.legacy_codes)
    }
}

/// The `task.error` frame of the gateway's `error` in the envelope of `framing`.
pub(crate) fn error_frame(framing: &Framing, error: &GatewayError) -> Bytes {
    error_frame_with(framing, error, false)
}

/// [`error_frame`], with the legacy JSON-RPC code when `legacy`.
fn error_frame_with(framing: &Framing, error: &GatewayError, legacy: bool) -> Bytes {
    let data = match framing {
        Framing::JsonRpc(id) => {
            let response = JsonRpcResponse::error(id.clone(), error.to_jsonrpc_error_with(legacy));
            serde_json::to_string(&response).unwrap_or_else(|failure| {
                // Never expected: the document holds only strings and numbers.
                tracing::error!(error = %failure, "stream error frame could not be written");
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}"#
                    .to_owned()
            })
        }
        Framing::HttpJson => error.to_status_body().to_string(),
    };
    Bytes::from(format!("event: {ERROR_EVENT}\ndata: {data}\n\n"))
}

/// Waits until `deadline`, or forever when there is none.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// One event is larger than the cap.
#[derive(Debug, PartialEq, Eq)]
struct EventTooLarge;

/// Complete events, ready to send.
#[derive(Debug, PartialEq, Eq)]
struct Block {
    bytes: Bytes,
    /// Whether any event in it has a field line (`data:`, `event:`…), not only comments.
    has_fields: bool,
}

/// Cuts an SSE byte stream after each event's terminating blank line, with LF, CRLF or CR
/// line ends (the SSE grammar), even when a line end is split between chunks.
#[derive(Debug)]
struct EventSplitter {
    max_event_bytes: usize,
    pending: BytesMut,
    /// Where the event in progress starts in `pending`.
    event_start: usize,
    at_line_start: bool,
    after_cr: bool,
    event_has_fields: bool,
}

impl EventSplitter {
    fn new(max_event_bytes: usize) -> Self {
        Self {
            max_event_bytes,
            pending: BytesMut::new(),
            event_start: 0,
            at_line_start: true,
            after_cr: false,
            event_has_fields: false,
        }
    }

    /// Adds `chunk`; returns the events it completed, if any.
    fn push(&mut self, chunk: &[u8]) -> Result<Option<Block>, EventTooLarge> {
        let offset = self.pending.len();
        self.pending.extend_from_slice(chunk);
        let mut complete_until = None;
        let mut has_fields = false;
        for (index, byte) in chunk.iter().enumerate() {
            let position = offset + index;
            if std::mem::take(&mut self.after_cr) && *byte == b'\n' {
                // The LF of a CRLF whose CR ended an event belongs to that event.
                if complete_until == Some(position) {
                    complete_until = Some(position + 1);
                    self.event_start = position + 1;
                }
                continue;
            }
            match byte {
                b'\r' | b'\n' => {
                    if self.at_line_start {
                        let end = position + 1;
                        if end - self.event_start > self.max_event_bytes {
                            return Err(EventTooLarge);
                        }
                        has_fields |= std::mem::take(&mut self.event_has_fields);
                        complete_until = Some(end);
                        self.event_start = end;
                    }
                    self.at_line_start = true;
                    self.after_cr = *byte == b'\r';
                }
                other => {
                    if self.at_line_start && *other != b':' {
                        self.event_has_fields = true;
                    }
                    self.at_line_start = false;
                }
            }
        }
        if self.pending.len() - self.event_start > self.max_event_bytes {
            return Err(EventTooLarge);
        }
        Ok(complete_until.map(|end| {
            self.event_start -= end;
            Block {
                bytes: self.pending.split_to(end).freeze(),
                has_fields,
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> Vec<(String, bool)> {
        let mut splitter = EventSplitter::new(1024);
        chunks
            .iter()
            .filter_map(|chunk| splitter.push(chunk).unwrap())
            .map(|block| {
                (
                    String::from_utf8(block.bytes.to_vec()).unwrap(),
                    block.has_fields,
                )
            })
            .collect()
    }

    /// Chunks in, events out with whether they have fields.
    type Case<'a> = (&'a [&'a [u8]], Vec<(&'a str, bool)>);

    #[test]
    fn events_are_cut_after_their_blank_line_whatever_the_line_ends() {
        let cases: [Case<'_>; 6] = [
            (&[b"data: 1\n\n"], vec![("data: 1\n\n", true)]),
            (&[b"data: 1\n", b"\ndata: 2"], vec![("data: 1\n\n", true)]),
            (&[b"data: 1\r\n\r\n"], vec![("data: 1\r\n\r\n", true)]),
            (
                &[b"data: 1\r\n\r", b"\ndata: 2\r\r"],
                vec![("data: 1\r\n\r", true), ("\ndata: 2\r\r", true)],
            ),
            (
                &[b"data: 1\n\ndata: 2\n\ndata: 3"],
                vec![("data: 1\n\ndata: 2\n\n", true)],
            ),
            (&[b": keep-alive\n\n"], vec![(": keep-alive\n\n", false)]),
        ];
        for (chunks, expected) in cases {
            let expected: Vec<(String, bool)> = expected
                .into_iter()
                .map(|(text, fields)| (text.to_owned(), fields))
                .collect();
            assert_eq!(split(chunks), expected, "{chunks:?}");
        }
    }

    #[test]
    fn an_event_over_the_cap_is_refused_even_before_it_ends() {
        let mut splitter = EventSplitter::new(8);
        assert_eq!(splitter.push(b"data: 12345"), Err(EventTooLarge));
        let mut splitter = EventSplitter::new(8);
        assert_eq!(splitter.push(b"data: 1234\n\n"), Err(EventTooLarge));
        let mut splitter = EventSplitter::new(9);
        assert!(splitter.push(b"data: 1\n\ndata: 2\n\n").unwrap().is_some());
    }
}
