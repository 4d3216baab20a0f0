//! `fanout`: the fan-out figure's client. Starts one task with an HTTP+JSON SendMessage
//! (`returnImmediately`, so it answers while the task works), opens `--subscribers`
//! `SubscribeToTask` streams (`POST /tasks/{id}:subscribe`) to it at once, reads them all
//! to their end, and writes a JSON summary to `--out`:
//!
//! - `spread_ms`: from the first to the last subscriber receiving the final event;
//! - `events_per_s`: events after the snapshot, summed over subscribers, divided by the
//!   time from the first such event anywhere to the last final event;
//! - how long subscribing took, and how many subscribers saw the task complete.
//!
//! The task must stay quiet until every subscriber is in (the benchmark's command waits
//! a second before its first line); `late` counts subscribers whose snapshot arrived after
//! the first event had been delivered elsewhere.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use a2a_bench::sse::EventCounter;
use anyhow::{Context as _, bail};
use clap::Parser;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

/// Flags of `fanout`.
#[derive(Debug, Parser)]
#[command(about = "Subscribes many clients to one task and measures delivery")]
struct Args {
    /// The HTTP+JSON root, e.g. http://127.0.0.1:8080 (no trailing `/`).
    #[arg(long)]
    url: String,
    /// Subscribers to open.
    #[arg(long, default_value_t = 1000)]
    subscribers: usize,
    /// Where the JSON summary goes.
    #[arg(long)]
    out: PathBuf,
    /// The whole run fails after this many seconds.
    #[arg(long, default_value_t = 60)]
    timeout_s: u64,
}

/// What one subscriber saw, times from the start of subscribing.
#[derive(Debug, Default)]
struct Subscriber {
    /// When its first event (the task snapshot) arrived.
    snapshot: Option<Duration>,
    /// When its second event arrived.
    first_update: Option<Duration>,
    /// When the event naming the final state arrived.
    final_event: Option<Duration>,
    terminal: Option<&'static str>,
    events: u64,
    error: Option<String>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let client = a2a_bench::http_client(0)?;
    let url = args.url.trim_end_matches('/').to_owned();
    let run = async {
        let task_id = start_task(&client, &url).await?;
        let start = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..args.subscribers {
            let client = client.clone();
            let target = format!("{url}/tasks/{task_id}:subscribe");
            set.spawn(async move { subscribe(&client, &target, start).await });
        }
        let mut subscribers = Vec::with_capacity(args.subscribers);
        while let Some(joined) = set.join_next().await {
            subscribers.push(joined.unwrap_or_else(|error| Subscriber {
                error: Some(format!("a subscriber panicked: {error}")),
                ..Subscriber::default()
            }));
        }
        anyhow::Ok(subscribers)
    };
    let subscribers = tokio::time::timeout(Duration::from_secs(args.timeout_s), run)
        .await
        .context("the subscribers did not finish in time")??;

    let ms = |duration: Duration| duration.as_secs_f64() * 1000.0;
    let completed: Vec<&Subscriber> = subscribers
        .iter()
        .filter(|s| s.error.is_none() && s.terminal == Some("TASK_STATE_COMPLETED"))
        .collect();
    let finals: Vec<Duration> = completed.iter().filter_map(|s| s.final_event).collect();
    let first_final = finals.iter().min().copied().unwrap_or_default();
    let last_final = finals.iter().max().copied().unwrap_or_default();
    let first_update = subscribers.iter().filter_map(|s| s.first_update).min();
    let all_in = subscribers.iter().filter_map(|s| s.snapshot).max();
    let late = match first_update {
        Some(first) => subscribers
            .iter()
            .filter(|s| s.snapshot.is_none_or(|at| at > first))
            .count(),
        None => 0,
    };
    let updates: u64 = subscribers.iter().map(|s| s.events.saturating_sub(1)).sum();
    let window = last_final.saturating_sub(first_update.unwrap_or_default());
    let first_error = subscribers.iter().find_map(|s| s.error.clone());
    let summary = serde_json::json!({
        "subscribers": subscribers.len(),
        "completed": completed.len(),
        "first_error": first_error,
        "subscribed_all_ms": all_in.map(ms),
        "late": late,
        "first_update_ms": first_update.map(ms),
        "first_final_ms": ms(first_final),
        "last_final_ms": ms(last_final),
        "spread_ms": ms(last_final.saturating_sub(first_final)),
        "events": subscribers.iter().map(|s| s.events).sum::<u64>(),
        "events_per_subscriber_min": completed.iter().map(|s| s.events).min(),
        "events_per_subscriber_max": completed.iter().map(|s| s.events).max(),
        "events_per_s": if window.is_zero() { 0.0 } else { updates as f64 / window.as_secs_f64() },
    });
    std::fs::write(&args.out, serde_json::to_vec_pretty(&summary)?)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "fanout: {} of {} subscribers saw the task complete; spread {:.1} ms; {late} late",
        completed.len(),
        subscribers.len(),
        ms(last_final.saturating_sub(first_final)),
    );
    Ok(())
}

/// Starts the task and returns its id.
async fn start_task(client: &reqwest::Client, url: &str) -> anyhow::Result<String> {
    let body = r#"{"message":{"messageId":"bench-fanout","role":"ROLE_USER","parts":[{"text":"go"}]},"configuration":{"returnImmediately":true}}"#;
    let response = client
        .post(format!("{url}/message:send"))
        .header(a2a_bench::VERSION_HEADER.0, a2a_bench::VERSION_HEADER.1)
        .header(CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await
        .context("cannot start the task")?;
    let status = response.status();
    let text = response.text().await?;
    if !status.is_success() {
        bail!("starting the task: HTTP {status}: {text}");
    }
    let answer: serde_json::Value = serde_json::from_str(&text)?;
    let task = &answer["task"];
    match (task["id"].as_str(), task["status"]["state"].as_str()) {
        (Some(id), Some("TASK_STATE_SUBMITTED" | "TASK_STATE_WORKING")) => Ok(id.to_owned()),
        _ => bail!("starting the task: expected a running task, got {text}"),
    }
}

async fn subscribe(client: &reqwest::Client, target: &str, start: Instant) -> Subscriber {
    let mut seen = Subscriber::default();
    if let Err(error) = read_subscription(client, target, start, &mut seen).await {
        seen.error = Some(format!("{error:#}"));
    }
    seen
}

async fn read_subscription(
    client: &reqwest::Client,
    target: &str,
    start: Instant,
    seen: &mut Subscriber,
) -> anyhow::Result<()> {
    let response = client
        .post(target)
        .header(a2a_bench::VERSION_HEADER.0, a2a_bench::VERSION_HEADER.1)
        .header(ACCEPT, "text/event-stream")
        .send()
        .await?;
    let mut response = a2a_bench::successful(response).await?;
    let mut counter = EventCounter::new();
    while let Some(chunk) = response.chunk().await? {
        if counter.feed(&chunk) == 0 {
            continue;
        }
        let now = start.elapsed();
        let events = counter.events();
        seen.snapshot.get_or_insert(now);
        if events >= 2 {
            seen.first_update.get_or_insert(now);
        }
        if seen.terminal.is_none() && counter.terminal().is_some() {
            seen.terminal = counter.terminal();
            seen.final_event = Some(now);
        }
    }
    seen.events = counter.events();
    if seen.terminal.is_none() {
        bail!(
            "the stream ended after {} events without a final state",
            counter.events()
        );
    }
    Ok(())
}
