//! Traces out of the process: the spans of `a2a serve`, `a2a gateway` and the calling
//! commands (`a2a send`, `get`, `list`, …) exported over OTLP, configured by the standard
//! OpenTelemetry variables and only when an endpoint is given.
//!
//! | variable | effect |
//! |---|---|
//! | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT` | where to send; without either nothing is exported |
//! | `OTEL_EXPORTER_OTLP_PROTOCOL` (`…_TRACES_PROTOCOL`) | `http/protobuf` (default), `http/json` or `grpc` |
//! | `OTEL_EXPORTER_OTLP_HEADERS`, `…_TIMEOUT`, `…_COMPRESSION` | as the OpenTelemetry specification says |
//! | `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` | the resource; the service defaults to `a2a-serve`, `a2a-gateway` or `a2a` |
//! | `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG` | sampling (default: parent-based, always on) |
//! | `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none` | no export |
//!
//! Only the A2A spans (target `a2a::span`) are exported; the log filter (`RUST_LOG`,
//! `--log-level`) does not apply to them. Spans are sent in batches from a thread of their
//! own and flushed when the command ends ([`shutdown`]). Over gRPC the exporter's channel
//! runs on a small runtime of its own, so that the last batch still goes out after the
//! command's runtime has stopped; an `https` endpoint is checked against the system's
//! roots.

use std::sync::{Mutex, OnceLock, PoisonError};

use anyhow::Context as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::registry::LookupSpan;

/// The target of every span we make (the libraries' and the calling commands').
pub(crate) use a2a_server::trace::SPAN_TARGET;

/// The service name when `OTEL_SERVICE_NAME` does not give one; set once by the command.
static SERVICE: OnceLock<&'static str> = OnceLock::new();

/// The provider exporting this process's spans, kept to flush it at the end.
static PROVIDER: Mutex<Option<SdkTracerProvider>> = Mutex::new(None);

/// The runtime the gRPC exporter's channel runs on, stopped after the last flush.
static EXPORT_RUNTIME: Mutex<Option<tokio::runtime::Runtime>> = Mutex::new(None);

/// Names this process's service (`a2a-serve`, `a2a-gateway`, `a2a`) unless
/// `OTEL_SERVICE_NAME` names it.
pub(crate) fn name_service(service: &'static str) {
    let _ = SERVICE.set(service);
}

/// The layer exporting A2A spans, when the environment configures an OTLP endpoint.
///
/// # Errors
/// When the exporter cannot be built from the `OTEL_*` variables (say, an unknown
/// protocol).
pub(crate) fn layer<S>() -> anyhow::Result<Option<Box<dyn Layer<S> + Send + Sync>>>
where
    S: tracing::Subscriber + for<'span> LookupSpan<'span> + Send + Sync,
{
    if !configured(|name| std::env::var(name).ok()) {
        return Ok(None);
    }
    let variable = |name: &str| std::env::var(name).ok();
    let exporter = if grpc(variable) {
        grpc_exporter(https(variable))?
    } else {
        opentelemetry_otlp::SpanExporter::builder()
            .build()
            .context("cannot set up trace export from the OTEL_* variables")?
    };
    let mut resource = Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
        resource = resource.with_service_name(*SERVICE.get().unwrap_or(&"a2a"));
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build();
    let tracer = provider.tracer("a2a");
    *PROVIDER.lock().unwrap_or_else(PoisonError::into_inner) = Some(provider);
    let only_ours = Targets::new().with_target(SPAN_TARGET, tracing::Level::TRACE);
    Ok(Some(
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(only_ours)
            .boxed(),
    ))
}

/// The gRPC exporter, its channel on a runtime of its own (kept in [`EXPORT_RUNTIME`]).
fn grpc_exporter(https: bool) -> anyhow::Result<opentelemetry_otlp::SpanExporter> {
    use opentelemetry_otlp::WithTonicConfig as _;
    use opentelemetry_otlp::tonic_types::transport::ClientTlsConfig;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("a2a-otlp")
        .enable_all()
        .build()
        .context("cannot start the trace exporter's runtime")?;
    let built = {
        let _inside = runtime.enter();
        let mut builder = opentelemetry_otlp::SpanExporter::builder().with_tonic();
        if https {
            builder = builder.with_tls_config(ClientTlsConfig::new().with_enabled_roots());
        }
        builder.build()
    };
    match built {
        Ok(exporter) => {
            *EXPORT_RUNTIME
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(runtime);
            Ok(exporter)
        }
        Err(error) => {
            // Dropped without waiting: this may run inside the command's runtime.
            runtime.shutdown_background();
            Err(error).context("cannot set up trace export over gRPC from the OTEL_* variables")
        }
    }
}

