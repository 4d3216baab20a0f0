//! Trace context on every call: the W3C `traceparent`, `tracestate` and `baggage` of the
//! caller's current `tracing` span, so the agent's spans join the caller's trace. Needs the
//! `otel` feature (on by default) and a `tracing_opentelemetry` layer in the application;
//! headers the caller set itself are left alone.

use http::HeaderMap;

/// Writes the current span's trace context into `headers`, unless they carry one already.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn inject_current(headers: &mut HeaderMap) {
    #[cfg(feature = "otel")]
    {
        use opentelemetry::propagation::{TextMapCompositePropagator, TextMapPropagator as _};
        use opentelemetry_http::HeaderInjector;
        use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
        use tracing_opentelemetry::OpenTelemetrySpanExt as _;

        static PROPAGATOR: std::sync::OnceLock<TextMapCompositePropagator> =
            std::sync::OnceLock::new();
        if headers.contains_key("traceparent") {
            return;
        }
        let span = tracing::Span::current();
        if span.is_disabled() {
            return;
        }
        let propagator = PROPAGATOR.get_or_init(|| {
            TextMapCompositePropagator::new(vec![
                Box::new(TraceContextPropagator::new()),
                Box::new(BaggagePropagator::new()),
            ])
        });
        propagator.inject_context(&span.context(), &mut HeaderInjector(headers));
    }
}
