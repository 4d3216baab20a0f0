//! The table's rows, read from each benchmark's results.

use std::path::Path;

use crate::results::{KIB, Oha, cpu_seconds, number, oha, reading, summary};
use crate::row::{Goal, Row};
use serde_json::Value;

/// SendMessage on both bindings: throughput, latency, server CPU per request.
pub(crate) fn send_message_rows(dir: &Path, connections: u32, rows: &mut Vec<Row>) {
    for (binding, name) in [("JSON-RPC", "jsonrpc"), ("HTTP+JSON", "rest")] {
        let side = |side: &str| {
            let run = format!("sm-{name}-{side}");
            oha(&dir.join(format!("{run}.json"))).and_then(|oha| {
                let cpu = cpu_seconds(dir, &run)?;
                Ok((oha, cpu * 1e6 / oha.requests))
            })
        };
        let (a2a, bare) = (side("a2a"), side("bare"));
        let pick = |side: &Result<(Oha, f64), String>, field: fn(&(Oha, f64)) -> f64| {
            side.as_ref().map(field).map_err(Clone::clone)
        };
        rows.push(
            Row::new(
                format!("SendMessage {binding} req/s (c={connections})"),
                pick(&a2a, |(o, _)| o.requests_per_s),
                0,
            )
            .bare(pick(&bare, |(o, _)| o.requests_per_s))
            .goal(
                Goal::RatioAtLeast(0.8),
                format!("SendMessage {binding} req/s at c={connections}, a2a / bare"),
            ),
        );
        rows.push(
            Row::new("  latency p50 (ms)", pick(&a2a, |(o, _)| o.p50_ms), 2)
                .bare(pick(&bare, |(o, _)| o.p50_ms)),
        );
        rows.push(
            Row::new("  latency p99 (ms)", pick(&a2a, |(o, _)| o.p99_ms), 2)
                .bare(pick(&bare, |(o, _)| o.p99_ms))
                .goal(
                    Goal::RatioAtMost(2.0),
                    format!("SendMessage {binding} p99 latency at c={connections}, a2a / bare"),
                ),
        );
        rows.push(
            Row::new(
                "  server CPU per request (us)",
                pick(&a2a, |(_, cpu)| *cpu),
                1,
            )
            .bare(pick(&bare, |(_, cpu)| *cpu))
            .goal(
                Goal::RatioAtMost(1.3),
                format!("SendMessage {binding} server CPU per request, a2a / bare"),
            ),
        );
    }
}

/// A `streams` summary and the server's CPU time during it, warm-up included.
#[derive(Debug)]
pub(crate) struct Streams {
    pub(crate) summary: Value,
    pub(crate) cpu_s: f64,
}

impl Streams {
    pub(crate) fn read(dir: &Path, run: &str) -> Result<Self, String> {
        let summary = summary(&dir.join(format!("{run}.json")), "completed", "streams")?;
        let cpu_s = cpu_seconds(dir, run)?;
        Ok(Self { summary, cpu_s })
    }

    pub(crate) fn field(&self, name: &str) -> Result<f64, String> {
        number(&self.summary, name)
    }

    /// Streams run, warm-up included.
    pub(crate) fn all_streams(&self) -> Result<f64, String> {
        Ok(self.field("streams")? + self.field("warmup_streams")?)
    }

    /// Server CPU µs per stream, warm-up included.
    pub(crate) fn cpu_per_stream(&self) -> Result<f64, String> {
        let streams = self.all_streams()?;
        if streams <= 0.0 {
            return Err("no streams".to_owned());
        }
        Ok(self.cpu_s * 1e6 / streams)
    }

    /// Server CPU µs per artifact chunk (one per word), warm-up included.
    pub(crate) fn cpu_per_chunk(&self) -> Result<f64, String> {
        Ok(self.cpu_per_stream()? / self.field("words")?.max(1.0))
    }
}

