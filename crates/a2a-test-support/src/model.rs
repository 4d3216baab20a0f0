//! A scripted OpenAI-compatible model server for tests: each `POST /v1/chat/completions`
//! answers with the next [`Step`] of a script, streamed as server-sent events when the
//! request asks for a stream, and every request body is kept for assertions.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use a2a_test_support::model::{ScriptedModel, Step};
//!
//! let server = ScriptedModel::start(vec![
//!     Step::tool_call("call_1", "read_file", serde_json::json!({ "path": "a.txt" })),
//!     Step::text("done").usage(12, 3),
//! ])
//! .await?;
//! let base_url = server.base_url(); // http://127.0.0.1:PORT/v1
//! # let _ = base_url;
//! assert!(server.requests().is_empty());
//! # Ok(()) }
//! ```

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// How many pieces a streamed text, or a tool call's arguments, is cut into.
const PIECES: usize = 3;

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Step {
    answer: Answer,
    delay: Duration,
    chunk_delay: Duration,
    usage: Option<(u64, u64)>,
    finish_reason: Option<String>,
}

#[derive(Debug, Clone)]
enum Answer {
    Reply {
        text: Option<String>,
        calls: Vec<ScriptedCall>,
    },
    Raw {
        status: u16,
        body: String,
    },
}

#[derive(Debug, Clone)]
struct ScriptedCall {
    id: String,
    name: String,
    arguments: String,
}

impl Step {
    fn reply(text: Option<String>, calls: Vec<ScriptedCall>) -> Self {
        Self {
            answer: Answer::Reply { text, calls },
            delay: Duration::ZERO,
            chunk_delay: Duration::ZERO,
            usage: None,
            finish_reason: None,
        }
    }

    /// A reply of text only (finish reason `stop`).
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self::reply(Some(text.into()), Vec::new())
    }

    /// A reply calling one tool (finish reason `tool_calls`); add more with
    /// [`and_tool_call`](Self::and_tool_call).
    #[must_use]
    pub fn tool_call(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<Value>,
    ) -> Self {
        Self::tool_call_raw(id, name, arguments.into().to_string())
    }

    /// A reply calling one tool with `arguments` sent exactly as given, valid JSON or not.
    #[must_use]
    pub fn tool_call_raw(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self::reply(None, Vec::new()).and_tool_call_raw(id, name, arguments)
    }

    /// This reply, also calling another tool.
    #[must_use]
    pub fn and_tool_call(
        self,
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<Value>,
    ) -> Self {
        self.and_tool_call_raw(id, name, arguments.into().to_string())
    }

    /// This reply, also calling another tool with `arguments` sent exactly as given.
    #[must_use]
    pub fn and_tool_call_raw(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        let call = ScriptedCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        };
        match &mut self.answer {
            Answer::Reply { calls, .. } => calls.push(call),
            Answer::Raw { .. } => {
                self.answer = Answer::Reply {
                    text: None,
                    calls: vec![call],
                }
            }
        }
        self
    }

    /// This reply, with `text` besides its tool calls.
    #[must_use]
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        if let Answer::Reply { text: slot, .. } = &mut self.answer {
            *slot = Some(text.into());
        }
        self
    }

    /// An HTTP error: `status` with `body` (sent as JSON when it parses as JSON).
    #[must_use]
    pub fn error(status: u16, body: impl Into<String>) -> Self {
        Self::raw(status, body)
    }

    /// Any answer: `status` with `body` as is, streamed or not (for undecodable answers).
    #[must_use]
    pub fn raw(status: u16, body: impl Into<String>) -> Self {
        Self {
            answer: Answer::Raw {
                status,
                body: body.into(),
            },
            ..Self::text("")
        }
    }

    /// Waits `delay` before answering.
    #[must_use]
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Waits `delay` before each chunk of a streamed answer.
    #[must_use]
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    /// Reports `prompt_tokens` and `completion_tokens` (when streamed, only if the request
    /// asked for usage with `stream_options.include_usage`).
    #[must_use]
    pub fn usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        self.usage = Some((prompt_tokens, completion_tokens));
        self
    }

    /// Sends `reason` as the finish reason instead of `stop` or `tool_calls`.
    #[must_use]
    pub fn finish_reason(mut self, reason: impl Into<String>) -> Self {
        self.finish_reason = Some(reason.into());
        self
    }
}

struct Shared {
    steps: Mutex<VecDeque<Step>>,
    requests: Mutex<Vec<Value>>,
    api_key: Option<String>,
}

impl Shared {
    fn authorized(&self, headers: &HeaderMap) -> bool {
        let Some(key) = &self.api_key else {
            return true;
        };
        headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .is_some_and(|given| given == key)
    }
}

/// The scripted model server; it stops when dropped.
pub struct ScriptedModel {
    address: SocketAddr,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

impl std::fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl ScriptedModel {
    /// Serves `steps` on `127.0.0.1` at a free port, without an API key.
    ///
    /// # Errors
    /// When no port can be bound.
    pub async fn start(steps: Vec<Step>) -> std::io::Result<Self> {
        Self::serve(steps, None).await
    }

    /// Serves `steps`, refusing with 401 any request without `Authorization: Bearer {api_key}`.
    ///
    /// # Errors
    /// When no port can be bound.
    pub async fn start_with_api_key(
        steps: Vec<Step>,
        api_key: impl Into<String>,
    ) -> std::io::Result<Self> {
        Self::serve(steps, Some(api_key.into())).await
    }

