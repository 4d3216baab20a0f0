//! `grpcload`: the client of the gRPC benchmark (`bench/grpc.sh`). It measures one binding,
//! gRPC (`lf.a2a.v1.A2AService`) or JSON-RPC, in one of two modes, the same way for both:
//!
//! - `--mode unary`: for `--seconds`, `--concurrency` workers each send a blocking
//!   `SendMessage` with a fresh message id and wait for its answer before sending the next
//!   (requests started before the deadline are finished and counted). A request counts as
//!   completed when the answer is a task in `TASK_STATE_COMPLETED` with an artifact, which
//!   is what the built-in `echo` agent answers.
//! - `--mode stream`: the same with `SendStreamingMessage`, each stream read to its end. A
//!   stream counts as done when it ends after an event naming `TASK_STATE_COMPLETED`.
//!
//! JSON-RPC goes over reqwest's kept-alive HTTP/1.1 connections, one per request in flight.
//! gRPC goes over `--connections` HTTP/2 connections (tonic channels, each connected before
//! the run), request number N on connection N mod `--connections`; every call carries the
//! metadata `a2a-version: 1.0`. Both sides give up on a request after `--request-timeout-s`
//! on the client (no deadline is sent to the server).
//!
//! Writes a JSON summary to `--out`: requests per second and latency (p50, p99) for unary
//! calls; streams per second, events per second, first-event latency and stream time (p50,
//! p99) for streams; and failures.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use a2a_bench::batch::{self, Limit, Outcome};
use a2a_bench::jsonrpc;
use a2a_bench::sse::{self, StreamOutcome};
use a2a_grpc::proto;
use a2a_grpc::proto::a2a_service_client::A2aServiceClient;
use anyhow::{Context as _, bail};
use clap::{Parser, ValueEnum};
use serde_json::json;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};

// The client shares the machine's cores with the server it measures: the lighter it is, the
// less it takes from the figure (as in `sendload`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Flags of `grpcload`.
#[derive(Debug, Parser)]
#[command(about = "Measures SendMessage or SendStreamingMessage over gRPC or JSON-RPC")]
struct Args {
    /// Which binding to measure.
    #[arg(long, value_enum)]
    binding: Binding,
    /// Blocking calls or streams.
    #[arg(long, value_enum)]
    mode: Mode,
    /// The JSON-RPC endpoint (`http://HOST:PORT/`) or the gRPC address
    /// (`http://HOST:PORT`, HTTP/2 in the clear).
    #[arg(long)]
    url: String,
    /// Requests (or streams) in flight at once.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// gRPC only: the HTTP/2 connections the requests are spread over.
    #[arg(long, default_value_t = 64)]
    connections: usize,
    /// How long to keep starting requests, seconds.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Requests sent (and not counted) before, to open connections and warm up.
    #[arg(long, default_value_t = 1000)]
    warmup: usize,
    /// The text of every message (unary mode; streams send `hi`).
    #[arg(long, default_value = "hi")]
    text: String,
    /// Where the JSON summary goes.
    #[arg(long)]
    out: PathBuf,
    /// One unary request fails after this many seconds.
    #[arg(long, default_value_t = 10)]
    request_timeout_s: u64,
    /// The whole run fails after this many seconds.
    #[arg(long, default_value_t = 120)]
    timeout_s: u64,
}

/// The binding a run measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Binding {
    Grpc,
    Jsonrpc,
}

/// What a run measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    Unary,
    Stream,
}

/// The connections of one binding.
#[derive(Debug)]
enum Wire {
    Grpc(Vec<A2aServiceClient<Channel>>),
    Jsonrpc(reqwest::Client),
}

/// What every request of a run shares.
#[derive(Debug)]
struct Target {
    wire: Wire,
    url: String,
    /// The message text.
    text: String,
    /// The message text as a JSON string, quotes included.
    text_json: String,
    /// Makes message ids unique across runs against one server.
    run_id: String,
    request_timeout: Duration,
}

