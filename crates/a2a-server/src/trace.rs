//! Traces: the `tracing` spans a request, a turn, a store call and a push delivery run in,
//! and the W3C trace context (`traceparent`, `tracestate`, `baggage`) read from every request
//! and sent with push deliveries.
//!
//! Every span has the target [`SPAN_TARGET`], so a subscriber can pick them (or leave them
//! out of a log) with one directive:
//!
//! | span | fields |
//! |---|---|
//! | `a2a.request` | `binding`, `operation`, `task_id`, `context_id`, `tenant`, `caller` |
//! | `a2a.turn` | `task_id`, `context_id` |
//! | `a2a.store` | `operation` (`save`, `append`), `task_id` |
//! | `a2a.push` | `task_id`, `config_id`, `sequence` |
//!
//! This crate only makes spans and carries the context; it never installs an exporter. With
//! the `otel` feature (on by default) the trace context of a request becomes the parent of
//! its `a2a.request` span, and a push delivery carries the context of the turn that made its
//! event, once the application has installed a `tracing_opentelemetry` layer:
//!
//! ```
//! use a2a_server::trace;
//!
//! let mut incoming = http::HeaderMap::new();
//! incoming.insert(
//!     "traceparent",
//!     http::HeaderValue::from_static("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
//! );
//! let span = tracing::info_span!(target: trace::SPAN_TARGET, "a2a.request");
//! trace::adopt_parent(&span, &incoming);
//! // Without a tracing-opentelemetry layer the span has no context of its own, so the
//! // incoming one is carried on as it came.
//! let mut outgoing = http::HeaderMap::new();
//! trace::forward(&span, &incoming, &mut outgoing);
//! assert_eq!(outgoing["traceparent"], incoming["traceparent"]);
//! ```

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use http::HeaderMap;
use tracing::Instrument as _;
use tracing::Span;
use tracing::field::Empty;

/// The `tracing` target of every span this crate (and the gateway) makes.
pub const SPAN_TARGET: &str = "a2a::span";

/// The W3C trace context headers: carried from a request to its span, from a span to the
/// calls it makes.
pub const TRACE_HEADERS: [&str; 3] = ["traceparent", "tracestate", "baggage"];

/// The middleware: serves the request inside its `a2a.request` span, the request's trace
/// context as the span's parent. The binding fills in the other fields as it learns them.
pub(crate) async fn request(request: Request, next: Next) -> Response {
    let grpc = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/grpc"));
    let span = tracing::info_span!(
        target: SPAN_TARGET,
        "a2a.request",
        otel.kind = "server",
        otel.name = Empty,
        binding = if grpc { "GRPC" } else { "" },
        operation = Empty,
        task_id = Empty,
        context_id = Empty,
        tenant = Empty,
        caller = Empty,
    );
    // Nobody listens: the request costs no span.
    if span.is_disabled() {
        return next.run(request).await;
    }
    adopt_parent(&span, request.headers());
    next.run(request).instrument(span).await
}

/// Notes the binding serving the request (in the request span; a no-op outside one).
pub(crate) fn note_binding(binding: &'static str) {
    Span::current().record("binding", binding);
}

/// Notes the operation (in the request span, also as its OpenTelemetry name).
pub(crate) fn note_operation(operation: &'static str) {
    Span::current()
        .record("operation", operation)
        .record("otel.name", operation);
}

/// Notes the call's tenant and how its caller authenticated (in the request span).
pub(crate) fn note_call(call: &crate::CallContext) {
    let span = Span::current();
    if span.is_disabled() {
        return;
    }
    if !call.tenant.is_empty() {
        span.record("tenant", call.tenant.as_str());
    }
    let caller = match call.caller.as_deref().map(|caller| caller.kind) {
        None => "anonymous",
        Some(crate::auth::CredentialKind::ApiKey) => "api_key",
        Some(crate::auth::CredentialKind::StaticToken) => "static_token",
        Some(crate::auth::CredentialKind::IssuedToken) => "issued_token",
        Some(crate::auth::CredentialKind::Certificate) => "certificate",
    };
    span.record("caller", caller);
}

