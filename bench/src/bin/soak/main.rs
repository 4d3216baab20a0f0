//! `soak`: the soak's load driver (`bench/soak.sh`). Against one `a2a serve --agent
//! conformance --push-notifications --allow-local-webhooks`, runs a mix of operations for
//! `--seconds` (see [`ops`]: blocking sends, streaming sends, subscriptions to running
//! tasks, `ListTasks`, and sends with a push config naming a webhook this driver serves on
//! 127.0.0.1). With `--rate R` it starts R operations a second whatever the answers take
//! (open loop; more than `--max-in-flight` at once are not started and count as
//! `overload` errors); with `--rate 0` it keeps `--concurrency` operations in flight
//! (closed loop: the calibration, whose operations per second are the server's capacity).
//!
//! Every `--sample-s` it writes a sample to `--samples` (JSON lines) and `--csv`: the
//! interval's operations, errors (by kind in the JSON), p50/p99/max latency of its
//! successful operations, push deliveries received, and the server's VmRSS, open
//! descriptors (`--server-pid`) and task-store size (`--store-size`, a shell command that
//! prints bytes). At the end it waits for running operations and owed pushes (up to
//! `--push-grace-s`) and writes a JSON summary to `--out`. An error is any failed
//! operation or subscription, or a push whose completion was not delivered within
//! `--push-grace-s` of its send.

mod ops;
mod probe;
mod samples;
mod tally;
mod webhook;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use clap::Parser;

use crate::ops::Soak;
use crate::samples::{Moment, Samples};
use crate::tally::Tally;
use crate::webhook::Pushes;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Flags of `soak`.
#[derive(Debug, Parser)]
#[command(about = "Runs the soak's mix of operations against one server and samples it")]
struct Args {
    /// The JSON-RPC endpoint, e.g. http://127.0.0.1:8080/.
    #[arg(long)]
    url: String,
    /// Operations started per second; 0 = closed loop at --concurrency.
    #[arg(long, default_value_t = 0.0)]
    rate: f64,
    /// Closed loop: operations in flight.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// Open loop: the most operations in flight; more are not started (`overload` errors).
    #[arg(long, default_value_t = 4096)]
    max_in_flight: usize,
    /// How long to run, seconds.
    #[arg(long, default_value_t = 60.0)]
    seconds: f64,
    /// Seconds between two samples.
    #[arg(long, default_value_t = 30.0)]
    sample_s: f64,
    /// The samples, JSON lines.
    #[arg(long)]
    samples: PathBuf,
    /// The samples, CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// The summary, JSON.
    #[arg(long)]
    out: PathBuf,
    /// The server's process id, for its VmRSS and open descriptors.
    #[arg(long)]
    server_pid: Option<u32>,
    /// A shell command printing the task store's size in bytes.
    #[arg(long)]
    store_size: Option<String>,
    /// One operation fails after this many seconds.
    #[arg(long, default_value_t = 30)]
    request_timeout_s: u64,
    /// A push whose completion is not delivered this many seconds after its send is missing.
    #[arg(long, default_value_t = 60)]
    push_grace_s: u64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("the clock is before 1970")?;
    let tally = Arc::new(Tally::default());
    let pushes = Arc::new(Pushes::default());
    let hook = webhook::serve(Arc::clone(&pushes), Arc::clone(&tally)).await?;
    let soak = Arc::new(Soak {
        client: a2a_bench::http_client(args.concurrency.max(256))?,
        url: args.url.clone(),
        hook,
        run_id: format!("{}-{}", std::process::id(), started.as_nanos()),
        timeout: Duration::from_secs(args.request_timeout_s),
        tally: Arc::clone(&tally),
        pushes: Arc::clone(&pushes),
        background: AtomicUsize::new(0),
    });
    let mut samples = Samples::create(
        &args.samples,
        args.csv.as_deref(),
        args.server_pid,
        args.store_size.clone(),
    )?;
    let grace = Duration::from_secs(args.push_grace_s);
    let in_flight = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let moment = |soak: &Soak| Moment {
        elapsed_s: start.elapsed().as_secs_f64(),
        in_flight: in_flight.load(Ordering::SeqCst) + soak.background.load(Ordering::SeqCst),
        pushes_pending: soak.pushes.pending(),
    };