    async fn serve(steps: Vec<Step>, api_key: Option<String>) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let shared = Arc::new(Shared {
            steps: Mutex::new(steps.into()),
            requests: Mutex::new(Vec::new()),
            api_key,
        });
        let router = Router::new()
            .route("/v1/chat/completions", post(chat_completions))
            .route("/v1/models", get(models))
            .with_state(Arc::clone(&shared));
        let server = tokio::spawn(async move {
            // Ends only when the task is aborted (on drop); an accept error ends the test's server.
            let _ = axum::serve(listener, router).await;
        });
        Ok(Self {
            address,
            shared,
            server,
        })
    }

    /// Where clients point: `http://127.0.0.1:PORT/v1`.
    #[must_use]
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }

    /// The JSON bodies of the chat-completion requests received so far, oldest first (a
    /// body that was not JSON is kept as a string).
    #[must_use]
    pub fn requests(&self) -> Vec<Value> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Adds `step` at the end of the script.
    pub fn push(&self, step: Step) {
        self.shared
            .steps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(step);
    }

    /// How many steps are left.
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.shared
            .steps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn models(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if !shared.authorized(&headers) {
        return unauthorized();
    }
    axum::Json(json!({
        "object": "list",
        "data": [{ "id": "scripted", "object": "model", "created": 0, "owned_by": "a2a-test-support" }],
    }))
    .into_response()
}

async fn chat_completions(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !shared.authorized(&headers) {
        return unauthorized();
    }
    let request = serde_json::from_slice::<Value>(&body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    let ordinal = {
        let mut requests = shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        requests.push(request.clone());
        requests.len()
    };
    let step = shared
        .steps
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .pop_front();
    let Some(step) = step else {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            axum::Json(json!({ "error": {
                "message": format!("scripted model: the script has no step left for request {ordinal}"),
                "type": "server_error",
            }})),
        )
            .into_response();
    };
    tokio::time::sleep(step.delay).await;
    let model = request
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("scripted")
        .to_owned();
    let id = format!("chatcmpl-{ordinal}");
    let stream = request.get("stream").and_then(Value::as_bool) == Some(true);
    match &step.answer {
        Answer::Raw { status, body } => raw(*status, body.clone()),
        Answer::Reply { .. } if stream => {
            let include_usage = request
                .pointer("/stream_options/include_usage")
                .and_then(Value::as_bool)
                == Some(true);
            streamed(&step, &id, &model, include_usage)
        }
        Answer::Reply { text, calls } => {
            let mut message = json!({ "role": "assistant", "content": text });
            if !calls.is_empty() {
                message["tool_calls"] = calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": { "name": call.name, "arguments": call.arguments },
                        })
                    })
                    .collect();
            }
            let mut completion = json!({
                "id": id,
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [{ "index": 0, "message": message, "finish_reason": finish_reason(&step) }],
            });
            if let Some(usage) = step.usage {
                completion["usage"] = usage_json(usage);
            }
            axum::Json(completion).into_response()
        }
    }
}

fn streamed(step: &Step, id: &str, model: &str, include_usage: bool) -> Response {
    let chunk = |choices: Value| json!({ "id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": choices });
    let mut chunks = vec![chunk(
        json!([{ "index": 0, "delta": { "role": "assistant", "content": "" }, "finish_reason": null }]),
    )];
    if let Answer::Reply { text, calls } = &step.answer {
        for piece in text.as_deref().map(pieces).unwrap_or_default() {
            chunks.push(chunk(
                json!([{ "index": 0, "delta": { "content": piece }, "finish_reason": null }]),
            ));
        }
        for (index, call) in calls.iter().enumerate() {
            chunks.push(chunk(json!([{ "index": 0, "delta": { "tool_calls": [{
                "index": index,
                "id": call.id,
                "type": "function",
                "function": { "name": call.name, "arguments": "" },
            }]}, "finish_reason": null }])));
            for piece in pieces(&call.arguments) {
                chunks.push(chunk(json!([{ "index": 0, "delta": { "tool_calls": [{
                    "index": index,
                    "function": { "arguments": piece },
                }]}, "finish_reason": null }])));
            }
        }
    }
    chunks.push(chunk(
        json!([{ "index": 0, "delta": {}, "finish_reason": finish_reason(step) }]),
    ));
    if let Some(usage) = step.usage.filter(|_| include_usage) {
        let mut last = chunk(json!([]));
        last["usage"] = usage_json(usage);
        chunks.push(last);
    }
    let mut events: Vec<String> = chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .collect();
    events.push("data: [DONE]\n\n".to_owned());
    let chunk_delay = step.chunk_delay;
    let body = futures::stream::iter(events).then(move |event| async move {
        tokio::time::sleep(chunk_delay).await;
        Ok::<_, Infallible>(event)
    });
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(body),
    )
        .into_response()
}

fn raw(status: u16, body: String) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let content_type = if serde_json::from_str::<Value>(&body).is_ok() {
        "application/json"
    } else {
        "text/plain"
    };
    (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
}

fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        axum::Json(json!({ "error": {
            "message": "scripted model: missing or wrong API key",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }})),
    )
        .into_response()
}

fn finish_reason(step: &Step) -> String {
    if let Some(reason) = &step.finish_reason {
        return reason.clone();
    }
    match &step.answer {
        Answer::Reply { calls, .. } if !calls.is_empty() => "tool_calls".to_owned(),
        Answer::Reply { .. } | Answer::Raw { .. } => "stop".to_owned(),
    }
}

fn usage_json((prompt_tokens, completion_tokens): (u64, u64)) -> Value {
    json!({
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens.saturating_add(completion_tokens),
    })
}

/// `text` cut into [`PIECES`] pieces (fewer when it is shorter), on character boundaries.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let size = chars.len().div_ceil(PIECES);
    chars
        .chunks(size)
        .map(|piece| piece.iter().collect())
        .collect()
}