impl Target {
    fn message_id(&self, number: usize) -> String {
        format!("bench-{}-{number}", self.run_id)
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("the clock is before 1970")?;
    let wire = match args.binding {
        Binding::Grpc => Wire::Grpc(grpc_clients(&args.url, args.connections).await?),
        Binding::Jsonrpc => Wire::Jsonrpc(a2a_bench::http_client(args.concurrency)?),
    };
    let target = Arc::new(Target {
        wire,
        url: args.url.clone(),
        text: args.text.clone(),
        text_json: serde_json::to_string(&args.text)?,
        run_id: format!("{}-{}", std::process::id(), started.as_nanos()),
        request_timeout: Duration::from_secs(args.request_timeout_s),
    });
    let run_timeout = Duration::from_secs(args.timeout_s);
    let summary = match args.mode {
        Mode::Unary => {
            let (wall, outcomes) = tokio::time::timeout(run_timeout, unary_run(&target, &args))
                .await
                .context("the requests did not finish in time")??;
            unary_summary(&args, wall, &outcomes)
        }
        Mode::Stream => {
            let (wall, outcomes) = tokio::time::timeout(run_timeout, stream_run(&target, &args))
                .await
                .context("the streams did not finish in time")??;
            stream_summary(&args, wall, &outcomes)
        }
    };
    std::fs::write(&args.out, serde_json::to_vec_pretty(&summary)?)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "grpcload: {:?} {:?}: {} of {} completed in {:.2} s, {} failed",
        args.binding,
        args.mode,
        summary["completed"],
        summary["requests"],
        summary["wall_s"].as_f64().unwrap_or_default(),
        summary["failed"],
    );
    if let Some(error) = summary["first_error"].as_str() {
        eprintln!("grpcload: first failure: {error}");
    }
    Ok(())
}

/// `connections` gRPC clients to `url`, each on a channel of its own, connected now so that
/// each is one HTTP/2 connection open before the run.
async fn grpc_clients(
    url: &str,
    connections: usize,
) -> anyhow::Result<Vec<A2aServiceClient<Channel>>> {
    let endpoint = Endpoint::from_shared(url.to_owned())
        .with_context(|| format!("invalid gRPC address {url}"))?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(5));
    let mut clients = Vec::with_capacity(connections.max(1));
    for _ in 0..connections.max(1) {
        let channel = endpoint
            .connect()
            .await
            .with_context(|| format!("cannot connect to {url}"))?;
        clients.push(A2aServiceClient::new(channel));
    }
    Ok(clients)
}

/// The warm-up, then the measured run; the run's wall time and outcomes.
async fn unary_run(target: &Arc<Target>, args: &Args) -> anyhow::Result<(Duration, Vec<Outcome>)> {
    let next = Arc::new(AtomicUsize::new(0));
    let warmup = batch::run_timed_on(
        target,
        args.concurrency,
        &next,
        Limit::Count(args.warmup),
        send,
    )
    .await;
    if let Some(error) = warmup.iter().find_map(|outcome| outcome.error.as_ref()) {
        bail!("a warm-up request failed: {error}");
    }
    // Numbers go on from the warm-up's, so every message id stays fresh.
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(args.seconds);
    let outcomes = batch::run_timed_on(
        target,
        args.concurrency,
        &next,
        Limit::Until(deadline),
        send,
    )
    .await;
    Ok((start.elapsed(), outcomes))
}

/// One SendMessage; `Ok` when the answer is a completed task with an artifact.
async fn send(target: Arc<Target>, number: usize) -> anyhow::Result<()> {
    let message_id = target.message_id(number);
    match &target.wire {
        Wire::Jsonrpc(client) => {
            let body = jsonrpc::send_message_body(number, &message_id, &target.text_json);
            jsonrpc::send_message(client, &target.url, body, target.request_timeout).await
        }
        Wire::Grpc(clients) => {
            let mut client = clients[number % clients.len()].clone();
            let request = grpc_request(message_id, target.text.clone());
            let answer = tokio::time::timeout(target.request_timeout, client.send_message(request))
                .await
                .context("no answer in time")??;
            check_grpc_answer(answer.into_inner())
        }
    }
}

/// A SendMessage request over gRPC: the message `text` from the user, with the A2A version
/// in the metadata.
fn grpc_request(message_id: String, text: String) -> tonic::Request<proto::SendMessageRequest> {
    let message = proto::Message {
        message_id,
        role: proto::Role::User.into(),
        parts: vec![proto::Part {
            content: Some(proto::part::Content::Text(text)),
            ..proto::Part::default()
        }],
        ..proto::Message::default()
    };
    let mut request = tonic::Request::new(proto::SendMessageRequest {
        message: Some(message),
        ..proto::SendMessageRequest::default()
    });
    request
        .metadata_mut()
        .insert("a2a-version", MetadataValue::from_static("1.0"));
    request
}

/// Whether a gRPC SendMessage answer is a completed task with an artifact.
fn check_grpc_answer(answer: proto::SendMessageResponse) -> anyhow::Result<()> {
    let Some(proto::send_message_response::Payload::Task(task)) = answer.payload else {
        bail!("the answer is not a task");
    };
    let state = task.status.map_or(0, |status| status.state);
    if state != i32::from(proto::TaskState::Completed) {
        bail!("the task is {}", state_name(state));
    }
    if task.artifacts.is_empty() {
        bail!("the completed task has no artifact");
    }
    Ok(())
}

