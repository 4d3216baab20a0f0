//! `streams`: the stream figure's client. For `--seconds`, keeps `--concurrency` JSON-RPC
//! `SendStreamingMessage` streams (`POST /`) open over kept-alive connections, each read to
//! its end before the next one starts on that connection (streams started before the
//! deadline are finished and counted). Every message is `--words` words (see
//! `canned::stream_text`), which the echo agent streams back one artifact chunk per word.
//! Writes a JSON summary to `--out`: events per second over the whole run, per-stream time
//! and first-event time (p50, p99), streams per second, failures, and the warm-up streams
//! (for figures per stream or per chunk that count the warm-up). A stream counts as done
//! when it ends after an event naming `TASK_STATE_COMPLETED`.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

use a2a_bench::batch::{self, Limit};
use a2a_bench::canned;
use a2a_bench::sse::{self, StreamOutcome};
use anyhow::{Context as _, bail};
use clap::Parser;

/// Flags of `streams`.
#[derive(Debug, Parser)]
#[command(about = "Opens SendStreamingMessage streams and measures events/s")]
struct Args {
    /// The JSON-RPC endpoint, e.g. http://127.0.0.1:8080/.
    #[arg(long)]
    url: String,
    /// Words in every message: the echo agent answers with as many artifact chunks.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..))]
    words: u16,
    /// Streams open at once.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// How long to keep starting streams, seconds.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Streams run (and not counted) before, to open connections and warm up.
    #[arg(long, default_value_t = 32)]
    warmup: usize,
    /// Where the JSON summary goes.
    #[arg(long)]
    out: PathBuf,
    /// The whole run fails after this many seconds.
    #[arg(long, default_value_t = 60)]
    timeout_s: u64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let client = a2a_bench::http_client(args.concurrency)?;
    let text = Arc::<str>::from(canned::stream_text(usize::from(args.words)));
    let run = async {
        let warmup = run_batch(
            &client,
            &args.url,
            &text,
            args.concurrency,
            Limit::Count(args.warmup),
        )
        .await;
        if let Some(error) = warmup.iter().find_map(|outcome| outcome.error.as_ref()) {
            bail!("a warm-up stream failed: {error}");
        }
        let start = Instant::now();
        let deadline = start + Duration::from_secs_f64(args.seconds);
        let outcomes = run_batch(
            &client,
            &args.url,
            &text,
            args.concurrency,
            Limit::Until(deadline),
        )
        .await;
        Ok((start.elapsed(), warmup.len(), outcomes))
    };
    let (wall, warmup_streams, outcomes) =
        tokio::time::timeout(Duration::from_secs(args.timeout_s), run)
            .await
            .context("the streams did not finish in time")??;

    let done: Vec<&StreamOutcome> = outcomes.iter().filter(|o| o.error.is_none()).collect();
    let mut times: Vec<f64> = done
        .iter()
        .map(|o| o.elapsed.as_secs_f64() * 1000.0)
        .collect();
    times.sort_by(f64::total_cmp);
    let mut firsts: Vec<f64> = done
        .iter()
        .filter_map(|o| o.first_event)
        .map(|first| first.as_secs_f64() * 1000.0)
        .collect();
    firsts.sort_by(f64::total_cmp);
    let events: u64 = outcomes.iter().map(|o| o.events).sum();
    let wall_s = wall.as_secs_f64();
    let first_error = outcomes.iter().find_map(|o| o.error.clone());
    let summary = serde_json::json!({
        "streams": outcomes.len(),
        "completed": done.len(),
        "failed": outcomes.len() - done.len(),
        "first_error": first_error,
        "concurrency": args.concurrency,
        "words": args.words,
        "warmup_streams": warmup_streams,
        "events": events,
        "events_per_stream_min": done.iter().map(|o| o.events).min(),
        "events_per_stream_max": done.iter().map(|o| o.events).max(),
        "wall_s": wall_s,
        "events_per_s": events as f64 / wall_s,
        "streams_per_s": done.len() as f64 / wall_s,
        "stream_ms_p50": a2a_bench::percentile(&times, 50.0),
        "stream_ms_p99": a2a_bench::percentile(&times, 99.0),
        "first_event_ms_p50": a2a_bench::percentile(&firsts, 50.0),
        "first_event_ms_p99": a2a_bench::percentile(&firsts, 99.0),
    });
    std::fs::write(&args.out, serde_json::to_vec_pretty(&summary)?)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "streams: {} of {} completed, {events} events in {wall_s:.2} s",
        done.len(),
        outcomes.len()
    );
    Ok(())
}

/// Runs streams of the message `text`, `concurrency` at a time, until `limit`.
async fn run_batch(
    client: &reqwest::Client,
    url: &str,
    text: &Arc<str>,
    concurrency: usize,
    limit: Limit,
) -> Vec<StreamOutcome> {
    let (client, url, text) = (client.clone(), Arc::<str>::from(url), Arc::clone(text));
    let stream = move |number| {
        let (client, url, text) = (client.clone(), Arc::clone(&url), Arc::clone(&text));
        async move {
            let message_id = canned::stream_message_id(number);
            sse::send_streaming_text(&client, &url, &message_id, &text).await
        }
    };
    let next = Arc::new(AtomicUsize::new(0));
    batch::run_batch(concurrency, &next, limit, stream, StreamOutcome::failed).await
}