    let load = tokio::spawn(drive(
        Arc::clone(&soak),
        Arc::clone(&in_flight),
        args.rate,
        args.concurrency,
        args.max_in_flight,
        start + Duration::from_secs_f64(args.seconds),
    ));
    let mut ticks = tokio::time::interval(Duration::from_secs_f64(args.sample_s));
    ticks.tick().await;
    let mut sweeps = tokio::time::interval(Duration::from_secs(1));
    while !load.is_finished() {
        tokio::select! {
            _ = ticks.tick() => samples.write(&tally.take(), moment(&soak))?,
            _ = sweeps.tick() => pushes.expire(grace, &tally),
        }
    }
    let started_ops = load.await.context("the load stopped")?;
    let wall = start.elapsed();

    // Let the last operations, subscriptions and deliveries finish.
    let drain_until = Instant::now() + grace;
    while Instant::now() < drain_until && (moment(&soak).in_flight > 0 || pushes.pending() > 0) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        pushes.expire(grace, &tally);
    }
    pushes.expire(Duration::ZERO, &tally);
    samples.write(&tally.take(), moment(&soak))?;

    let wall_s = wall.as_secs_f64();
    let summary = serde_json::json!({
        "rate": args.rate,
        "concurrency": args.concurrency,
        "started": started_ops,
        "requests": samples.requests,
        "errors": samples.errors,
        "pushes": samples.pushes,
        "wall_s": wall_s,
        "ops_per_s": samples.requests as f64 / wall_s,
    });
    std::fs::write(&args.out, serde_json::to_vec_pretty(&summary)?)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "soak: {} operations in {wall_s:.0} s ({:.0}/s), {} errors, {} push deliveries",
        samples.requests,
        samples.requests as f64 / wall_s,
        samples.errors,
        samples.pushes,
    );
    Ok(())
}

/// Starts operations until `deadline`: `rate` a second (open loop), or on `concurrency`
/// workers when `rate` is 0; then waits for those still running. Returns how many started.
async fn drive(
    soak: Arc<Soak>,
    in_flight: Arc<AtomicUsize>,
    rate: f64,
    concurrency: usize,
    max_in_flight: usize,
    deadline: Instant,
) -> usize {
    let next = Arc::new(AtomicUsize::new(0));
    if rate <= 0.0 {
        let mut workers = tokio::task::JoinSet::new();
        for _ in 0..concurrency.max(1) {
            let (soak, next, in_flight) =
                (Arc::clone(&soak), Arc::clone(&next), Arc::clone(&in_flight));
            workers.spawn(async move {
                while Instant::now() < deadline {
                    let number = next.fetch_add(1, Ordering::Relaxed);
                    in_flight.fetch_add(1, Ordering::SeqCst);
                    ops::run(Arc::clone(&soak), number).await;
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                }
            });
        }
        while workers.join_next().await.is_some() {}
    } else {
        let start = Instant::now();
        let mut ticks = tokio::time::interval(Duration::from_millis(10));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut started = 0usize;
        while Instant::now() < deadline {
            ticks.tick().await;
            let due = (start.elapsed().as_secs_f64() * rate) as usize;
            while started < due {
                let number = started;
                started += 1;
                if in_flight.load(Ordering::SeqCst) >= max_in_flight {
                    let error = anyhow::anyhow!("{max_in_flight} operations already in flight");
                    soak.tally.error("overload", &error);
                    continue;
                }
                in_flight.fetch_add(1, Ordering::SeqCst);
                let (soak, in_flight) = (Arc::clone(&soak), Arc::clone(&in_flight));
                tokio::spawn(async move {
                    ops::run(soak, number).await;
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                });
            }
        }
        next.store(started, Ordering::SeqCst);
        while in_flight.load(Ordering::SeqCst) > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    next.load(Ordering::SeqCst)
}
