//! A small SSE reader over a JSON-RPC stream: each event's id and StreamResponse.

use futures::StreamExt as _;
use serde_json::Value;

/// One event: its `id:` and its StreamResponse (the JSON-RPC frame's `result`).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: Option<u64>,
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
    /// A frame was not a JSON-RPC result.
    Error(String),
}

/// Reads events from a streaming response.
pub struct Sse {
    body: futures::stream::BoxStream<'static, reqwest::Result<Vec<u8>>>,
    buffer: Vec<u8>,
}

impl Sse {
    pub fn new(response: reqwest::Response) -> Self {
        Self {
            body: response
                .bytes_stream()
                .map(|chunk| chunk.map(|bytes| bytes.to_vec()))
                .boxed(),
            buffer: Vec::new(),
        }
    }

    /// The next event, or why there is none.
    pub async fn next(&mut self) -> Result<Event, End> {
        loop {
            if let Some(at) = self.buffer.windows(2).position(|pair| pair == b"\n\n") {
                let frame: Vec<u8> = self.buffer.drain(..at + 2).collect();
                let frame = String::from_utf8_lossy(&frame);
                let mut id = None;
                let mut data = String::new();
                for line in frame.lines() {
                    if let Some(value) = line.strip_prefix("id:") {
                        id = value.trim().parse().ok();
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push_str(value.trim());
                    }
                }
                if data.is_empty() {
                    continue; // a comment, a keep-alive
                }
                let frame: Value =
                    serde_json::from_str(&data).map_err(|_| End::Error(data.clone()))?;
                let Some(result) = frame.get("result") else {
                    return Err(End::Error(data));
                };
                return Ok(Event {
                    id,
                    result: result.clone(),
                });
            }
            match self.body.next().await {
                Some(Ok(bytes)) => self.buffer.extend_from_slice(&bytes),
                Some(Err(error)) => return Err(End::Broken(error.to_string())),
                None => return Err(End::Closed),
            }
        }
    }
}
