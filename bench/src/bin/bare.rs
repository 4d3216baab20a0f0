//! `bare`: the baseline of the load benchmark. An axum server on the routes the benchmark
//! uses that answers with canned payloads of the same shape and size as `a2a serve`'s and
//! does no A2A work at all (no parsing, no store, no task lifecycle):
//!
//! - `POST /` (JSON-RPC): a body naming `SendStreamingMessage` gets the canned stream the
//!   echo agent sends for a message of N words: the submitted task, N artifact chunks,
//!   COMPLETED. N is the number of spaces in the body plus one (the benchmark's messages are
//!   words separated by single spaces, and its requests have no other spaces); the streams
//!   of `--stream-words` are ready at start, others are made when asked. Any other body
//!   gets the echo agent's SendMessage answer.
//! - `POST /message:send` (HTTP+JSON): the echo answer; a body with `returnImmediately`
//!   starts instead a task for the fan-out figure and gets it WORKING. After
//!   `--fanout-delay-ms`, the task sends `--fanout-lines` artifact updates, one every
//!   `--fanout-every-ms`, then COMPLETED, to all its subscribers.
//! - `POST /message:stream`: the canned stream, HTTP+JSON shape, chosen the same way.
//! - `POST /tasks/{id}:subscribe`: the fan-out task's snapshot, then its events.
//!
//! Prints `listening on http://ADDR` like `a2a serve`; runs until killed.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use a2a_bench::canned::{self, state};
use anyhow::Context as _;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse as _, Response};
use axum::routing::post;
use bytes::Bytes;
use clap::Parser;
use futures::StreamExt as _;
use tokio::sync::broadcast;

/// Flags of `bare`.
#[derive(Debug, Parser)]
#[command(about = "Baseline server of the load benchmark: canned A2A answers")]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    bind: String,
    /// Lengths, in words, of the canned streams made at start (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "10,100,1000")]
    stream_words: Vec<usize>,
    /// Artifact events of a fan-out task.
    #[arg(long, default_value_t = 200)]
    fanout_lines: usize,
    /// Time between two of them, ms.
    #[arg(long, default_value_t = 10)]
    fanout_every_ms: u64,
    /// Time from the task's start to its first artifact event, ms.
    #[arg(long, default_value_t = 1000)]
    fanout_delay_ms: u64,
}

/// One canned stream, as SSE events (one body chunk each) in both bindings' shapes.
#[derive(Debug)]
struct Stream {
    jsonrpc: Vec<Bytes>,
    rest: Vec<Bytes>,
}

impl Stream {
    /// The echo agent's stream for a message of `words` words.
    fn new(words: usize) -> Self {
        let payloads = canned::echo_stream_payloads(canned::TASK_ID, words);
        let sse = |data: &dyn Fn(&String) -> String| -> Vec<Bytes> {
            payloads
                .iter()
                .enumerate()
                .map(|(id, payload)| {
                    Bytes::from(canned::sse_event(Some(id as u64 + 1), &data(payload)))
                })
                .collect()
        };
        Self {
            jsonrpc: sse(&|payload| canned::jsonrpc_result(payload)),
            rest: sse(&String::clone),
        }
    }
}

/// Everything the handlers share.
#[derive(Debug)]
struct Bare {
    send_jsonrpc: Bytes,
    send_rest: Bytes,
    /// The canned streams made at start, by length in words.
    streams: HashMap<usize, Stream>,
    fanout_lines: usize,
    fanout_every: Duration,
    fanout_delay: Duration,
    /// Running fan-out tasks, by id.
    tasks: Mutex<HashMap<String, broadcast::Sender<Bytes>>>,
    next_task: AtomicU64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let streams = args
        .stream_words
        .iter()
        .map(|&words| (words, Stream::new(words)))
        .collect();
    let bare = Arc::new(Bare {
        send_jsonrpc: Bytes::from(canned::send_message_jsonrpc()),
        send_rest: Bytes::from(canned::send_message_rest()),
        streams,
        fanout_lines: args.fanout_lines,
        fanout_every: Duration::from_millis(args.fanout_every_ms.max(1)),
        fanout_delay: Duration::from_millis(args.fanout_delay_ms),
        tasks: Mutex::new(HashMap::new()),
        next_task: AtomicU64::new(1),
    });
    let router = Router::new()
        .route("/", post(jsonrpc))
        .route("/message:send", post(send_rest))
        .route("/message:stream", post(stream_rest))
        .route("/tasks/{target}", post(subscribe))
        .with_state(bare);

