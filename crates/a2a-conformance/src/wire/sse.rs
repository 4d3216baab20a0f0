//! Reading a Server-Sent Events answer.
//!
//! Reading a Server-Sent Events answer (both HTTP bindings): frames split and decoded, and the
//! reading stopped when the agent ends the stream, when it stays open too long after a final
//! event, or at the deadline.

use serde_json::Value;
use tokio::time::Instant;

use super::exchange::{FINAL_GRACE, StreamRecord, WireError};

/// What one SSE `data` decodes to.
pub(super) enum Frame {
    /// A `StreamResponse`.
    Event(Value),
    /// An error sent inside the stream.
    Error(WireError),
    /// Something the binding does not allow, said in words.
    Bad(String),
}

/// How far an event takes a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Final {
    /// A terminal task state or a direct message: the stream must end.
    End,
    /// An interrupted state: the stream may end.
    Pause,
}

const TERMINAL: [&str; 4] = [
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
];
const INTERRUPTED: [&str; 2] = ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"];

/// Whether `event` (a `StreamResponse`) ends its stream.
pub(crate) fn is_final(event: &Value) -> Option<Final> {
    if event.get("message").is_some() {
        return Some(Final::End);
    }
    let state = event
        .get("statusUpdate")
        .or_else(|| event.get("task"))
        .and_then(|holder| holder.pointer("/status/state"))
        .and_then(Value::as_str)?;
    if TERMINAL.contains(&state) {
        Some(Final::End)
    } else if INTERRUPTED.contains(&state) {
        Some(Final::Pause)
    } else {
        None
    }
}

/// How much raw stream text the record keeps.
const KEPT: usize = 4096;

/// Reads `response`'s events into `record` until the stream ends or `deadline`.
pub(super) async fn read(
    mut response: reqwest::Response,
    record: &mut StreamRecord,
    deadline: Instant,
    decode: impl Fn(&str) -> Frame,
) {
    let mut buffer = String::new();
    let mut final_at: Option<(Instant, Final)> = None;
    loop {
        let until = match final_at {
            Some((at, _)) => (at + FINAL_GRACE).min(deadline),
            None => deadline,
        };
        let chunk = match tokio::time::timeout_at(until, response.chunk()).await {
            Err(_) => {
                record.open_after_final = matches!(final_at, Some((_, Final::End)));
                return;
            }
            Ok(Err(error)) => {
                record
                    .framing
                    .push(format!("the stream broke: {}", error.without_url()));
                return;
            }
            Ok(Ok(None)) => {
                record.closed = true;
                return;
            }
            Ok(Ok(Some(bytes))) => bytes,
        };
        let text = String::from_utf8_lossy(&chunk);
        if record.received.len() < KEPT {
            record.received.push_str(&text);
        }
        buffer.push_str(&text.replace("\r\n", "\n"));
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            let mut data = Vec::new();
            let mut id = None;
            for line in frame.lines() {
                if let Some(value) = line.strip_prefix("data:") {
                    data.push(value.strip_prefix(' ').unwrap_or(value));
                } else if let Some(value) = line.strip_prefix("id:") {
                    id = Some(value.trim().to_owned());
                }
            }
            if data.is_empty() {
                continue;
            }
            match decode(&data.join("\n")) {
                Frame::Event(event) => {
                    if let Some(id) = id {
                        record.event_ids.push(id);
                    }
                    if final_at.is_none()
                        && let Some(kind) = is_final(&event)
                    {
                        final_at = Some((Instant::now(), kind));
                    }
                    record.events.push(event);
                }
                Frame::Error(error) => {
                    record.error_event = Some(error);
                    if final_at.is_none() {
                        final_at = Some((Instant::now(), Final::Pause));
                    }
                }
                Frame::Bad(problem) => record.framing.push(problem),
            }
        }
    }
}
