//! Reading the files a benchmark run left: oha's JSON, summaries, CPU times, memory.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use serde_json::Value;

/// One KiB, one MiB, in bytes or KiB.
pub(crate) const KIB: f64 = 1024.0;

/// The figures of one oha run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Oha {
    pub(crate) requests_per_s: f64,
    pub(crate) p50_ms: f64,
    pub(crate) p99_ms: f64,
    /// Requests answered.
    pub(crate) requests: f64,
}

/// Reads oha's JSON output; every answer must have been a 200, and the only error allowed
/// is the requests cut by the end of a `-z` run.
pub(crate) fn oha(path: &Path) -> Result<Oha, String> {
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
pub(crate) fn cpu_seconds(dir: &Path, run: &str) -> Result<f64, String> {
    let path = dir.join(format!("{run}.cpu"));
    let text =
        std::fs::read_to_string(&path).map_err(|error| format!("{}: {error}", path.display()))?;
    text.trim()
        .parse()
        .map_err(|error| format!("{}: {error}", path.display()))
}

/// Reads a client's summary; every `total` unit must be `done` (streams completed).
pub(crate) fn summary(path: &Path, done: &str, total: &str) -> Result<Value, String> {
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

pub(crate) fn number(value: &Value, name: &str) -> Result<f64, String> {
    value[name].as_f64().ok_or_else(|| format!("no {name}"))
}

/// Two VmRSS readings of a server around the creation of `tasks` tasks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reading {
    pub(crate) tasks: f64,
    pub(crate) before_kib: f64,
    pub(crate) after_kib: f64,
}

impl Reading {
    /// Resident bytes per task created between the readings.
    pub(crate) fn per_task_bytes(self) -> Result<f64, String> {
        if self.tasks <= 0.0 {
            return Err("no tasks".to_owned());
        }
        Ok((self.after_kib - self.before_kib) * KIB / self.tasks)
    }
}

/// The readings `NAME.json` (`before_kib`, `after_kib`, `tasks`), checked against the oha
/// run that created the tasks, `NAME-oha.json`.
pub(crate) fn reading(dir: &Path, name: &str) -> Result<Reading, String> {
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
pub(crate) fn memory(dir: &Path, name: &str) -> Result<f64, String> {
    reading(dir, name)?.per_task_bytes()
}

pub(crate) fn read(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{} is missing", path.display()))
        .map_err(|error| format!("{error:#}"))?;
    serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
}