/// The stream figure (both servers, the main length) and the per-chunk cost (a2a, the
/// short and the long stream).
pub(crate) fn stream_rows(dir: &Path, words: &[u64], rows: &mut Vec<Row>) {
    let (main, short, long) = match words {
        [main, short, long, ..] => (*main, *short, *long),
        _ => (100, 10, 1000),
    };
    let a2a = Streams::read(dir, "streams-a2a");
    let bare = Streams::read(dir, "streams-bare");
    let concurrency = a2a
        .as_ref()
        .ok()
        .and_then(|s| s.summary["concurrency"].as_u64())
        .unwrap_or(0);
    let field = |side: &Result<Streams, String>, name: &str| {
        side.as_ref()
            .map_err(Clone::clone)
            .and_then(|s| s.field(name))
    };
    let both = |label: &str, name: &str, decimals: usize| {
        Row::new(label, field(&a2a, name), decimals).bare(field(&bare, name))
    };
    rows.push(
        Row::new(
            format!("Stream ({main} chunks, c={concurrency}) events/s"),
            field(&a2a, "events_per_s"),
            0,
        )
        .bare(field(&bare, "events_per_s"))
        .goal(
            Goal::RatioAtLeast(0.5),
            format!("stream of {main} chunks events/s, a2a / bare"),
        ),
    );
    rows.push(both("  streams/s", "streams_per_s", 0));
    rows.push(
        both("  first event p50 (ms)", "first_event_ms_p50", 2).goal(
            Goal::RatioAtMost(2.0),
            format!("stream of {main} chunks first-event p50 latency, a2a / bare"),
        ),
    );
    rows.push(both("  first event p99 (ms)", "first_event_ms_p99", 2));
    rows.push(both("  time per stream p50 (ms)", "stream_ms_p50", 1));
    rows.push(both("  time per stream p99 (ms)", "stream_ms_p99", 1));
    let per_stream = |side: &Result<Streams, String>| {
        side.as_ref()
            .map_err(Clone::clone)
            .and_then(Streams::cpu_per_stream)
    };
    rows.push(
        Row::new("  server CPU per stream (us)", per_stream(&a2a), 0).bare(per_stream(&bare)),
    );

    let short_run = Streams::read(dir, "streams-a2a-short");
    let long_run = Streams::read(dir, "streams-a2a-long");
    let per_chunk = |run: &Result<Streams, String>| {
        run.as_ref()
            .map_err(Clone::clone)
            .and_then(Streams::cpu_per_chunk)
    };
    let (short_cost, long_cost) = (per_chunk(&short_run), per_chunk(&long_run));
    let growth = match (&short_cost, &long_cost) {
        (Ok(short), Ok(long)) if *short > 0.0 => Ok(long / short),
        (Ok(_), Ok(_)) => Err("no CPU time measured on the short streams".to_owned()),
        (Err(error), _) | (_, Err(error)) => Err(error.clone()),
    };
    rows.push(Row::new(
        format!("Server CPU per chunk, {short}-chunk streams (us)"),
        short_cost,
        2,
    ));
    rows.push(Row::new(
        format!("  {long}-chunk streams (us)"),
        long_cost,
        2,
    ));
    rows.push(
        Row::new(format!("  {long}-chunk / {short}-chunk"), growth, 2).goal(
            Goal::AtMost(1.5),
            format!("server CPU per chunk, {long}-chunk / {short}-chunk stream"),
        ),
    );

    // What one more chunk costs, the cost of a stream of each length taken apart: from the
    // short streams to the main ones, and from the main ones to the long ones. Work per
    // chunk that grows with the artifact shows here undiluted by the cost of the stream.
    let marginal = |from: &Result<Streams, String>, to: &Result<Streams, String>| {
        let (from, to) = (
            from.as_ref().map_err(Clone::clone)?,
            to.as_ref().map_err(Clone::clone)?,
        );
        let chunks = to.field("words")? - from.field("words")?;
        if chunks <= 0.0 {
            return Err("the streams are not longer".to_owned());
        }
        Ok((to.cpu_per_stream()? - from.cpu_per_stream()?) / chunks)
    };
    let (low, high) = (marginal(&short_run, &a2a), marginal(&a2a, &long_run));
    let growth = match (&low, &high) {
        (Ok(low), Ok(high)) if *low > 0.0 => Ok(high / low),
        (Ok(_), Ok(_)) => Err("no marginal CPU time on the shorter streams".to_owned()),
        (Err(error), _) | (_, Err(error)) => Err(error.clone()),
    };
    rows.push(Row::new(
        format!("  one more chunk, {short}->{main} chunks (us)"),
        low,
        2,
    ));
    rows.push(Row::new(
        format!("  one more chunk, {main}->{long} chunks (us)"),
        high,
        2,
    ));
    rows.push(Row::new("  one more chunk, ratio", growth, 2));
}

