//! A minimal SSE reader over a test stream, yielding its events.

use std::time::Duration;

use futures::StreamExt as _;
use serde_json::Value;

/// One SSE event: its id and its StreamResponse (a JSON-RPC frame's `result`).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The `id:` field.
    pub id: Option<u64>,
    /// The StreamResponse.
    pub result: Value,
}

impl Event {
    /// `kind:detail`: the state of a task or status event, the text of an artifact event.
    pub fn summary(&self) -> String {
        let result = &self.result;
        if let Some(task) = result.get("task") {
            format!("task:{}", task["status"]["state"].as_str().unwrap_or(""))
        } else if let Some(status) = result.get("statusUpdate") {
            format!(
                "status:{}",
                status["status"]["state"].as_str().unwrap_or("")
            )
        } else if let Some(artifact) = result.get("artifactUpdate") {
            format!(
                "artifact:{}",
                artifact["artifact"]["parts"][0]["text"]
                    .as_str()
                    .unwrap_or("")
            )
        } else {
            format!("other:{result}")
        }
    }
}

/// A minimal SSE reader over a JSON-RPC or HTTP+JSON stream.
pub struct Sse {
    body: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: Vec<u8>,
    /// Each `data:` is a JSON-RPC response (else the StreamResponse itself).
    jsonrpc: bool,
}

impl std::fmt::Debug for Sse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sse").finish_non_exhaustive()
    }
}

impl Sse {
    pub(crate) fn new(response: reqwest::Response, jsonrpc: bool) -> Self {
        Self {
            body: response.bytes_stream().boxed(),
            buffer: Vec::new(),
            jsonrpc,
        }
    }

    /// The next event, or `None` at the end of the stream. Panics on an error frame, and
    /// after 20 s without an event.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = String::from_utf8(block).unwrap();
                let mut id = None;
                let mut data = String::new();
                for line in text.lines() {
                    if let Some(value) = line.strip_prefix("id:") {
                        id = Some(value.trim().parse().unwrap());
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push_str(value.trim_start());
                    } else if line.starts_with("event:") {
                        panic!("error frame: {text}");
                    }
                }
                if data.is_empty() {
                    continue; // a keep-alive comment
                }
                let value: Value = serde_json::from_str(&data).unwrap();
                assert!(value.get("error").is_none(), "{value}");
                let result = if self.jsonrpc {
                    value["result"].clone()
                } else {
                    value
                };
                return Some(Event { id, result });
            }
            let chunk = tokio::time::timeout(Duration::from_secs(20), self.body.next())
                .await
                .expect("an SSE event within 20 s")?;
            self.buffer.extend_from_slice(&chunk.ok()?);
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
