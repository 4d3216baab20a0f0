//! Counting the events of an SSE stream as its bytes arrive, without parsing their JSON,
//! and one JSON-RPC `SendStreamingMessage` stream read to its end, as the stream clients
//! (`streams`, `grpcload`) run it.

use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, CONTENT_TYPE};

use crate::bytes::contains;

/// The terminal task states; an event whose data names one ends an A2A stream.
const TERMINAL_STATES: [&str; 4] = [
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
];

/// Counts the events (blocks with a `data:` line; comments and keep-alives do not count) of
/// an SSE stream fed in arbitrary chunks, and notes the first one naming a terminal state.
#[derive(Debug, Default)]
pub struct EventCounter {
    /// A line cut by a chunk boundary, waiting for its end.
    partial: Vec<u8>,
    /// Whether the event being read has a `data:` line.
    has_data: bool,
    /// The terminal state named by the event being read.
    pending_terminal: Option<&'static str>,
    events: u64,
    terminal: Option<&'static str>,
}

impl EventCounter {
    /// A counter at the start of a stream.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next bytes of the stream; returns how many events they completed.
    pub fn feed(&mut self, mut bytes: &[u8]) -> u64 {
        let before = self.events;
        while let Some(end) = bytes.iter().position(|&byte| byte == b'\n') {
            let (line, rest) = bytes.split_at(end);
            bytes = &rest[1..];
            if self.partial.is_empty() {
                self.line(line);
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(line);
                self.line(&whole);
                whole.clear();
                self.partial = whole;
            }
        }
        self.partial.extend_from_slice(bytes);
        self.events - before
    }

    /// How many events were complete so far.
    #[must_use]
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The terminal state named by the first event that named one, once it is complete.
    #[must_use]
    pub fn terminal(&self) -> Option<&'static str> {
        self.terminal
    }

    fn line(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            if self.has_data {
                self.events += 1;
                if self.terminal.is_none() {
                    self.terminal = self.pending_terminal;
                }
            }
            self.has_data = false;
            self.pending_terminal = None;
        } else if let Some(data) = line.strip_prefix(b"data:") {
            self.has_data = true;
            if self.pending_terminal.is_none() && contains(data, b"TASK_STATE_") {
                self.pending_terminal = TERMINAL_STATES
                    .into_iter()
                    .find(|state| contains(data, state.as_bytes()));
            }
        }
    }
}

/// How one stream went.
#[derive(Debug)]
pub struct StreamOutcome {
    /// From sending the request to the end of the stream.
    pub elapsed: Duration,
    /// From sending the request to the first whole event; `None` when none arrived.
    pub first_event: Option<Duration>,
    /// The whole events received.
    pub events: u64,
    /// Why the stream counts as failed; `None` when it ended after an event naming
    /// `TASK_STATE_COMPLETED`.
    pub error: Option<String>,
}

impl StreamOutcome {
    /// A stream that failed before it could be measured.
    #[must_use]
    pub fn failed(error: String) -> Self {
        Self {
            elapsed: Duration::ZERO,
            first_event: None,
            events: 0,
            error: Some(error),
        }
    }

    /// A stream started at `start` that ended now with `read` (an error when reading it
    /// failed), after `events` events, the first at `first_event`. It counts as done when it
    /// was read to its end and `terminal`, the terminal state named by its events, is
    /// `TASK_STATE_COMPLETED`.
    #[must_use]
    pub fn ended(
        start: Instant,
        first_event: Option<Instant>,
        events: u64,
        terminal: Option<&str>,
        read: anyhow::Result<()>,
    ) -> Self {
        let error = match read {
            Err(error) => Some(format!("{error:#}")),
            Ok(()) => match terminal {
                Some("TASK_STATE_COMPLETED") => None,
                Some(other) => Some(format!("the task ended {other}")),
                None => Some(format!(
                    "the stream ended after {events} events without a final state"
                )),
            },
        };
        Self {
            elapsed: start.elapsed(),
            first_event: first_event.map(|at| at - start),
            events,
            error,
        }
    }
}

/// Sends a JSON-RPC `SendStreamingMessage` with the text `hi` and the message id
/// `message_id` to `url` and reads its SSE stream to the end, counting the events.
pub async fn send_streaming_message(
    client: &reqwest::Client,
    url: &str,
    message_id: &str,
) -> StreamOutcome {
    send_streaming_text(client, url, message_id, "hi").await
}

/// Sends a JSON-RPC `SendStreamingMessage` with the text `text` (already escaped for a JSON
/// string) and the message id `message_id` to `url` and reads its SSE stream to the end,
/// counting the events.
pub async fn send_streaming_text(
    client: &reqwest::Client,
    url: &str,
    message_id: &str,
    text: &str,
) -> StreamOutcome {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{{"message":{{"messageId":"{message_id}","role":"ROLE_USER","parts":[{{"text":"{text}"}}]}}}}}}"#
    );
    let start = Instant::now();
    let mut counter = EventCounter::new();
    let mut first_event = None;
    let read = read_stream(client, url, body, &mut counter, &mut first_event).await;
    StreamOutcome::ended(
        start,
        first_event,
        counter.events(),
        counter.terminal(),
        read,
    )
}

/// Feeds the stream's bytes to `counter`, noting in `first_event` when the first event is
/// whole.
async fn read_stream(
    client: &reqwest::Client,
    url: &str,
    body: String,
    counter: &mut EventCounter,
    first_event: &mut Option<Instant>,
) -> anyhow::Result<()> {
    let response = client
        .post(url)
        .header(crate::VERSION_HEADER.0, crate::VERSION_HEADER.1)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "text/event-stream")
        .body(body)
        .send()
        .await?;
    let mut response = crate::http::successful(response).await?;
    while let Some(chunk) = response.chunk().await? {
        if counter.feed(&chunk) > 0 && first_event.is_none() {
            *first_event = Some(Instant::now());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canned;

    #[test]
    fn counts_events_across_any_chunking() {
        let events = canned::echo_stream_payloads(canned::TASK_ID, 5);
        let mut body = String::from(": keep-alive\n\n");
        for (id, event) in events.iter().enumerate() {
            body.push_str(&canned::sse_event(Some(id as u64), event));
        }
        for chunk_size in [1, 2, 7, 64, body.len()] {
            let mut counter = EventCounter::new();
            let mut total = 0;
            for chunk in body.as_bytes().chunks(chunk_size) {
                total += counter.feed(chunk);
                if counter.events() < events.len() as u64 {
                    assert_eq!(counter.terminal(), None);
                }
            }
            assert_eq!(total, events.len() as u64);
            assert_eq!(counter.events(), events.len() as u64);
            assert_eq!(counter.terminal(), Some("TASK_STATE_COMPLETED"));
        }
    }

    #[test]
    fn an_unfinished_event_is_not_counted() {
        let mut counter = EventCounter::new();
        assert_eq!(counter.feed(b"data: {}\r\n\r\ndata: {\"x\":"), 1);
        assert_eq!(counter.events(), 1);
        assert_eq!(counter.terminal(), None);
    }
}