/// The fan-out figure, without a goal.
pub(crate) fn fanout_rows(dir: &Path, rows: &mut Vec<Row>, notes: &mut Vec<String>) {
    let fanout_a2a = summary(&dir.join("fanout-a2a.json"), "completed", "subscribers");
    let fanout_bare = summary(&dir.join("fanout-bare.json"), "completed", "subscribers");
    let subscribers = fanout_a2a
        .as_ref()
        .ok()
        .and_then(|s| s["subscribers"].as_u64())
        .unwrap_or(0);
    let field = |side: &Result<Value, String>, name: &str| {
        side.as_ref()
            .map_err(Clone::clone)
            .and_then(|s| number(s, name))
    };
    let both = |label: String, name: &str, decimals: usize| {
        Row::new(label, field(&fanout_a2a, name), decimals).bare(field(&fanout_bare, name))
    };
    rows.push(both(
        format!("Fan-out {subscribers} subs: first->last final (ms)"),
        "spread_ms",
        1,
    ));
    rows.push(both("  events delivered/s".to_owned(), "events_per_s", 0));
    rows.push(both(
        "  time to subscribe all (ms)".to_owned(),
        "subscribed_all_ms",
        0,
    ));
    for (side, result) in [("a2a", &fanout_a2a), ("bare", &fanout_bare)] {
        if let Ok(summary) = result {
            let late = summary["late"].as_u64().unwrap_or(0);
            if late > 0 {
                notes.push(format!(
                    "fan-out ({side}): {late} subscribers joined after the first event had \
                     been delivered; their event counts are lower"
                ));
            }
        }
    }
}

/// The scale figures: resident memory with many subscribers, and with many stored tasks.
pub(crate) fn scale_rows(dir: &Path, rows: &mut Vec<Row>) {
    let subscribers = summary(
        &dir.join("scale-subscribers.json"),
        "completed",
        "subscribers",
    );
    let count = subscribers
        .as_ref()
        .ok()
        .and_then(|s| s["subscribers"].as_u64())
        .unwrap_or(0);
    let rss = subscribers.and_then(|s| {
        s["server_rss_kib_all_subscribed"]
            .as_f64()
            .map(|kib| kib / KIB)
            .ok_or_else(|| {
                "scale-subscribers.json: no VmRSS while every subscriber was in (the task \
                 ended before the last one joined: raise BENCH_SCALE_DELAY_MS)"
                    .to_owned()
            })
    });
    rows.push(
        Row::new(
            format!("Scale: VmRSS, {count} SSE subscribers (MiB)"),
            rss,
            0,
        )
        .goal(
            Goal::AtMost(KIB),
            format!("a2a serve VmRSS with {count} SSE subscribers, MiB"),
        ),
    );

    let tasks = reading(dir, "scale-tasks");
    let count = tasks.as_ref().map_or(0.0, |t| t.tasks);
    rows.push(
        Row::new(
            format!("Scale: VmRSS, {count:.0} idle completed tasks (MiB)"),
            tasks
                .as_ref()
                .map(|t| t.after_kib / KIB)
                .map_err(Clone::clone),
            0,
        )
        .goal(
            Goal::AtMost(KIB),
            format!("a2a serve VmRSS with {count:.0} idle completed tasks, MiB"),
        ),
    );
    rows.push(Row::new(
        "  per task (bytes)",
        tasks.and_then(|t| t.per_task_bytes()),
        0,
    ));
}