/// For the calling commands, which log nothing: installs the export layer alone, when
/// configured.
///
/// # Errors
/// As [`layer`].
pub(crate) fn init_alone() -> anyhow::Result<()> {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;

    if let Some(layer) = layer()? {
        // Another subscriber installed first (a test harness) keeps its place.
        let _ = tracing_subscriber::registry().with(layer).try_init();
    }
    Ok(())
}

/// Sends the spans still buffered and stops the exporter; a no-op when nothing exports.
pub(crate) fn shutdown() {
    let provider = PROVIDER
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    if let Some(provider) = provider
        && let Err(error) = provider.shutdown()
    {
        tracing::warn!(%error, "could not send the last spans");
    }
    let runtime = EXPORT_RUNTIME
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    if let Some(runtime) = runtime {
        runtime.shutdown_background();
    }
}

/// `name`'s value, trimmed, unless it is unset or blank.
fn given(variable: &impl Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    variable(name)
        .map(|value| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}

/// The traces' own `OTEL_EXPORTER_OTLP_TRACES_{setting}`, else the shared
/// `OTEL_EXPORTER_OTLP_{setting}`.
fn traces_setting(variable: &impl Fn(&str) -> Option<String>, setting: &str) -> Option<String> {
    given(variable, &format!("OTEL_EXPORTER_OTLP_TRACES_{setting}"))
        .or_else(|| given(variable, &format!("OTEL_EXPORTER_OTLP_{setting}")))
}

/// Whether the traces go over gRPC: their protocol is `grpc`.
fn grpc(variable: impl Fn(&str) -> Option<String>) -> bool {
    traces_setting(&variable, "PROTOCOL")
        .is_some_and(|protocol| protocol.eq_ignore_ascii_case("grpc"))
}

/// Whether the traces endpoint is `https://`.
fn https(variable: impl Fn(&str) -> Option<String>) -> bool {
    traces_setting(&variable, "ENDPOINT").is_some_and(|endpoint| {
        endpoint
            .get(..8)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
    })
}

/// Whether `variable` configures an export: an endpoint given, and the SDK and the traces
/// exporter not switched off.
fn configured(variable: impl Fn(&str) -> Option<String>) -> bool {
    let is = |name: &str, value: &str| {
        given(&variable, name).is_some_and(|set| set.eq_ignore_ascii_case(value))
    };
    if is("OTEL_SDK_DISABLED", "true") || is("OTEL_TRACES_EXPORTER", "none") {
        return false;
    }
    traces_setting(&variable, "ENDPOINT").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    #[test]
    fn grpc_is_chosen_by_the_traces_protocol_first() {
        assert!(!grpc(env(&[])));
        assert!(grpc(env(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")])));
        assert!(!grpc(env(&[
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"),
        ])));
        assert!(grpc(env(&[
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", " GRPC "),
        ])));
        assert!(https(env(&[(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "HTTPS://collector:4317"
        )])));
        assert!(!https(env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://collector:4317"),
            (
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "http://127.0.0.1:4317"
            ),
        ])));
    }

    #[test]
    fn spans_are_exported_only_to_a_configured_endpoint() {
        assert!(!configured(env(&[])));
        assert!(!configured(env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")])));
        assert!(configured(env(&[(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "http://127.0.0.1:4318"
        )])));
        assert!(configured(env(&[(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "http://127.0.0.1:4318/v1/traces"
        )])));
    }

    #[test]
    fn the_sdk_or_the_exporter_switched_off_exports_nothing() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        assert!(!configured(env(&[endpoint, ("OTEL_SDK_DISABLED", "TRUE")])));
        assert!(!configured(env(&[
            endpoint,
            ("OTEL_TRACES_EXPORTER", "none")
        ])));
        assert!(configured(env(&[endpoint, ("OTEL_SDK_DISABLED", "false")])));
    }
}