/// Makes the trace context in `headers`, when they carry one, the parent of `span`. Call it
/// before the span is first entered. Without the `otel` feature, or without a
/// `tracing_opentelemetry` layer, it does nothing.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub fn adopt_parent(span: &Span, headers: &HeaderMap) {
    #[cfg(feature = "otel")]
    otel::adopt_parent(span, headers);
}

/// Writes the trace context of `span` into `headers` (`traceparent`, and `tracestate` and
/// `baggage` when there are any), so that what the call reaches is a child of `span`.
/// Writes nothing when the span has no OpenTelemetry context (no layer installed, or the
/// `otel` feature off).
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub fn inject(span: &Span, headers: &mut HeaderMap) {
    #[cfg(feature = "otel")]
    otel::inject(&otel::context_of(span), headers);
}

/// For a hop that passes a request on: writes the context of `span` (its child's parent)
/// into `outgoing`, and carries on what `incoming` had that the span could not give (all of
/// it when no OpenTelemetry layer is installed), so a trace is never cut at the hop.
pub fn forward(span: &Span, incoming: &HeaderMap, outgoing: &mut HeaderMap) {
    inject(span, outgoing);
    let has_parent = outgoing.contains_key(TRACE_HEADERS[0]);
    for name in TRACE_HEADERS {
        let missing = !outgoing.contains_key(name);
        // `tracestate` belongs to the `traceparent` it came with.
        let belongs = name != "tracestate" || !has_parent;
        if missing
            && belongs
            && let Some(value) = incoming.get(name)
        {
            outgoing.insert(name, value.clone());
        }
    }
}

/// The trace context each task's latest turn ran in, for the push deliveries of its events
/// (sent later, by the dispatcher, outside the turn). Holds at most [`TurnTraces::CAPACITY`]
/// tasks, forgetting the oldest first; a delivery whose task was forgotten, or made by
/// another instance, starts a trace of its own.
#[derive(Debug, Default)]
pub(crate) struct TurnTraces {
    #[cfg(feature = "otel")]
    inner: std::sync::Mutex<otel::Remembered>,
}

impl TurnTraces {
    /// How many tasks' contexts are kept.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(crate) const CAPACITY: usize = 4096;

    /// Remembers the context of the current span as the one `task_id`'s events were made in.
    #[cfg_attr(not(feature = "otel"), allow(unused_variables, clippy::unused_self))]
    pub(crate) fn remember(&self, task_id: &a2a_types::TaskId) {
        #[cfg(feature = "otel")]
        {
            let context = otel::context_of(&Span::current());
            if otel::is_valid(&context) {
                self.inner
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(task_id, context, Self::CAPACITY);
            }
        }
    }

    /// Makes the remembered context of `task_id` the parent of `span`.
    #[cfg_attr(not(feature = "otel"), allow(unused_variables, clippy::unused_self))]
    pub(crate) fn adopt(&self, span: &Span, task_id: &a2a_types::TaskId) {
        #[cfg(feature = "otel")]
        {
            let context = self
                .inner
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(task_id);
            if let Some(context) = context {
                otel::set_parent(span, context);
            }
        }
    }
}

#[cfg(feature = "otel")]
mod otel {
    //! The OpenTelemetry side: W3C propagators and the `tracing-opentelemetry` bridge.

    use std::collections::{HashMap, VecDeque};
    use std::sync::OnceLock;

