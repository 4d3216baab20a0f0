//! SendStreamingMessage and SubscribeToTask over SSE on both bindings (spec §2.2, §2.6, §8),
//! read from real sockets by a small SSE parser.

mod flow;
mod gated;
mod order;
mod subscribe;

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use a2a_server::{A2aServer, ExecutorError, RequestContext, ServerConfig, TaskUpdater};
use a2a_types::{A2aError, AgentCard, Artifact};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::support::{FnExecutor, TestServer, standard_card, user_message};

/// The standard card, declaring streaming.
pub fn streaming_card() -> AgentCard {
    let mut card = standard_card();
    card.capabilities.streaming = Some(true);
    card
}

/// Serves a closure executor under `config` with the streaming card.
pub async fn serve_streaming<F, Fut>(config: ServerConfig, execute: F) -> TestServer
where
    F: Fn(RequestContext, TaskUpdater) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), ExecutorError>> + Send + 'static,
{
    let builder = A2aServer::builder(streaming_card(), FnExecutor(execute)).config(config);
    TestServer::start_with(builder).await
}

/// The scripted agent most tests use, by message text: `reply` answers with a message,
/// `refuse` refuses (InvalidParams), `ask` asks for input, a follow-up `refuse` is refused,
/// anything else goes working → artifact → complete.
pub async fn scripted(context: RequestContext, updater: TaskUpdater) -> Result<(), ExecutorError> {
    match context.text().as_str() {
        "reply" => updater.reply("hello").await?,
        "refuse" => return Err(A2aError::invalid_params("refused by the agent").into()),
        "ask" => updater.require_input("what else?").await?,
        text => {
            updater.working(()).await?;
            updater.add_artifact(Artifact::from_text(text)).await?;
            updater.complete(()).await?;
        }
    }
    Ok(())
}

/// Steps an executor waits for, opened by the test.
#[derive(Clone)]
pub struct Gate(Arc<Semaphore>);

impl Gate {
    pub fn new() -> Self {
        Self(Arc::new(Semaphore::new(0)))
    }

    /// Lets the executor pass `steps` more times.
    pub fn open(&self, steps: usize) {
        self.0.add_permits(steps);
    }

    /// Waits until the test opens one step.
    pub async fn pass(&self) {
        self.0.acquire().await.unwrap().forget();
    }
}

/// The two HTTP bindings of the standard card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    JsonRpc,
    Rest,
}

pub const BOTH: [Binding; 2] = [Binding::JsonRpc, Binding::Rest];

/// A client without an overall timeout: streams live as long as a test needs them; reads
/// are bounded by [`Sse`] instead.
pub fn client() -> reqwest::Client {
    reqwest::Client::new()
}

impl Binding {
    /// SendStreamingMessage with `params` (the SendMessageRequest JSON).
    pub async fn send_stream(self, server: &TestServer, params: Value) -> reqwest::Response {
        match self {
            Self::JsonRpc => jsonrpc_stream(server, json!(1), "SendStreamingMessage", params).await,
            Self::Rest => rest_post(server, "/rest/message:stream", params).await,
        }
    }

    /// SubscribeToTask (POST on HTTP+JSON).
    pub async fn subscribe(self, server: &TestServer, task_id: &str) -> reqwest::Response {
        match self {
            Self::JsonRpc => {
                jsonrpc_stream(server, json!(1), "SubscribeToTask", json!({"id": task_id})).await
            }
            Self::Rest => {
                rest_post(
                    server,
                    &format!("/rest/tasks/{task_id}:subscribe"),
                    json!({}),
                )
                .await
            }
        }
    }

    /// The `StreamResponse` of an event: the bare data on HTTP+JSON, the `result` of a
    /// JSON-RPC response (checked) on JSON-RPC.
    pub fn payload(self, block: &Block) -> Value {
        assert_eq!(block.event, None, "not an error frame: {block:?}");
        let data = block.json();
        match self {
            Self::JsonRpc => {
                assert_eq!(data["jsonrpc"], "2.0", "{data}");
                assert!(data.get("error").is_none(), "{data}");
                data["result"].clone()
            }
            Self::Rest => data,
        }
    }

    /// The ErrorInfo reason of an `event: error` frame.
    pub fn error_reason(self, block: &Block) -> String {
        assert_eq!(block.event.as_deref(), Some("error"), "{block:?}");
        assert_eq!(block.id, None, "{block:?}");
        let data = block.json();
        let details = match self {
            Self::JsonRpc => {
                assert_eq!(data["jsonrpc"], "2.0", "{data}");
                assert_eq!(data["id"], 1, "{data}");
                &data["error"]["data"]
            }
            Self::Rest => &data["error"]["details"],
        };
        details[0]["reason"].as_str().unwrap().to_owned()
    }

