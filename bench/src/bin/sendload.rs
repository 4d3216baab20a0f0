//! `sendload`: the store benchmark's client (`bench/stores.sh`). For `--seconds`, keeps
//! `--concurrency` workers POSTing a blocking JSON-RPC `SendMessage` to `--url` over
//! kept-alive connections, each waiting for its answer before sending the next (requests
//! started before the deadline are finished and counted). Every message has a fresh
//! `messageId`, so every request creates a task. A request counts as completed when the
//! answer is a task in `TASK_STATE_COMPLETED` with at least one artifact, which is what the
//! built-in `echo` agent answers. Writes a JSON summary to `--out`: completed tasks per
//! second over the whole run, latency (p50, p99) of the completed requests, and failures.
//! `--header 'Name: value'` adds a header to every request (a credential, for `auth.sh`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use a2a_bench::batch::{self, Limit};
use a2a_bench::jsonrpc;
use anyhow::{Context as _, bail};
use clap::Parser;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

// The client shares the machine's cores with the server it measures: the lighter it is, the
// less it takes from the figure. glibc's allocator was about a fifth of its CPU time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Flags of `sendload`.
#[derive(Debug, Parser)]
#[command(about = "Sends blocking SendMessage requests and measures completed tasks/s")]
struct Args {
    /// The JSON-RPC endpoint, e.g. http://127.0.0.1:8080/.
    #[arg(long)]
    url: String,
    /// Requests in flight at once (one kept-alive connection each).
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// How long to keep sending, seconds.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Requests sent (and not counted) before, to open connections and warm up.
    #[arg(long, default_value_t = 1000)]
    warmup: usize,
    /// The text of every message.
    #[arg(long, default_value = "hi")]
    text: String,
    /// Where the JSON summary goes.
    #[arg(long)]
    out: PathBuf,
    /// A header sent with every request, as `Name: value` (e.g. `Authorization: Bearer …`);
    /// may be repeated.
    #[arg(long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    headers: Vec<(HeaderName, HeaderValue)>,
    /// One request fails after this many seconds.
    #[arg(long, default_value_t = 10)]
    request_timeout_s: u64,
    /// The whole run fails after this many seconds.
    #[arg(long, default_value_t = 120)]
    timeout_s: u64,
}

/// What every request shares.
#[derive(Debug)]
struct Target {
    client: reqwest::Client,
    url: String,
    /// The message text as a JSON string.
    text: String,
    /// Makes message ids unique across runs against one database.
    run_id: String,
    request_timeout: Duration,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("the clock is before 1970")?;
    let target = Arc::new(Target {
        client: client(args.concurrency, &args.headers)?,
        url: args.url.clone(),
        // As a JSON string, quotes included, ready for the request body.
        text: serde_json::to_string(&args.text)?,
        run_id: format!("{}-{}", std::process::id(), started.as_nanos()),
        request_timeout: Duration::from_secs(args.request_timeout_s),
    });
    let next = Arc::new(AtomicUsize::new(0));
    let run = async {
        let warmup = batch::run_timed_on(
            &target,
            args.concurrency,
            &next,
            Limit::Count(args.warmup),
            send,
        )
        .await;
        if let Some(error) = warmup.iter().find_map(|outcome| outcome.error.as_ref()) {
            bail!("a warm-up request failed: {error}");
        }
        let start = Instant::now();
        let deadline = start + Duration::from_secs_f64(args.seconds);
        next.store(0, Ordering::Relaxed);
        let outcomes = batch::run_timed_on(
            &target,
            args.concurrency,
            &next,
            Limit::Until(deadline),
            send,
        )
        .await;
        Ok((start.elapsed(), outcomes))
    };
    let (wall, outcomes) = tokio::time::timeout(Duration::from_secs(args.timeout_s), run)
        .await
        .context("the requests did not finish in time")??;

    let mut times: Vec<f64> = outcomes
        .iter()
        .filter(|o| o.error.is_none())
        .map(|o| o.elapsed.as_secs_f64() * 1000.0)
        .collect();
    times.sort_by(f64::total_cmp);
    let completed = times.len();
    let failed = outcomes.len() - completed;
    let wall_s = wall.as_secs_f64();
    let first_error = outcomes.iter().find_map(|o| o.error.clone());
    let summary = serde_json::json!({
        "requests": outcomes.len(),
        "completed": completed,
        "failed": failed,
        "first_error": first_error,
        "concurrency": args.concurrency,
        "warmup": args.warmup,
        "wall_s": wall_s,
        "tasks_per_s": completed as f64 / wall_s,
        "latency_ms_p50": a2a_bench::percentile(&times, 50.0),
        "latency_ms_p99": a2a_bench::percentile(&times, 99.0),
        "latency_ms_max": times.last().copied().unwrap_or(0.0),
    });
    std::fs::write(&args.out, serde_json::to_vec_pretty(&summary)?)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "sendload: {completed} of {} completed in {wall_s:.2} s ({:.0} tasks/s), {failed} failed",
        outcomes.len(),
        completed as f64 / wall_s,
    );
    if let Some(error) = first_error {
        eprintln!("sendload: first failure: {error}");
    }
    Ok(())
}

/// `a2a_bench::http_client`, sending `headers` with every request when there are any.
fn client(idle: usize, headers: &[(HeaderName, HeaderValue)]) -> reqwest::Result<reqwest::Client> {
    if headers.is_empty() {
        return a2a_bench::http_client(idle);
    }
    let headers: HeaderMap = headers.iter().cloned().collect();
    reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(idle)
        .default_headers(headers)
        .build()
}

/// A `--header` value: `Name: value`.
fn parse_header(text: &str) -> Result<(HeaderName, HeaderValue), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| "expected `Name: value`".to_owned())?;
    let name = HeaderName::from_bytes(name.trim().as_bytes())
        .map_err(|_| format!("`{}` is not a header name", name.trim()))?;
    let value = HeaderValue::from_str(value.trim())
        .map_err(|_| "the value is not a valid header value".to_owned())?;
    Ok((name, value))
}

/// One SendMessage; `Ok` when the answer is a completed task with an artifact. Its message
/// id is `bench-RUN_ID-NUMBER`.
async fn send(target: Arc<Target>, number: usize) -> anyhow::Result<()> {
    let message_id = format!("bench-{}-{number}", target.run_id);
    let body = jsonrpc::send_message_body(number, &message_id, &target.text);
    jsonrpc::send_message(&target.client, &target.url, body, target.request_timeout).await
}
