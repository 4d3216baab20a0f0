//! The access log: one `info` event per HTTP request under the target
//! [`ACCESS_LOG_TARGET`], written when the response head is ready (for a stream, when its
//! first event is known; the stream itself may run on).
//!
//! Its fields: `method` (HTTP), `path` (never the query string), `operation` (the A2A
//! operation once the binding knew it, e.g. `SendMessage`, else `-`), `status` (HTTP),
//! `duration_ms`, and `task_id` when the answer names a task (else `-`). Headers are never
//! logged, so credentials cannot reach the log. Health checks (`/healthz`, `/readyz`) are
//! logged at `debug`, so probes do not drown the log.

use std::cell::RefCell;

use a2a_types::TaskId;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tokio::time::Instant;

/// The `tracing` target of the access log, for filters such as `RUST_LOG=a2a::access=off`.
pub const ACCESS_LOG_TARGET: &str = "a2a::access";

/// What the binding learnt about the request it served.
#[derive(Debug, Default)]
struct Noted {
    operation: Option<&'static str>,
    task_id: Option<String>,
}

tokio::task_local! {
    /// The request being served by this task: the binding runs inside the middleware's
    /// future, so it notes here without anything passed down.
    static NOTED: RefCell<Noted>;
}

/// Notes the A2A operation of the request being served (a no-op outside the access log).
pub(crate) fn note_operation(operation: &'static str) {
    crate::trace::note_operation(operation);
    let _ = NOTED.try_with(|noted| noted.borrow_mut().operation = Some(operation));
}

/// Notes the task the answer is about (a no-op outside the access log).
pub(crate) fn note_task(task_id: &TaskId) {
    tracing::Span::current().record("task_id", task_id.as_str());
    let _ = NOTED.try_with(|noted| noted.borrow_mut().task_id = Some(task_id.as_str().to_owned()));
}

/// The middleware: serves the request, then logs one line about it.
pub(crate) async fn log(request: Request, next: Next) -> Response {
    // With the access log filtered out (as under `--log-level warn`), a request costs
    // nothing here: no clock, no copy of its path, no task-local.
    if !tracing::enabled!(target: ACCESS_LOG_TARGET, tracing::Level::INFO) {
        return next.run(request).await;
    }
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let (response, noted) = NOTED
        .scope(RefCell::new(Noted::default()), async move {
            let response = next.run(request).await;
            (response, NOTED.with(RefCell::take))
        })
        .await;
    let status = response.status().as_u16();
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let operation = noted.operation.unwrap_or("-");
    let task_id = noted.task_id.as_deref().unwrap_or("-");
    if crate::health::probe(&method, &path).is_some() {
        tracing::debug!(target: ACCESS_LOG_TARGET, %method, path, status, duration_ms, "request");
    } else {
        tracing::info!(
            target: ACCESS_LOG_TARGET,
            %method,
            path,
            operation,
            status,
            duration_ms,
            task_id,
            "request"
        );
    }
    response
}
