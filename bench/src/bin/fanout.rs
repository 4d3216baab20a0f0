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
//! a few seconds before its first line); `late` counts subscribers whose snapshot arrived
//! after the first event had been delivered elsewhere.
//!
//! With `--server-pid`, it also reads the server's resident memory (`VmRSS` in
//! `/proc/PID/status`) at the moment the last subscriber receives its snapshot, when every
//! subscriber is in and none has seen the task end (`server_rss_kib_all_subscribed`; null
//! when a subscriber saw the end first).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
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
    /// The server's process id, to read its resident memory when every subscriber is in.
    #[arg(long)]
    server_pid: Option<u32>,
}

/// What the subscribers share to catch the moment when all of them are in.
#[derive(Debug)]
struct Census {
    /// Subscribers that received their snapshot.
    subscribed: AtomicUsize,
    /// Whether a subscriber has seen the final event.
    ended: AtomicBool,
    subscribers: usize,
    server_pid: Option<u32>,
    /// The server's VmRSS (KiB) when the last snapshot arrived and no subscriber had seen
    /// the end.
    rss_kib: Mutex<Option<u64>>,
}

impl Census {
    /// Notes one more subscriber in; the last one reads the server's memory.
    fn subscribed(&self) {
        let count = self.subscribed.fetch_add(1, Ordering::SeqCst) + 1;
        if count != self.subscribers || self.ended.load(Ordering::SeqCst) {
            return;
        }
        if let Some(pid) = self.server_pid {
            let rss = rss_kib(pid);
            *self.rss_kib.lock().unwrap_or_else(PoisonError::into_inner) = rss;
        }
    }
}

/// `VmRSS` of process `pid`, in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
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
    let census = Arc::new(Census {
        subscribed: AtomicUsize::new(0),
        ended: AtomicBool::new(false),
        subscribers: args.subscribers,
        server_pid: args.server_pid,
        rss_kib: Mutex::new(None),
    });
    let run = async {
        let task_id = start_task(&client, &url).await?;
        let start = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..args.subscribers {
            let client = client.clone();
            let target = format!("{url}/tasks/{task_id}:subscribe");
            let census = Arc::clone(&census);
            set.spawn(async move { subscribe(&client, &target, start, &census).await });
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
        "server_rss_kib_all_subscribed": *census.rss_kib.lock().unwrap_or_else(PoisonError::into_inner),
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

async fn subscribe(
    client: &reqwest::Client,
    target: &str,
    start: Instant,
    census: &Census,
) -> Subscriber {
    let mut seen = Subscriber::default();
    if let Err(error) = read_subscription(client, target, start, census, &mut seen).await {
        seen.error = Some(format!("{error:#}"));
    }
    seen
}

async fn read_subscription(
    client: &reqwest::Client,
    target: &str,
    start: Instant,
    census: &Census,
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
        if seen.snapshot.is_none() {
            seen.snapshot = Some(now);
            census.subscribed();
        }
        if events >= 2 {
            seen.first_update.get_or_insert(now);
        }
        if seen.terminal.is_none() && counter.terminal().is_some() {
            seen.terminal = counter.terminal();
            seen.final_event = Some(now);
            census.ended.store(true, Ordering::SeqCst);
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