/// The wire name of a task state number.
fn state_name(state: i32) -> &'static str {
    proto::TaskState::try_from(state).map_or("in an unknown state", |state| state.as_str_name())
}

/// The warm-up, then the measured run; the run's wall time and outcomes.
async fn stream_run(
    target: &Arc<Target>,
    args: &Args,
) -> anyhow::Result<(Duration, Vec<StreamOutcome>)> {
    let next = Arc::new(AtomicUsize::new(0));
    let warmup = stream_batch(target, &next, args.concurrency, Limit::Count(args.warmup)).await;
    if let Some(error) = warmup.iter().find_map(|outcome| outcome.error.as_ref()) {
        bail!("a warm-up stream failed: {error}");
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(args.seconds);
    let outcomes = stream_batch(target, &next, args.concurrency, Limit::Until(deadline)).await;
    Ok((start.elapsed(), outcomes))
}

/// Runs streams, `concurrency` at a time, until `limit`. `next` numbers the streams.
async fn stream_batch(
    target: &Arc<Target>,
    next: &Arc<AtomicUsize>,
    concurrency: usize,
    limit: Limit,
) -> Vec<StreamOutcome> {
    let target = Arc::clone(target);
    let stream = move |number| {
        let target = Arc::clone(&target);
        async move {
            let message_id = target.message_id(number);
            match &target.wire {
                Wire::Jsonrpc(client) => {
                    sse::send_streaming_message(client, &target.url, &message_id).await
                }
                Wire::Grpc(clients) => {
                    grpc_stream(&clients[number % clients.len()], message_id).await
                }
            }
        }
    };
    batch::run_batch(concurrency, next, limit, stream, StreamOutcome::failed).await
}

/// One SendStreamingMessage with the text `hi` over gRPC, read to its end.
async fn grpc_stream(client: &A2aServiceClient<Channel>, message_id: String) -> StreamOutcome {
    let start = Instant::now();
    let mut first_event = None;
    let mut events = 0;
    let mut terminal = None;
    let read = async {
        let mut stream = client
            .clone()
            .send_streaming_message(grpc_request(message_id, "hi".to_owned()))
            .await?
            .into_inner();
        while let Some(event) = stream.message().await? {
            events += 1;
            if first_event.is_none() {
                first_event = Some(Instant::now());
            }
            if terminal.is_none() {
                terminal = terminal_state(&event);
            }
        }
        anyhow::Ok(())
    }
    .await;
    StreamOutcome::ended(start, first_event, events, terminal, read)
}

/// The terminal state a stream event names, if any: a task or a status update in
/// `TASK_STATE_COMPLETED`, `FAILED`, `CANCELED` or `REJECTED`.
fn terminal_state(event: &proto::StreamResponse) -> Option<&'static str> {
    use proto::stream_response::Payload;
    let status = match event.payload.as_ref()? {
        Payload::Task(task) => task.status.as_ref()?,
        Payload::StatusUpdate(update) => update.status.as_ref()?,
        Payload::Message(_) | Payload::ArtifactUpdate(_) => return None,
    };
    match proto::TaskState::try_from(status.state).ok()? {
        state @ (proto::TaskState::Completed
        | proto::TaskState::Failed
        | proto::TaskState::Canceled
        | proto::TaskState::Rejected) => Some(state.as_str_name()),
        _ => None,
    }
}

/// Milliseconds, sorted.
fn sorted_ms(durations: impl Iterator<Item = Duration>) -> Vec<f64> {
    let mut times: Vec<f64> = durations.map(|d| d.as_secs_f64() * 1000.0).collect();
    times.sort_by(f64::total_cmp);
    times
}

fn unary_summary(args: &Args, wall: Duration, outcomes: &[Outcome]) -> serde_json::Value {
    let times = sorted_ms(
        outcomes
            .iter()
            .filter(|o| o.error.is_none())
            .map(|o| o.elapsed),
    );
    let wall_s = wall.as_secs_f64();
    json!({
        "binding": format!("{:?}", args.binding).to_lowercase(),
        "mode": "unary",
        "requests": outcomes.len(),
        "completed": times.len(),
        "failed": outcomes.len() - times.len(),
        "first_error": outcomes.iter().find_map(|o| o.error.clone()),
        "concurrency": args.concurrency,
        "connections": connections(args),
        "warmup": args.warmup,
        "wall_s": wall_s,
        "requests_per_s": times.len() as f64 / wall_s,
        "latency_ms_p50": a2a_bench::percentile(&times, 50.0),
        "latency_ms_p99": a2a_bench::percentile(&times, 99.0),
        "latency_ms_max": times.last().copied().unwrap_or(0.0),
    })
}

