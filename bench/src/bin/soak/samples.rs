//! The soak's samples: one line per interval in a JSON lines file and in a CSV file, each
//! with the interval's counts and the server's readings at its end.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::Path;

use anyhow::Context as _;
use serde_json::json;

use crate::probe;
use crate::tally::Interval;

/// The CSV columns, in order.
pub(crate) const CSV_HEADER: &str = "elapsed_s,requests,errors,p50_ms,p99_ms,max_ms,pushes,pushes_pending,in_flight,rss_kib,fds,store_bytes";

/// Where the samples go, and what the server readings need.
#[derive(Debug)]
pub(crate) struct Samples {
    json: BufWriter<File>,
    csv: Option<BufWriter<File>>,
    server_pid: Option<u32>,
    store_size: Option<String>,
    /// Totals over the run so far.
    pub(crate) requests: u64,
    pub(crate) errors: u64,
    pub(crate) pushes: u64,
}

/// What the driver knows at the end of an interval besides its counts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Moment {
    pub(crate) elapsed_s: f64,
    pub(crate) in_flight: usize,
    pub(crate) pushes_pending: usize,
}

impl Samples {
    /// Creates the files (the CSV with its header).
    ///
    /// # Errors
    /// When a file cannot be created.
    pub(crate) fn create(
        json: &Path,
        csv: Option<&Path>,
        server_pid: Option<u32>,
        store_size: Option<String>,
    ) -> anyhow::Result<Self> {
        let open = |path: &Path| {
            File::create(path)
                .map(BufWriter::new)
                .with_context(|| format!("cannot create {}", path.display()))
        };
        let csv = match csv {
            Some(path) => {
                let mut file = open(path)?;
                writeln!(file, "{CSV_HEADER}")?;
                file.flush()?;
                Some(file)
            }
            None => None,
        };
        Ok(Self {
            json: open(json)?,
            csv,
            server_pid,
            store_size,
            requests: 0,
            errors: 0,
            pushes: 0,
        })
    }

    /// Writes one sample: `interval`'s counts, the server's readings now.
    ///
    /// # Errors
    /// When a file cannot be written.
    pub(crate) fn write(&mut self, interval: &Interval, moment: Moment) -> anyhow::Result<()> {
        self.requests += interval.requests;
        self.errors += interval.error_count();
        self.pushes += interval.pushes;
        let rss = self.server_pid.and_then(probe::rss_kib);
        let fds = self.server_pid.and_then(probe::open_fds);
        let size = self.store_size.as_deref().and_then(probe::store_bytes);
        let sorted = &interval.latencies_ms;
        let p50 = a2a_bench::percentile(sorted, 50.0);
        let p99 = a2a_bench::percentile(sorted, 99.0);
        let max = sorted.last().copied().unwrap_or(0.0);
        let line = json!({
            "elapsed_s": moment.elapsed_s,
            "requests": interval.requests,
            "errors": interval.error_count(),
            "errors_by_kind": interval.errors,
            "p50_ms": p50,
            "p99_ms": p99,
            "max_ms": max,
            "pushes": interval.pushes,
            "pushes_pending": moment.pushes_pending,
            "in_flight": moment.in_flight,
            "rss_kib": rss,
            "fds": fds,
            "store_bytes": size,
            "requests_total": self.requests,
            "errors_total": self.errors,
            "pushes_total": self.pushes,
        });
        writeln!(self.json, "{line}")?;
        self.json.flush()?;
        if let Some(csv) = &mut self.csv {
            let or_empty = |value: Option<u64>| value.map(|v| v.to_string()).unwrap_or_default();
            writeln!(
                csv,
                "{:.1},{},{},{p50:.3},{p99:.3},{max:.3},{},{},{},{},{},{}",
                moment.elapsed_s,
                interval.requests,
                interval.error_count(),
                interval.pushes,
                moment.pushes_pending,
                moment.in_flight,
                or_empty(rss),
                or_empty(fds),
                or_empty(size),
            )?;
            csv.flush()?;
        }
        Ok(())
    }
}