    use a2a_types::TaskId;
    use http::HeaderMap;
    use opentelemetry::Context;
    use opentelemetry::propagation::{TextMapCompositePropagator, TextMapPropagator as _};
    use opentelemetry::trace::TraceContextExt as _;
    use opentelemetry_http::{HeaderExtractor, HeaderInjector};
    use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
    use tracing::Span;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    /// W3C Trace Context, then W3C Baggage.
    fn propagator() -> &'static TextMapCompositePropagator {
        static PROPAGATOR: OnceLock<TextMapCompositePropagator> = OnceLock::new();
        PROPAGATOR.get_or_init(|| {
            TextMapCompositePropagator::new(vec![
                Box::new(TraceContextPropagator::new()),
                Box::new(BaggagePropagator::new()),
            ])
        })
    }

    pub(super) fn adopt_parent(span: &Span, headers: &HeaderMap) {
        if !headers.contains_key("traceparent") && !headers.contains_key("baggage") {
            return;
        }
        let context = propagator().extract(&HeaderExtractor(headers));
        set_parent(span, context);
    }

    pub(super) fn set_parent(span: &Span, context: Context) {
        // Refused when no layer is installed or the span is disabled: then there is no
        // OpenTelemetry span to give a parent to.
        let _ = span.set_parent(context);
    }

    pub(super) fn context_of(span: &Span) -> Context {
        span.context()
    }

    pub(super) fn is_valid(context: &Context) -> bool {
        context.span().span_context().is_valid()
    }

    pub(super) fn inject(context: &Context, headers: &mut HeaderMap) {
        propagator().inject_context(context, &mut HeaderInjector(headers));
    }

    /// Contexts by task, oldest first out.
    #[derive(Debug, Default)]
    pub(super) struct Remembered {
        by_task: HashMap<TaskId, Context>,
        order: VecDeque<TaskId>,
    }

    impl Remembered {
        pub(super) fn insert(&mut self, task_id: &TaskId, context: Context, capacity: usize) {
            if self.by_task.insert(task_id.clone(), context).is_none() {
                self.order.push_back(task_id.clone());
            }
            while self.order.len() > capacity {
                if let Some(oldest) = self.order.pop_front() {
                    self.by_task.remove(&oldest);
                }
            }
        }

        pub(super) fn get(&self, task_id: &TaskId) -> Option<Context> {
            self.by_task.get(task_id).cloned()
        }
    }
}

#[cfg(all(test, feature = "otel"))]
mod tests {
    use http::HeaderValue;
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;

    const CALLER: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    fn with_otel(check: impl FnOnce()) {
        let provider = SdkTracerProvider::builder().build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, check);
    }

    fn incoming() -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("traceparent", HeaderValue::from_static(CALLER));
        headers.insert("tracestate", HeaderValue::from_static("vendor=1"));
        headers.insert("baggage", HeaderValue::from_static("tenant=acme"));
        headers
    }

    #[test]
    fn a_hop_forwards_a_child_of_the_callers_span_not_a_copy() {
        with_otel(|| {
            let span = tracing::info_span!(target: SPAN_TARGET, "a2a.request");
            adopt_parent(&span, &incoming());
            let mut outgoing = HeaderMap::new();
            forward(&span, &incoming(), &mut outgoing);
            let traceparent = outgoing["traceparent"].to_str().unwrap();
            let fields: Vec<&str> = traceparent.split('-').collect();
            assert_eq!(
                fields[1], "4bf92f3577b34da6a3ce929d0e0e4736",
                "{traceparent}"
            );
            assert_ne!(fields[2], "00f067aa0ba902b7", "a child, not a copy");
            assert_eq!(outgoing["tracestate"], "vendor=1");
            assert_eq!(outgoing["baggage"], "tenant=acme");
        });
    }

    #[test]
    fn without_a_callers_context_a_span_starts_a_trace_of_its_own() {
        with_otel(|| {
            let span = tracing::info_span!(target: SPAN_TARGET, "a2a.request");
            adopt_parent(&span, &HeaderMap::new());
            let mut outgoing = HeaderMap::new();
            inject(&span, &mut outgoing);
            let traceparent = outgoing["traceparent"].to_str().unwrap();
            assert!(!traceparent.contains("4bf92f3577b34da6a3ce929d0e0e4736"));
        });
    }

    #[test]
    fn a_delivery_joins_the_trace_its_task_was_remembered_in() {
        with_otel(|| {
            let traces = TurnTraces::default();
            let task_id = a2a_types::TaskId::new("t-1");
            let turn = tracing::info_span!(target: SPAN_TARGET, "a2a.turn");
            adopt_parent(&turn, &incoming());
            turn.in_scope(|| traces.remember(&task_id));
            let delivery = tracing::info_span!(target: SPAN_TARGET, "a2a.push");
            traces.adopt(&delivery, &task_id);
            let mut outgoing = HeaderMap::new();
            inject(&delivery, &mut outgoing);
            let traceparent = outgoing["traceparent"].to_str().unwrap();
            assert!(traceparent.contains("4bf92f3577b34da6a3ce929d0e0e4736"));
        });
    }
}
