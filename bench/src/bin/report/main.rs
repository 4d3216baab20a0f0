//! `report`: reads the results `run.sh` left in `--dir` (oha's JSON, the `streams` and
//! `fanout` summaries, the servers' CPU times, the memory readings, and the goal lines
//! collected from the other benchmark scripts) and prints the benchmark's table (figure,
//! `a2a serve`'s value, the bare handler's, their ratio, the goal, pass or fail), then one
//! block with every goal line: `Goal: <what> <op> <target>: PASS (<value>)`, `FAIL
//! (<value>)` or `ERROR`. Exits 1 when a figure could not be measured (a missing file,
//! failed requests or streams, a goal line that is an `ERROR`).

mod results;
mod row;
mod rows;
mod table;
#[cfg(test)]
mod tests;

use std::io::Write as _;
use std::path::PathBuf;

use crate::results::{KIB, memory};
use crate::row::{Goal, Row};
use crate::rows::{fanout_rows, scale_rows, send_message_rows, stream_rows};
use crate::table::print_table;
use anyhow::bail;
use clap::Parser;

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
