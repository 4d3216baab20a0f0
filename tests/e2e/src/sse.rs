//! The shared SSE reader, made strict for the cluster tests: an error frame panics, and so
//! does 20 s without an event.

use std::time::Duration;

pub use a2a_test_support::sse::Event;
use a2a_test_support::sse::{End, Sse as Reader};

/// An SSE reader over a JSON-RPC or HTTP+JSON stream.
#[derive(Debug)]
pub struct Sse(Reader);

impl Sse {
    pub(crate) fn new(response: reqwest::Response, jsonrpc: bool) -> Self {
        Self(Reader::new(response, jsonrpc))
    }

    /// The next event, or `None` at the end of the stream. Panics on an error frame, and
    /// after 20 s without an event.
    pub async fn next(&mut self) -> Option<Event> {
        let next = tokio::time::timeout(Duration::from_secs(20), self.0.next())
            .await
            .expect("an SSE event within 20 s");
        match next {
            Ok(event) => Some(event),
            Err(End::Closed | End::Broken(_)) => None,
            Err(End::Error(frame)) => panic!("error frame: {frame}"),
        }
    }

    /// Every remaining event.
    pub async fn rest(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }
}
