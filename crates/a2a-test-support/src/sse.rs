//! A small SSE reader over a streaming response: each event's `id:` and its StreamResponse.

use futures::StreamExt as _;
use futures::stream::BoxStream;
use serde_json::Value;

/// One event: its `id:` and its StreamResponse (a JSON-RPC frame's `result`, or the
/// HTTP+JSON frame itself).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The `id:` field, when it is a number.
    pub id: Option<u64>,
    /// The StreamResponse.
    pub result: Value,
}

impl Event {
    /// `kind:detail`: the state of a task or status event, the texts of an artifact event
    /// (joined by `|`).
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
            let parts = artifact["artifact"]["parts"].as_array();
            let texts: Vec<&str> = parts
                .into_iter()
                .flatten()
                .filter_map(|part| part["text"].as_str())
                .collect();
            format!("artifact:{}", texts.join("|"))
        } else {
            format!("other:{result}")
        }
    }

    /// A status event in a terminal state.
    pub fn is_final(&self) -> bool {
        self.result
            .pointer("/statusUpdate/status/state")
            .and_then(Value::as_str)
            .is_some_and(|state| {
                matches!(
                    state,
                    "TASK_STATE_COMPLETED"
                        | "TASK_STATE_FAILED"
                        | "TASK_STATE_CANCELED"
                        | "TASK_STATE_REJECTED"
                )
            })
    }
}

/// Why a stream stopped giving events.
#[derive(Debug)]
pub enum End {
    /// The server closed it (after the final event, or when it went away).
    Closed,
    /// The connection broke.
    Broken(String),
    /// A frame was an error (a JSON-RPC error, an `event:` frame) or not JSON.
    Error(String),
}

/// Reads events from a streaming response.
pub struct Sse {
    body: BoxStream<'static, reqwest::Result<Vec<u8>>>,
    buffer: Vec<u8>,
    /// Each `data:` is a JSON-RPC response (else the StreamResponse itself).
    jsonrpc: bool,
}

impl std::fmt::Debug for Sse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sse")
            .field("jsonrpc", &self.jsonrpc)
            .finish_non_exhaustive()
    }
}

impl Sse {
    /// A reader of `response`'s body; `jsonrpc` when each frame is a JSON-RPC response.
    pub fn new(response: reqwest::Response, jsonrpc: bool) -> Self {
        Self {
            body: response
                .bytes_stream()
                .map(|chunk| chunk.map(|bytes| bytes.to_vec()))
                .boxed(),
            buffer: Vec::new(),
            jsonrpc,
        }
    }

    /// The next event, or why there is none.
    pub async fn next(&mut self) -> Result<Event, End> {
        loop {
            if let Some(at) = self.buffer.windows(2).position(|pair| pair == b"\n\n") {
                let frame: Vec<u8> = self.buffer.drain(..at + 2).collect();
                if let Some(event) = self.event(&String::from_utf8_lossy(&frame))? {
                    return Ok(event);
                }
                continue; // a comment, a keep-alive
            }
            match self.body.next().await {
                Some(Ok(bytes)) => self.buffer.extend_from_slice(&bytes),
                Some(Err(error)) => return Err(End::Broken(error.to_string())),
                None => return Err(End::Closed),
            }
        }
    }

    /// The event one frame holds; `None` for a frame without data.
    fn event(&self, frame: &str) -> Result<Option<Event>, End> {
        let mut id = None;
        let mut data = String::new();
        for line in frame.lines() {
            if let Some(value) = line.strip_prefix("id:") {
                id = value.trim().parse().ok();
            } else if let Some(value) = line.strip_prefix("data:") {
                data.push_str(value.trim());
            } else if line.starts_with("event:") {
                return Err(End::Error(frame.to_owned()));
            }
        }
        if data.is_empty() {
            return Ok(None);
        }
        let value: Value = serde_json::from_str(&data).map_err(|_| End::Error(data.clone()))?;
        let result = if self.jsonrpc {
            match value.get("result") {
                Some(result) => result.clone(),
                None => return Err(End::Error(data)),
            }
        } else {
            value
        };
        Ok(Some(Event { id, result }))
    }
}
