//! `report`: reads the results `run.sh` left in `--dir` (oha's JSON, the `streams` and
//! `fanout` summaries, the memory readings) and prints the benchmark's table: figure,
//! `a2a serve`'s value, the bare handler's, their ratio, the goal, pass or fail. Exits 1
//! when a figure could not be measured (a missing file, failed requests or streams).

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
}

/// What a figure is compared with.
#[derive(Debug, Clone, Copy)]
enum Goal {
    /// a2a / bare at least this.
    RatioAtLeast(f64),
    /// The value at most this.
    AtMost(f64, &'static str),
}

/// One line of the table.
#[derive(Debug)]
struct Row {
    figure: String,
    value: Result<f64, String>,
    bare: Option<Result<f64, String>>,
    decimals: usize,
    goal: Option<Goal>,
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

    fn goal(mut self, goal: Goal) -> Self {
        self.goal = Some(goal);
        self
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let dir = &args.dir;
    let mut rows = Vec::new();
    let mut notes = Vec::new();

    for (binding, name) in [("JSON-RPC", "jsonrpc"), ("REST", "rest")] {
        let a2a = oha(&dir.join(format!("sm-{name}-a2a.json")));
        let bare = oha(&dir.join(format!("sm-{name}-bare.json")));
        let pick = |side: &Result<Oha, String>, field: fn(&Oha) -> f64| {
            side.as_ref().map(field).map_err(Clone::clone)
        };
        rows.push(
            Row::new(
                format!("SendMessage {binding} req/s (c={})", args.connections),
                pick(&a2a, |o| o.requests_per_s),
                0,
            )
            .bare(pick(&bare, |o| o.requests_per_s))
            .goal(Goal::RatioAtLeast(0.8)),
        );
        rows.push(
            Row::new("  latency p50 (ms)", pick(&a2a, |o| o.p50_ms), 2)
                .bare(pick(&bare, |o| o.p50_ms)),
        );
        rows.push(
            Row::new("  latency p99 (ms)", pick(&a2a, |o| o.p99_ms), 2)
                .bare(pick(&bare, |o| o.p99_ms)),
        );
    }

    let streams_a2a = summary(&dir.join("streams-a2a.json"), "completed", "streams");
    let streams_bare = summary(&dir.join("streams-bare.json"), "completed", "streams");
    let concurrency = streams_a2a
        .as_ref()
        .ok()
        .and_then(|s| s["concurrency"].as_u64())
        .unwrap_or(0);
    let field = |side: &Result<Value, String>, name: &str| {
        side.as_ref()
            .map_err(Clone::clone)
            .and_then(|s| number(s, name))
    };
    rows.push(
        Row::new(
            format!("Stream (100 artifacts, c={concurrency}) events/s"),
            field(&streams_a2a, "events_per_s"),
            0,
        )
        .bare(field(&streams_bare, "events_per_s"))
        .goal(Goal::RatioAtLeast(0.5)),
    );
    rows.push(
        Row::new("  streams/s", field(&streams_a2a, "streams_per_s"), 0)
            .bare(field(&streams_bare, "streams_per_s")),
    );
    rows.push(
        Row::new(
            "  time per stream p50 (ms)",
            field(&streams_a2a, "stream_ms_p50"),
            1,
        )
        .bare(field(&streams_bare, "stream_ms_p50")),
    );
    rows.push(
        Row::new(
            "  time per stream p99 (ms)",
            field(&streams_a2a, "stream_ms_p99"),
            1,
        )
        .bare(field(&streams_bare, "stream_ms_p99")),
    );

    let fanout_a2a = summary(&dir.join("fanout-a2a.json"), "completed", "subscribers");
    let fanout_bare = summary(&dir.join("fanout-bare.json"), "completed", "subscribers");
    let subscribers = fanout_a2a
        .as_ref()
        .ok()
        .and_then(|s| s["subscribers"].as_u64())
        .unwrap_or(0);
    rows.push(
        Row::new(
            format!("Fan-out {subscribers} subs: first->last final (ms)"),
            field(&fanout_a2a, "spread_ms"),
            1,
        )
        .bare(field(&fanout_bare, "spread_ms")),
    );
    rows.push(
        Row::new(
            "  events delivered/s",
            field(&fanout_a2a, "events_per_s"),
            0,
        )
        .bare(field(&fanout_bare, "events_per_s")),
    );
    rows.push(
        Row::new(
            "  time to subscribe all (ms)",
            field(&fanout_a2a, "subscribed_all_ms"),
            0,
        )
        .bare(field(&fanout_bare, "subscribed_all_ms")),
    );
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

    let memory = memory(dir);
    rows.push(
        Row::new("Memory per stored idle task (bytes)", memory, 0)
            .goal(Goal::AtMost(1024.0, "<= 1 KiB")),
    );

    let failed = print_table(&rows, &notes)?;
    if failed {
        bail!("some figures could not be measured (see the table)");
    }
    Ok(())
}

/// Prints the table; returns whether a figure is missing.
fn print_table(rows: &[Row], notes: &[String]) -> anyhow::Result<bool> {
    let mut out = std::io::stdout().lock();
    let header = ["figure", "a2a serve", "bare", "a2a/bare", "goal", "result"];
    let mut lines = vec![header.map(str::to_owned)];
    let mut errors = Vec::new();
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
            errors.push(format!("{}: {error}", row.figure.trim()));
        }
        let ratio = match (&row.value, &row.bare) {
            (Ok(value), Some(Ok(bare))) if *bare > 0.0 => Some(value / bare),
            _ => None,
        };
        let (goal, result) = match (row.goal, &row.value) {
            (None, _) => (String::new(), String::new()),
            (Some(Goal::RatioAtLeast(at_least)), _) => (
                format!(">= {at_least:.2}x bare"),
                match ratio {
                    Some(ratio) if ratio >= at_least => "PASS".to_owned(),
                    Some(_) => "FAIL".to_owned(),
                    None => "ERROR".to_owned(),
                },
            ),
            (Some(Goal::AtMost(at_most, label)), Ok(value)) => (
                label.to_owned(),
                if *value <= at_most { "PASS" } else { "FAIL" }.to_owned(),
            ),
            (Some(Goal::AtMost(_, label)), Err(_)) => (label.to_owned(), "ERROR".to_owned()),
        };
        lines.push([
            row.figure.clone(),
            shown(&row.value),
            row.bare.as_ref().map_or_else(|| "-".to_owned(), shown),
            ratio.map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.2}")),
            if goal.is_empty() {
                "-".to_owned()
            } else {
                goal
            },
            if result.is_empty() {
                "-".to_owned()
            } else {
                result
            },
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
#[derive(Debug)]
struct Oha {
    requests_per_s: f64,
    p50_ms: f64,
    p99_ms: f64,
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
    })
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

/// Bytes of resident memory per task, from `memory.json` (`before_kib`, `after_kib`,
/// `tasks`) and the oha run that created the tasks.
fn memory(dir: &Path) -> Result<f64, String> {
    oha(&dir.join("memory-oha.json"))?;
    let path = dir.join("memory.json");
    let value = read(&path)?;
    let field = |name: &str| {
        value[name]
            .as_f64()
            .ok_or_else(|| format!("{}: no {name}", path.display()))
    };
    let tasks = field("tasks")?;
    if tasks <= 0.0 {
        return Err(format!("{}: no tasks", path.display()));
    }
    Ok((field("after_kib")? - field("before_kib")?) * 1024.0 / tasks)
}

fn read(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{} is missing", path.display()))
        .map_err(|error| format!("{error:#}"))?;
    serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
}
