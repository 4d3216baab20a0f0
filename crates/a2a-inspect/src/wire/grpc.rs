//! gRPC calls, which do not pass through the recording transport, logged at the call level.

use std::sync::Arc;
use std::time::Instant;

use a2a_client::ClientError;
use serde_json::Value;

use super::context::RecordContext;
use super::log::{SseFrame, WireCall, WireLog, elapsed_ms, now};
use super::redact::{pretty_value, redact_json};
use super::replay::a2a_command;

/// A call made over gRPC, recorded at the call level as it goes: gRPC does not pass
/// through the [`RecordingTransport`], so its entry holds the request and the answer (or
/// each streamed event) as JSON, without headers.
#[derive(Debug)]
pub(crate) struct GrpcCall {
    log: Arc<WireLog>,
    id: u64,
    started: Instant,
}

impl GrpcCall {
    /// Records the start of `operation` at `url` with `request`, for the connection
    /// `context` describes.
    pub(crate) fn start(
        log: &Arc<WireLog>,
        context: &RecordContext,
        operation: &str,
        url: &str,
        request: &Value,
    ) -> Self {
        let call = WireCall {
            id: 0,
            connection: context.connection.clone(),
            time: now(),
            operation: operation.to_owned(),
            binding: Some("GRPC".to_owned()),
            method: "POST".to_owned(),
            url: url.to_owned(),
            request_headers: Vec::new(),
            request_body: pretty_value(&redact_json(request.clone())),
            status: None,
            response_headers: Vec::new(),
            response_body: None,
            sse: Vec::new(),
            duration_ms: 0,
            error: None,
            curl: String::new(),
            a2a: a2a_command(operation, "", Some(request), Some("GRPC"), context),
        };
        Self {
            log: Arc::clone(log),
            id: log.begin(call),
            started: Instant::now(),
        }
    }

    /// The entry's id.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// One streamed event arrived.
    pub(crate) fn event(&self, event: &Value) {
        let frame = SseFrame {
            time: now(),
            frame: format!("data: {event}"),
        };
        self.log.update(self.id, |call| call.sse.push(frame));
    }

    /// The answer of a unary call arrived.
    pub(crate) fn answer(&self, answer: &Value) {
        let body = pretty_value(answer);
        self.log
            .update(self.id, |call| call.response_body = Some(body));
    }

    /// The call ended, with `error` when it failed.
    pub(crate) fn end(&self, error: Option<&ClientError>) {
        let error = error.map(crate::error::error_chain);
        let duration = elapsed_ms(self.started);
        self.log.update(self.id, |call| {
            call.status = error.is_none().then_some(200);
            call.error = error;
            call.duration_ms = duration;
        });
    }
}
