//! Logs: `tracing` events on stderr, one human-readable line each or one JSON object each.
//! Stdout stays free for the command's output.

use std::io::IsTerminal as _;

use anyhow::Context as _;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::config::LogFormat;

/// Installs the global subscriber.
pub(crate) fn init(format: LogFormat, filter: Targets) -> anyhow::Result<()> {
    let registry = tracing_subscriber::registry().with(filter);
    let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    match format {
        LogFormat::Text => registry
            .with(layer.with_ansi(std::io::stderr().is_terminal()))
            .try_init(),
        LogFormat::Json => registry.with(layer.json()).try_init(),
    }
    .context("cannot install the logger")
}