fn stream_summary(args: &Args, wall: Duration, outcomes: &[StreamOutcome]) -> serde_json::Value {
    let done: Vec<&StreamOutcome> = outcomes.iter().filter(|o| o.error.is_none()).collect();
    let times = sorted_ms(done.iter().map(|o| o.elapsed));
    let first = sorted_ms(done.iter().filter_map(|o| o.first_event));
    let events: u64 = outcomes.iter().map(|o| o.events).sum();
    let wall_s = wall.as_secs_f64();
    json!({
        "binding": format!("{:?}", args.binding).to_lowercase(),
        "mode": "stream",
        "requests": outcomes.len(),
        "completed": done.len(),
        "failed": outcomes.len() - done.len(),
        "first_error": outcomes.iter().find_map(|o| o.error.clone()),
        "concurrency": args.concurrency,
        "connections": connections(args),
        "warmup": args.warmup,
        "wall_s": wall_s,
        "events": events,
        "events_per_stream_min": done.iter().map(|o| o.events).min(),
        "events_per_stream_max": done.iter().map(|o| o.events).max(),
        "streams_per_s": done.len() as f64 / wall_s,
        "events_per_s": events as f64 / wall_s,
        "first_event_ms_p50": a2a_bench::percentile(&first, 50.0),
        "first_event_ms_p99": a2a_bench::percentile(&first, 99.0),
        "stream_ms_p50": a2a_bench::percentile(&times, 50.0),
        "stream_ms_p99": a2a_bench::percentile(&times, 99.0),
    })
}

/// The connections the run used: the gRPC channels, or at most one kept-alive connection
/// per JSON-RPC request in flight.
fn connections(args: &Args) -> usize {
    match args.binding {
        Binding::Grpc => args.connections.max(1),
        Binding::Jsonrpc => args.concurrency.max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(state: proto::TaskState) -> Option<proto::TaskStatus> {
        Some(proto::TaskStatus {
            state: state.into(),
            ..proto::TaskStatus::default()
        })
    }

    #[test]
    fn the_request_carries_the_version_and_the_text() {
        let request = grpc_request("m1".to_owned(), "hi".to_owned());
        assert_eq!(
            request
                .metadata()
                .get("a2a-version")
                .map(|v| v.to_str().ok()),
            Some(Some("1.0"))
        );
        let message = request.get_ref().message.clone().unwrap_or_default();
        assert_eq!(message.message_id, "m1");
        assert_eq!(message.role, i32::from(proto::Role::User));
        assert_eq!(
            message.parts[0].content,
            Some(proto::part::Content::Text("hi".to_owned()))
        );
    }

    #[test]
    fn only_a_completed_task_with_an_artifact_passes() {
        let task = |state, artifacts: usize| proto::SendMessageResponse {
            payload: Some(proto::send_message_response::Payload::Task(proto::Task {
                status: status(state),
                artifacts: vec![proto::Artifact::default(); artifacts],
                ..proto::Task::default()
            })),
        };
        assert!(check_grpc_answer(task(proto::TaskState::Completed, 1)).is_ok());
        assert!(check_grpc_answer(task(proto::TaskState::Completed, 0)).is_err());
        assert!(check_grpc_answer(task(proto::TaskState::Working, 1)).is_err());
        let message = proto::SendMessageResponse {
            payload: Some(proto::send_message_response::Payload::Message(
                proto::Message::default(),
            )),
        };
        assert!(check_grpc_answer(message).is_err());
    }

    #[test]
    fn terminal_states_end_a_stream() {
        use proto::stream_response::Payload;
        let update = |state| proto::StreamResponse {
            payload: Some(Payload::StatusUpdate(proto::TaskStatusUpdateEvent {
                status: status(state),
                ..proto::TaskStatusUpdateEvent::default()
            })),
        };
        assert_eq!(
            terminal_state(&update(proto::TaskState::Completed)),
            Some("TASK_STATE_COMPLETED")
        );
        assert_eq!(
            terminal_state(&update(proto::TaskState::Failed)),
            Some("TASK_STATE_FAILED")
        );
        assert_eq!(terminal_state(&update(proto::TaskState::Working)), None);
        let chunk = proto::StreamResponse {
            payload: Some(Payload::ArtifactUpdate(
                proto::TaskArtifactUpdateEvent::default(),
            )),
        };
        assert_eq!(terminal_state(&chunk), None);
    }
}
