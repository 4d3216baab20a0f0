//! `report`: reads the results `run.sh` left in `--dir` (oha's JSON, the `streams` and
//! `fanout` summaries, the servers' CPU times, the memory readings, and the goal lines
//! collected from the other benchmark scripts) and prints the benchmark's table (figure,
//! `a2a serve`'s value, the bare handler's, their ratio, the goal, pass or fail), then one
//! block with every goal line: `Goal: <what> <op> <target>: PASS (<value>)`, `FAIL
//! (<value>)` or `ERROR`. Exits 1 when a figure could not be measured (a missing file,
//! failed requests or streams, a goal line that is an `ERROR`).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::Parser;
use serde_json::Value;

/// Flags of `report`.
#[derive(Debug, Parser)]
#[command(about = "Prints the load benchmark's table from run.sh's results")]
struct Args {
    /// The results directory.
    #[arg(long)]
    dir: PathBuf,
    /// oha's connections, for the labels.
    #[arg(long, default_value_t = 64)]
    connections: u32,
    /// The words of the stream figure's messages: the main one, then the short and the long
    /// one of the per-chunk cost.
    #[arg(long, value_delimiter = ',', default_value = "100,10,1000")]
    stream_words: Vec<u64>,
    /// The scale figures were measured (`BENCH_SCALE=1`).
    #[arg(long)]
    scale: bool,
}

/// The scripts whose goal lines `run.sh` collects into `goals-NAME.txt`, in the order they
/// are listed.
const COLLECTED: [&str; 3] = ["auth", "stores", "gateway"];

/// One KiB, one MiB, in bytes or KiB.
const KIB: f64 = 1024.0;

/// What a figure is compared with.
#[derive(Debug, Clone, Copy)]
enum Goal {
    /// a2a / bare at least this.
    RatioAtLeast(f64),
    /// a2a / bare at most this.
    RatioAtMost(f64),
    /// The value at most this.
    AtMost(f64),
}

/// One line of the table.
#[derive(Debug)]
struct Row {
    figure: String,
    value: Result<f64, String>,
    bare: Option<Result<f64, String>>,
    decimals: usize,
    /// The goal, and what its `Goal:` line calls the figure.
    goal: Option<(Goal, String)>,
}

impl Row {
    fn new(figure: impl Into<String>, value: Result<f64, String>, decimals: usize) -> Self {
        Self {
            figure: figure.into(),
            value,
            bare: None,
            decimals,
            goal: None,
        }
    }

    fn bare(mut self, bare: Result<f64, String>) -> Self {
        self.bare = Some(bare);
        self
    }

    fn goal(mut self, goal: Goal, what: impl Into<String>) -> Self {
        self.goal = Some((goal, what.into()));
        self
    }

    /// a2a / bare, when both are known.
    fn ratio(&self) -> Option<f64> {
        match (&self.value, &self.bare) {
            (Ok(value), Some(Ok(bare))) if *bare > 0.0 => Some(value / bare),
            _ => None,
        }
    }

