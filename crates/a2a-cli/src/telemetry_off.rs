//! Built without the `otel` feature: no trace export; the same calls, doing nothing.

use tracing_subscriber::Layer;
use tracing_subscriber::registry::LookupSpan;

/// The target of every span we make.
pub(crate) use a2a_server::trace::SPAN_TARGET;

/// Nothing to name.
pub(crate) fn name_service(_service: &'static str) {}

/// No layer: nothing exports.
///
/// # Errors
/// Never.
#[allow(clippy::unnecessary_wraps)]
pub(crate) fn layer<S>() -> anyhow::Result<Option<Box<dyn Layer<S> + Send + Sync>>>
where
    S: tracing::Subscriber + for<'span> LookupSpan<'span> + Send + Sync,
{
    Ok(None)
}

/// Nothing to install.
///
/// # Errors
/// Never.
#[allow(clippy::unnecessary_wraps)]
pub(crate) fn init_alone() -> anyhow::Result<()> {
    Ok(())
}

/// Nothing to flush.
pub(crate) fn shutdown() {}
