//! The span a proxied call runs in: `a2a.gateway`, a server span whose parent is the
//! caller's W3C trace context, and whose context the call to the agent carries on (see
//! [`a2a_server::trace::forward`]), so the agent's spans are its children.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument as _;
use tracing::field::Empty;

/// The middleware: serves a proxied request inside its `a2a.gateway` span.
pub(crate) async fn span(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let mut segments = path.trim_start_matches('/').splitn(3, '/');
    let agent_id = match (segments.next(), segments.next()) {
        (Some("a2a"), Some(id)) if !id.is_empty() && !id.starts_with('.') => id,
        _ => "",
    };
    let binding = if segments.next().is_some() {
        "HTTP+JSON"
    } else {
        "JSONRPC"
    };
    let span = tracing::info_span!(
        target: a2a_server::trace::SPAN_TARGET,
        "a2a.gateway",
        otel.kind = "server",
        otel.name = Empty,
        agent_id,
        binding,
        operation = Empty,
    );
    if span.is_disabled() {
        return next.run(request).await;
    }
    if !agent_id.is_empty() {
        span.record("otel.name", format!("proxy {agent_id}"));
    }
    a2a_server::trace::adopt_parent(&span, request.headers());
    next.run(request).instrument(span).await
}
