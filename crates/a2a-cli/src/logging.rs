//! Logs: `tracing` events on stderr, one human-readable line each or one JSON object each.
//! Stdout stays free for the command's output.
//!
//! A line is formatted where it is logged but written by a thread of its own, many lines per
//! `write` call ([`crate::log_writer`]): a request's access line costs no system call on the
//! runtime's threads. Nothing is dropped, and the lines still buffered are written when the
//! [`LogGuard`] that [`init`] returns is dropped.
//!
//! The filter is `RUST_LOG` when that variable is set and not empty, else `--log-level`
//! (with its `A2A_*` variable and config-file key); both take `tracing_subscriber`'s
//! `EnvFilter` syntax, e.g. `info` or `warn,a2a::access=info,a2a_server=debug`.
//!
//! The A2A spans (target `a2a::span`) stay out of the log unless the filter names that target;
//! they go to the trace exporter instead when one is configured ([`crate::telemetry`]).

use anyhow::Context as _;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::config::LogFormat;
use crate::error::UsageError;

/// The variable whose filter, when set and not empty, wins over `--log-level`.
pub(crate) const RUST_LOG: &str = "RUST_LOG";

/// Keeps the log's writer thread; dropping it writes the lines still buffered.
#[must_use = "the lines still buffered are written when this is dropped: keep it to the end"]
pub(crate) struct LogGuard {
    _writer: crate::log_writer::BatchedStderr,
}

/// Installs the global subscriber, filtered by `RUST_LOG` when the environment sets it, else
/// by `log_level`.
///
/// # Errors
/// A [`UsageError`] when the filter in force does not parse; an error when a subscriber is
/// installed already.
pub(crate) fn init(format: LogFormat, log_level: &str) -> anyhow::Result<LogGuard> {
    let rust_log = std::env::var(RUST_LOG).ok();
    let mut filter = choose(rust_log.as_deref(), log_level).map_err(UsageError::new)?;
    // The MCP library logs each server's whole handshake at info; keep it at warn unless the
    // filter names it.
    if !rust_log.as_deref().unwrap_or(log_level).contains("rmcp")
        && let Ok(quiet) = "rmcp=warn".parse()
    {
        filter = filter.add_directive(quiet);
    }
    // The spans are for traces: a log line does not list them unless asked to.
    if !rust_log
        .as_deref()
        .unwrap_or(log_level)
        .contains(crate::telemetry::SPAN_TARGET)
        && let Ok(quiet) = format!("{}=off", crate::telemetry::SPAN_TARGET).parse()
    {
        filter = filter.add_directive(quiet);
    }
    let (writer, guard) =
        crate::log_writer::batched_stderr().context("cannot start the log's writer")?;
    let layer = tracing_subscriber::fmt::layer().with_writer(writer);
    // The filter is the log's own, so that spans reach the trace exporter whatever it says.
    let log = match format {
        LogFormat::Text => layer
            .with_ansi(crate::color::stderr())
            .with_filter(filter)
            .boxed(),
        LogFormat::Json => layer.json().with_filter(filter).boxed(),
    };
    let mut layers = vec![log];
    layers.extend(crate::telemetry::layer()?);
    tracing_subscriber::registry()
        .with(layers)
        .try_init()
        .context("cannot install the logger")?;
    Ok(LogGuard { _writer: guard })
}

/// `rust_log` when it is set and not blank, else `log_level`, parsed; the error names the
/// one that does not parse.
fn choose(rust_log: Option<&str>, log_level: &str) -> Result<EnvFilter, String> {
    match rust_log.map(str::trim).filter(|value| !value.is_empty()) {
        Some(value) => parse(value).map_err(|error| format!("{RUST_LOG}: `{value}`: {error}")),
        None => parse(log_level).map_err(|error| format!("--log-level: `{log_level}`: {error}")),
    }
}

/// A filter in `EnvFilter` syntax.
///
/// # Errors
/// The parser's message when `filter` is not one.
pub(crate) fn parse(filter: &str) -> Result<EnvFilter, String> {
    EnvFilter::builder()
        .parse(filter)
        .map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_log_wins_over_the_log_level_when_it_is_set() {
        let filter = choose(Some("warn,a2a::access=info"), "debug").unwrap();
        assert_eq!(filter.to_string(), "a2a::access=info,warn");
        let filter = choose(None, "debug").unwrap();
        assert_eq!(filter.to_string(), "debug");
        let filter = choose(Some("  "), "error").unwrap();
        assert_eq!(filter.to_string(), "error", "a blank RUST_LOG is not set");
    }

    #[test]
    fn a_bad_filter_is_named_by_where_it_came_from() {
        let error = choose(Some("=[bad"), "info").unwrap_err();
        assert!(error.starts_with("RUST_LOG: "), "{error}");
        let error = choose(None, "=[bad").unwrap_err();
        assert!(error.starts_with("--log-level: "), "{error}");
    }
}
