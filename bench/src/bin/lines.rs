//! `lines`: the event source of the stream figures, run by `a2a serve --agent exec -- lines
//! …` once per message. Prints the lines `1` to `--count`, the last one without its `\n`,
//! so the exec agent streams exactly `--count` artifact chunks (with a final `\n` it would
//! add an empty closing chunk). Optionally waits `--delay-ms` first and `--every-ms`
//! between lines, on a fixed schedule, flushing each line.

use std::io::Write as _;
use std::time::{Duration, Instant};

use clap::Parser;

/// Flags of `lines`.
#[derive(Debug, Parser)]
#[command(about = "Prints numbered lines, optionally paced (an event source for exec)")]
struct Args {
    /// How many lines.
    #[arg(long, default_value_t = 100)]
    count: u32,
    /// Time between two lines, ms (0: all at once).
    #[arg(long, default_value_t = 0)]
    every_ms: u64,
    /// Time before the first line, ms.
    #[arg(long, default_value_t = 0)]
    delay_ms: u64,
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let start = Instant::now();
    let every = Duration::from_millis(args.every_ms);
    let paced = args.every_ms > 0 || args.delay_ms > 0;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in 1..=args.count {
        if paced {
            let due = Duration::from_millis(args.delay_ms) + every * (line - 1);
            pause(due.saturating_sub(start.elapsed()));
        }
        let end = if line == args.count { "" } else { "\n" };
        write!(out, "{line}{end}")?;
        if paced {
            out.flush()?;
        }
    }
    out.flush()
}

/// A plain blocking sleep: this is a one-threaded program, not an async runtime.
#[allow(clippy::disallowed_methods)]
fn pause(duration: Duration) {
    if !duration.is_zero() {
        std::thread::sleep(duration);
    }
}