    /// The goal column and the goal line, when the row has a goal.
    fn verdict(&self) -> Option<(String, String)> {
        let (goal, what) = self.goal.as_ref()?;
        let (column, op, target, value, decimals) = match *goal {
            Goal::RatioAtLeast(at_least) => (
                format!(">= {at_least:.2}x bare"),
                ">=",
                format!("{at_least:.2}"),
                self.ratio(),
                2,
            ),
            Goal::RatioAtMost(at_most) => (
                format!("<= {at_most:.2}x bare"),
                "<=",
                format!("{at_most:.2}"),
                self.ratio(),
                2,
            ),
            Goal::AtMost(at_most) => (
                format!("<= {at_most:.*}", self.decimals),
                "<=",
                format!("{at_most:.*}", self.decimals),
                self.value.as_ref().ok().copied(),
                self.decimals,
            ),
        };
        let met = |value: f64| match *goal {
            Goal::RatioAtLeast(at_least) => value >= at_least,
            Goal::RatioAtMost(at_most) | Goal::AtMost(at_most) => value <= at_most,
        };
        let result = match value {
            Some(value) if met(value) => format!("PASS ({value:.decimals$})"),
            Some(value) => format!("FAIL ({value:.decimals$})"),
            None => "ERROR".to_owned(),
        };
        Some((column, format!("Goal: {what} {op} {target}: {result}")))
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let dir = &args.dir;
    let mut rows = Vec::new();
    let mut notes = Vec::new();

    send_message_rows(dir, args.connections, &mut rows);
    stream_rows(dir, &args.stream_words, &mut rows);
    fanout_rows(dir, &mut rows, &mut notes);
    rows.push(
        Row::new(
            "Memory per stored idle task (bytes)",
            memory(dir, "memory"),
            0,
        )
        .goal(Goal::AtMost(KIB), "memory per stored idle task, bytes"),
    );
    if args.scale {
        scale_rows(dir, &mut rows);
    }

    let mut goals: Vec<String> = rows
        .iter()
        .filter_map(Row::verdict)
        .map(|(_, line)| line)
        .collect();
    for name in COLLECTED {
        let path = dir.join(format!("goals-{name}.txt"));
        if let Ok(text) = std::fs::read_to_string(&path) {
            goals.extend(
                text.lines()
                    .filter(|line| line.starts_with("Goal: "))
                    .map(str::to_owned),
            );
        }
    }

    let missing = print_table(&rows, &notes)?;
    let mut out = std::io::stdout().lock();
    writeln!(out)?;
    writeln!(out, "Goals:")?;
    for line in &goals {
        writeln!(out, "{line}")?;
    }
    if missing || goals.iter().any(|line| line.ends_with(": ERROR")) {
        bail!("some figures could not be measured (see the table and the goals)");
    }
    Ok(())
}

/// SendMessage on both bindings: throughput, latency, server CPU per request.
fn send_message_rows(dir: &Path, connections: u32, rows: &mut Vec<Row>) {
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
struct Streams {
    summary: Value,
    cpu_s: f64,
}

impl Streams {
    fn read(dir: &Path, run: &str) -> Result<Self, String> {
        let summary = summary(&dir.join(format!("{run}.json")), "completed", "streams")?;
        let cpu_s = cpu_seconds(dir, run)?;
        Ok(Self { summary, cpu_s })
    }

    fn field(&self, name: &str) -> Result<f64, String> {
        number(&self.summary, name)
    }

    /// Streams run, warm-up included.
    fn all_streams(&self) -> Result<f64, String> {
        Ok(self.field("streams")? + self.field("warmup_streams")?)
    }

    /// Server CPU µs per stream, warm-up included.
    fn cpu_per_stream(&self) -> Result<f64, String> {
        let streams = self.all_streams()?;
        if streams <= 0.0 {
            return Err("no streams".to_owned());
        }
        Ok(self.cpu_s * 1e6 / streams)
    }

    /// Server CPU µs per artifact chunk (one per word), warm-up included.
    fn cpu_per_chunk(&self) -> Result<f64, String> {
        Ok(self.cpu_per_stream()? / self.field("words")?.max(1.0))
    }
}

/// The stream figure (both servers, the main length) and the per-chunk cost (a2a, the
/// short and the long stream).
fn stream_rows(dir: &Path, words: &[u64], rows: &mut Vec<Row>) {
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
fn fanout_rows(dir: &Path, rows: &mut Vec<Row>, notes: &mut Vec<String>) {
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
fn scale_rows(dir: &Path, rows: &mut Vec<Row>) {
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

/// Prints the table; returns whether a figure is missing.
fn print_table(rows: &[Row], notes: &[String]) -> anyhow::Result<bool> {
    let mut out = std::io::stdout().lock();
    let header = ["figure", "a2a serve", "bare", "a2a/bare", "goal", "result"];
    let mut lines = vec![header.map(str::to_owned)];
    let mut errors: Vec<String> = Vec::new();
    for row in rows {
        let shown = |value: &Result<f64, String>| match value {
            Ok(value) => format!("{value:.*}", row.decimals),
            Err(_) => "n/a".to_owned(),
        };
        for error in [Some(&row.value), row.bare.as_ref()]
            .into_iter()
            .flatten()
            .filter_map(|value| value.as_ref().err())
        {
            if !errors.contains(error) {
                errors.push(error.clone());
            }
        }
        let (goal, result) = match row.verdict() {
            Some((goal, line)) => {
                let result = line.rsplit(": ").next().unwrap_or_default();
                let result = result.split(' ').next().unwrap_or_default().to_owned();
                (goal, result)
            }
            None => ("-".to_owned(), "-".to_owned()),
        };
        lines.push([
            row.figure.clone(),
            shown(&row.value),
            row.bare.as_ref().map_or_else(|| "-".to_owned(), shown),
            row.ratio()
                .map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.2}")),
            goal,
            result,
        ]);
    }
    let mut widths = [0; 6];
    for line in &lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for (index, line) in lines.iter().enumerate() {
        let mut text = String::new();
        for (column, (cell, width)) in line.iter().zip(widths).enumerate() {
            let pad = width - cell.chars().count();
            if column == 0 {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            } else {
                text.push_str("  ");
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            }
        }
        writeln!(out, "{}", text.trim_end())?;
        if index == 0 {
            writeln!(out, "{}", "-".repeat(widths.iter().sum::<usize>() + 2 * 5))?;
        }
    }
    for note in notes {
        writeln!(out, "note: {note}")?;
    }
    for error in &errors {
        writeln!(out, "error: {error}")?;
    }
    Ok(!errors.is_empty())
}

/// The figures of one oha run.
#[derive(Debug, Clone, Copy)]
struct Oha {
    requests_per_s: f64,
    p50_ms: f64,
    p99_ms: f64,
    /// Requests answered.
    requests: f64,
}

/// Reads oha's JSON output; every answer must have been a 200, and the only error allowed
/// is the requests cut by the end of a `-z` run.
fn oha(path: &Path) -> Result<Oha, String> {
    let value = read(path)?;
    let statuses: BTreeMap<String, Value> =
        serde_json::from_value(value["statusCodeDistribution"].clone()).unwrap_or_default();
    let not_ok: Vec<String> = statuses
        .iter()
        .filter(|(status, _)| status.as_str() != "200")
        .map(|(status, count)| format!("{count} x HTTP {status}"))
        .collect();
    let errors: Vec<String> = value["errorDistribution"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(error, _)| error.as_str() != "aborted due to deadline")
        .map(|(error, count)| format!("{count} x {error}"))
        .collect();
    if statuses.is_empty() || !not_ok.is_empty() || !errors.is_empty() {
        let problems = [not_ok, errors].concat().join(", ");
        return Err(format!(
            "{}: not every request succeeded ({problems})",
            path.display()
        ));
    }
    let seconds = |p: &str| {
        value["latencyPercentiles"][p]
            .as_f64()
            .map(|s| s * 1000.0)
            .ok_or_else(|| format!("{}: no latency {p}", path.display()))
    };
    Ok(Oha {
        requests_per_s: value["summary"]["requestsPerSec"]
            .as_f64()
            .ok_or_else(|| format!("{}: no requestsPerSec", path.display()))?,
        p50_ms: seconds("p50")?,
        p99_ms: seconds("p99")?,
        requests: statuses.values().filter_map(Value::as_f64).sum(),
    })
}

/// The server's CPU time (user + system) in seconds during the run `run`, which `run.sh`
/// wrote to `RUN.cpu`.
fn cpu_seconds(dir: &Path, run: &str) -> Result<f64, String> {
    let path = dir.join(format!("{run}.cpu"));
    let text =
        std::fs::read_to_string(&path).map_err(|error| format!("{}: {error}", path.display()))?;
    text.trim()
        .parse()
        .map_err(|error| format!("{}: {error}", path.display()))
}

/// Reads a client's summary; every `total` unit must be `done` (streams completed).
fn summary(path: &Path, done: &str, total: &str) -> Result<Value, String> {
    let value = read(path)?;
    let (done_count, total_count) = (value[done].as_u64(), value[total].as_u64());
    if done_count.is_none() || done_count != total_count {
        return Err(format!(
            "{}: {} of {} {total} completed (first error: {})",
            path.display(),
            done_count.unwrap_or(0),
            total_count.unwrap_or(0),
            value["first_error"].as_str().unwrap_or("none")
        ));
    }
    Ok(value)
}

fn number(value: &Value, name: &str) -> Result<f64, String> {
    value[name].as_f64().ok_or_else(|| format!("no {name}"))
}

/// Two VmRSS readings of a server around the creation of `tasks` tasks.
#[derive(Debug, Clone, Copy)]
struct Reading {
    tasks: f64,
    before_kib: f64,
    after_kib: f64,
}

impl Reading {
    /// Resident bytes per task created between the readings.
    fn per_task_bytes(self) -> Result<f64, String> {
        if self.tasks <= 0.0 {
            return Err("no tasks".to_owned());
        }
        Ok((self.after_kib - self.before_kib) * KIB / self.tasks)
    }
}

/// The readings `NAME.json` (`before_kib`, `after_kib`, `tasks`), checked against the oha
/// run that created the tasks, `NAME-oha.json`.
fn reading(dir: &Path, name: &str) -> Result<Reading, String> {
    oha(&dir.join(format!("{name}-oha.json")))?;
    let path = dir.join(format!("{name}.json"));
    let value = read(&path)?;
    let field = |name: &str| {
        value[name]
            .as_f64()
            .ok_or_else(|| format!("{}: no {name}", path.display()))
    };
    Ok(Reading {
        tasks: field("tasks")?,
        before_kib: field("before_kib")?,
        after_kib: field("after_kib")?,
    })
}

/// Bytes of resident memory per task, from the readings `NAME.json`.
fn memory(dir: &Path, name: &str) -> Result<f64, String> {
    reading(dir, name)?.per_task_bytes()
}

fn read(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{} is missing", path.display()))
        .map_err(|error| format!("{error:#}"))?;
    serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goal_lines_have_the_common_form() {
        let row = Row::new("x", Ok(90.0), 0)
            .bare(Ok(100.0))
            .goal(Goal::RatioAtLeast(0.8), "req/s, a2a / bare");
        assert_eq!(
            row.verdict().map(|(_, line)| line).as_deref(),
            Some("Goal: req/s, a2a / bare >= 0.80: PASS (0.90)")
        );
        let row = Row::new("x", Ok(300.0), 0)
            .bare(Ok(100.0))
            .goal(Goal::RatioAtMost(2.0), "p99, a2a / bare");
        assert_eq!(
            row.verdict().map(|(_, line)| line).as_deref(),
            Some("Goal: p99, a2a / bare <= 2.00: FAIL (3.00)")
        );
        let row = Row::new("x", Err("missing".to_owned()), 0)
            .goal(Goal::AtMost(1024.0), "memory per task, bytes");
        assert_eq!(
            row.verdict().map(|(_, line)| line).as_deref(),
            Some("Goal: memory per task, bytes <= 1024: ERROR")
        );
        assert!(Row::new("x", Ok(1.0), 0).verdict().is_none());
    }
}
