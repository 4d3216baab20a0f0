//! `sendload`: the store benchmark's client (`bench/stores.sh`). For `--seconds`, keeps
//! `--concurrency` workers POSTing a blocking JSON-RPC `SendMessage` to `--url` over
//! kept-alive connections, each waiting for its answer before sending the next (requests
//! started before the deadline are finished and counted). Every message has a fresh
//! `messageId`, so every request creates a task. A request counts as completed when the
//! answer is a task in `TASK_STATE_COMPLETED` with at least one artifact, which is what the
//! built-in `echo` agent answers. Writes a JSON summary to `--out`: completed tasks per
//! second over the whole run, latency (p50, p99) of the completed requests, and failures.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use a2a_bench::batch::{self, Limit};
use anyhow::{Context as _, bail};
use clap::Parser;
use reqwest::header::CONTENT_TYPE;
use serde_json::Value;

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
    /// One request fails after this many seconds.
    #[arg(long, default_value_t = 10)]
    request_timeout_s: u64,
    /// The whole run fails after this many seconds.
    #[arg(long, default_value_t = 120)]
    timeout_s: u64,
}

/// How one request went.
#[derive(Debug)]
struct Outcome {
    elapsed: Duration,
    error: Option<String>,
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
        client: a2a_bench::http_client(args.concurrency)?,
        url: args.url.clone(),
        // As a JSON string, quotes included, ready for the request body.
        text: serde_json::to_string(&args.text)?,
        run_id: format!("{}-{}", std::process::id(), started.as_nanos()),
        request_timeout: Duration::from_secs(args.request_timeout_s),
    });
    let next = Arc::new(AtomicUsize::new(0));
    let run = async {
        let warmup = run_batch(&target, &next, args.concurrency, Limit::Count(args.warmup)).await;
        if let Some(error) = warmup.iter().find_map(|outcome| outcome.error.as_ref()) {
            bail!("a warm-up request failed: {error}");
        }
        let start = Instant::now();
        let deadline = start + Duration::from_secs_f64(args.seconds);
        next.store(0, Ordering::Relaxed);
        let outcomes = run_batch(&target, &next, args.concurrency, Limit::Until(deadline)).await;
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

/// Sends requests, `concurrency` at a time, until `limit`. `next` numbers the requests.
async fn run_batch(
    target: &Arc<Target>,
    next: &Arc<AtomicUsize>,
    concurrency: usize,
    limit: Limit,
) -> Vec<Outcome> {
    let target = Arc::clone(target);
    let request = move |number| {
        let target = Arc::clone(&target);
        async move {
            let start = Instant::now();
            let error = send(&target, number).await.err();
            Outcome {
                elapsed: start.elapsed(),
                error: error.map(|error| format!("{error:#}")),
            }
        }
    };
    let panicked = |error| Outcome {
        elapsed: Duration::ZERO,
        error: Some(error),
    };
    batch::run_batch(concurrency, next, limit, request, panicked).await
}

/// One SendMessage; `Ok` when the answer is a completed task with an artifact.
async fn send(target: &Target, number: usize) -> anyhow::Result<()> {
    let body = request_body(&target.run_id, &target.text, number);
    let response = target
        .client
        .post(&target.url)
        .header(a2a_bench::VERSION_HEADER.0, a2a_bench::VERSION_HEADER.1)
        .header(CONTENT_TYPE, "application/json")
        .timeout(target.request_timeout)
        .body(body)
        .send()
        .await?;
    let status = response.status();
    let bytes = response.bytes().await?;
    if !status.is_success() {
        bail!("HTTP {status}: {}", String::from_utf8_lossy(&bytes));
    }
    check_answer(&bytes)
}

/// The JSON-RPC SendMessage request number `number`, with the message id
/// `bench-RUN_ID-NUMBER`; `text` is already a JSON string.
fn request_body(run_id: &str, text: &str, number: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{number},"method":"SendMessage","params":{{"message":{{"messageId":"bench-{run_id}-{number}","role":"ROLE_USER","parts":[{{"text":{text}}}]}}}}}}"#
    )
}

/// Whether a JSON-RPC SendMessage answer is a completed task with an artifact.
fn check_answer(bytes: &[u8]) -> anyhow::Result<()> {
    let answer: Value = serde_json::from_slice(bytes).context("the answer is not JSON")?;
    if let Some(error) = answer.get("error") {
        bail!("JSON-RPC error: {error}");
    }
    let Some(task) = answer.pointer("/result/task") else {
        bail!("the result is not a task: {answer}");
    };
    let state = task.pointer("/status/state").and_then(Value::as_str);
    if state != Some(a2a_bench::canned::state::COMPLETED) {
        bail!("the task is {}", state.unwrap_or("without a state"));
    }
    let artifacts = task
        .get("artifacts")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if artifacts == 0 {
        bail!("the completed task has no artifact");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_is_a_send_message() -> anyhow::Result<()> {
        let text = serde_json::to_string("say \"hi\"")?;
        let body: Value = serde_json::from_str(&request_body("7-1", &text, 3))?;
        assert_eq!(body["method"], "SendMessage");
        assert_eq!(body["id"], 3);
        assert_eq!(body["params"]["message"]["messageId"], "bench-7-1-3");
        assert_eq!(body["params"]["message"]["parts"][0]["text"], "say \"hi\"");
        Ok(())
    }

    #[test]
    fn the_echo_answer_passes() {
        let answer = a2a_bench::canned::send_message_jsonrpc();
        assert!(check_answer(answer.as_bytes()).is_ok());
    }

    #[test]
    fn other_answers_fail() {
        let working = a2a_bench::canned::jsonrpc_result(&a2a_bench::canned::task_result(
            &a2a_bench::canned::task("t", a2a_bench::canned::state::WORKING, None),
        ));
        let no_artifact = a2a_bench::canned::jsonrpc_result(&a2a_bench::canned::task_result(
            &a2a_bench::canned::task("t", a2a_bench::canned::state::COMPLETED, None),
        ));
        let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}"#;
        for answer in [working.as_str(), no_artifact.as_str(), error, "not json"] {
            assert!(check_answer(answer.as_bytes()).is_err(), "{answer}");
        }
    }
}