    a2a_bench::serve(&args.bind, router)
        .await
        .with_context(|| format!("serving on {}", args.bind))
}

async fn jsonrpc(State(bare): State<Arc<Bare>>, body: Bytes) -> Response {
    if a2a_bench::contains(&body, b"\"SendStreamingMessage\"") {
        bare.stream(&body, |stream| stream.jsonrpc.clone())
    } else {
        json(bare.send_jsonrpc.clone())
    }
}

async fn send_rest(State(bare): State<Arc<Bare>>, body: Bytes) -> Response {
    if a2a_bench::contains(&body, b"\"returnImmediately\":true") {
        json(start_fanout(&bare))
    } else {
        json(bare.send_rest.clone())
    }
}

async fn stream_rest(State(bare): State<Arc<Bare>>, body: Bytes) -> Response {
    bare.stream(&body, |stream| stream.rest.clone())
}

impl Bare {
    /// The canned stream for the message in `body`, in the shape `pick` takes.
    fn stream(&self, body: &[u8], pick: fn(&Stream) -> Vec<Bytes>) -> Response {
        let words = body.iter().filter(|&&byte| byte == b' ').count() + 1;
        match self.streams.get(&words) {
            Some(stream) => sse(pick(stream)),
            None => sse(pick(&Stream::new(words))),
        }
    }
}

async fn subscribe(State(bare): State<Arc<Bare>>, Path(target): Path<String>) -> Response {
    let Some(id) = target.strip_suffix(":subscribe") else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let receiver = bare
        .tasks
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(id)
        .map(broadcast::Sender::subscribe);
    let Some(receiver) = receiver else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let snapshot = canned::task_result(&canned::task(id, state::WORKING, None));
    let snapshot = Bytes::from(canned::sse_event(None, &snapshot));
    let events = futures::stream::unfold(receiver, |mut receiver| async move {
        loop {
            match receiver.recv().await {
                Ok(event) => return Some((event, receiver)),
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    let stream = futures::stream::once(async move { snapshot })
        .chain(events)
        .map(Ok::<_, Infallible>);
    sse_response(Body::from_stream(stream))
}

/// Registers a new fan-out task, starts its events, and returns its WORKING snapshot.
fn start_fanout(bare: &Arc<Bare>) -> Bytes {
    let number = bare.next_task.fetch_add(1, Ordering::Relaxed);
    let id = format!("00000000-0000-4000-8000-{number:012}");
    let (sender, _) = broadcast::channel(bare.fanout_lines + 8);
    bare.tasks
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id.clone(), sender.clone());
    let answer = canned::task_result(&canned::task(&id, state::WORKING, None));
    tokio::spawn(run_fanout(Arc::clone(bare), id, sender));
    Bytes::from(answer)
}

/// The fan-out task: what `a2a serve --agent exec -- lines --count N --every-ms E
/// --delay-ms D` streams, sent to every subscriber; closes the streams at the end.
async fn run_fanout(bare: Arc<Bare>, id: String, sender: broadcast::Sender<Bytes>) {
    tokio::time::sleep(bare.fanout_delay).await;
    let lines = bare.fanout_lines;
    let mut ticks = tokio::time::interval(bare.fanout_every);
    for line in 1..=lines {
        ticks.tick().await;
        let event = canned::line_update(&id, line, lines);
        // No subscriber yet is not an error: the events are simply not seen.
        let _ = sender.send(Bytes::from(canned::sse_event(
            Some(line as u64 + 2),
            &event,
        )));
    }
    let done = canned::status_update(&id, state::COMPLETED);
    let _ = sender.send(Bytes::from(canned::sse_event(
        Some(lines as u64 + 3),
        &done,
    )));
    // Dropping the last sender ends every subscriber's stream after the final event.
    bare.tasks
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&id);
}

fn json(body: Bytes) -> Response {
    ([(CONTENT_TYPE, "application/json")], body).into_response()
}

fn sse(events: Vec<Bytes>) -> Response {
    sse_response(Body::from_stream(futures::stream::iter(
        events.into_iter().map(Ok::<_, Infallible>),
    )))
}

fn sse_response(body: Body) -> Response {
    (
        [
            (CONTENT_TYPE, "text/event-stream"),
            (CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}