    /// The reason of a plain (non-SSE) error response, checked for the binding's shape and
    /// the HTTP status the spec profile gives it.
    pub async fn plain_error(self, response: reqwest::Response, http_status: u16) -> String {
        let content_type = header(&response, "content-type");
        assert_ne!(content_type, "text/event-stream");
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        match self {
            Self::JsonRpc => {
                assert_eq!(status, 200, "{body}");
                assert_eq!(content_type, "application/json");
                body["error"]["data"][0]["reason"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            }
            Self::Rest => {
                assert_eq!(status, http_status, "{body}");
                assert_eq!(body["error"]["code"], http_status, "{body}");
                body["error"]["details"][0]["reason"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            }
        }
    }
}

/// Starts a JSON-RPC streaming call with this request `id`.
pub async fn jsonrpc_stream(
    server: &TestServer,
    id: Value,
    method: &str,
    params: Value,
) -> reqwest::Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    client()
        .post(server.url("/a2a"))
        .header("A2A-Version", "1.0")
        .header("Accept", "text/event-stream")
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// POSTs `body` as `application/a2a+json` to an HTTP+JSON path.
pub async fn rest_post(server: &TestServer, path: &str, body: Value) -> reqwest::Response {
    client()
        .post(server.url(path))
        .header("A2A-Version", "1.0")
        .header("Content-Type", "application/a2a+json")
        .header("Accept", "text/event-stream")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

/// SendStreamingMessage params for a text message.
pub fn stream_params(text: &str) -> Value {
    json!({"message": user_message(text)})
}

pub fn header(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// The member a `StreamResponse` sets: `task`, `message`, `statusUpdate` or `artifactUpdate`.
pub fn kind(response: &Value) -> &str {
    let object = response.as_object().unwrap();
    assert_eq!(object.len(), 1, "exactly one member: {response}");
    object.keys().next().unwrap()
}

/// The state a `task` or `statusUpdate` carries.
pub fn state(response: &Value) -> &str {
    let inner = &response[kind(response)];
    inner["status"]["state"].as_str().unwrap()
}

/// GetTask over JSON-RPC.
pub async fn get_task(server: &TestServer, task_id: &str) -> Value {
    server.call("GetTask", json!({"id": task_id})).await
}

/// Polls GetTask until the task is in `state`; panics after 30 s.
pub async fn wait_for_state(server: &TestServer, task_id: &str, state: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let task = get_task(server, task_id).await;
        if task["status"]["state"] == state {
            return task;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "task never reached {state}: {task}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One SSE block: comment lines and the `event`, `id` and `data` fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    pub comments: Vec<String>,
    pub event: Option<String>,
    pub id: Option<u64>,
    pub data: Vec<String>,
}

impl Block {
    /// A block of comments only (a keep-alive).
    pub fn is_comment(&self) -> bool {
        self.event.is_none() && self.id.is_none() && self.data.is_empty()
    }

    /// The one `data:` line, as JSON (one document per line).
    pub fn json(&self) -> Value {
        assert_eq!(self.data.len(), 1, "one data line: {self:?}");
        serde_json::from_str(&self.data[0]).unwrap()
    }

    fn parse(text: &str) -> Self {
        let mut block = Self::default();
        for line in text.split('\n') {
            if let Some(comment) = line.strip_prefix(':') {
                block
                    .comments
                    .push(comment.strip_prefix(' ').unwrap_or(comment).to_owned());
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => block.event = Some(value.to_owned()),
                "id" => block.id = Some(value.parse().unwrap()),
                "data" => block.data.push(value.to_owned()),
                other => panic!("unexpected SSE field {other:?} in {text:?}"),
            }
        }
        block
    }
}

type Chunks = Pin<Box<dyn Stream<Item = Result<Bytes, String>> + Send>>;

/// Reads SSE blocks from a response body.
pub struct Sse {
    chunks: Chunks,
    buffer: Vec<u8>,
    /// How long one read may take before the test fails as hung.
    pub read_timeout: Duration,
}

impl Sse {
    /// Checks a streaming response's status and headers, then reads its body.
    pub fn open(response: reqwest::Response) -> Self {
        assert_eq!(response.status().as_u16(), 200);
        assert_eq!(header(&response, "content-type"), "text/event-stream");
        assert_eq!(header(&response, "cache-control"), "no-cache");
        Self::from_chunks(Box::pin(
            response
                .bytes_stream()
                .map(|chunk| chunk.map_err(|error| error.to_string())),
        ))
    }

    pub fn from_chunks(chunks: Chunks) -> Self {
        Self {
            chunks,
            buffer: Vec::new(),
            read_timeout: Duration::from_secs(10),
        }
    }

    /// The next block, comments included; `None` once the body ended.
    pub async fn next_block(&mut self) -> Option<Block> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|window| window == b"\n\n") {
                let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = std::str::from_utf8(&block[..end]).unwrap();
                return Some(Block::parse(text));
            }
            let next = tokio::time::timeout(self.read_timeout, self.chunks.next())
                .await
                .expect("the stream went silent");
            match next {
                Some(Ok(chunk)) => self.buffer.extend_from_slice(&chunk),
                Some(Err(error)) => panic!("the stream failed: {error}"),
                None => {
                    assert!(self.buffer.is_empty(), "a partial block at the end");
                    return None;
                }
            }
        }
    }

    /// The next event, skipping keep-alive comments.
    pub async fn next_event(&mut self) -> Option<Block> {
        loop {
            let block = self.next_block().await?;
            if !block.is_comment() {
                return Some(block);
            }
        }
    }

    /// Every remaining event until the stream ends.
    pub async fn rest(&mut self) -> Vec<Block> {
        let mut events = Vec::new();
        while let Some(block) = self.next_event().await {
            events.push(block);
        }
        events
    }
}
