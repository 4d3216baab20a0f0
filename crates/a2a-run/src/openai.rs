//! [`OpenAiModel`]: a [`Model`] over any OpenAI-compatible chat-completions endpoint
//! (OpenAI, vLLM, Ollama, llama.cpp server), streamed when the caller wants drafts.

use std::collections::BTreeMap;
use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::middleware::{HttpRequestFactory, ReqwestService};
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{Map, Value, json};
use tower::ServiceExt;

use self::wire::{Chunk, Completion, PartialCall, reply, tool_call, wire_message, wire_tool};
use crate::model::{Drafts, Model, ModelError, ModelReply, ModelRequest};
use crate::run::Usage;

mod wire;

/// How long the model may stay silent by default: before its reply (not streamed), or
/// between two pieces of it (streamed). Local models on a CPU can take minutes.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// How long [`OpenAiModel::check`] waits for the server.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// How much of an error body goes into [`ModelError::detail`].
const DETAIL_LIMIT: usize = 500;

/// A language model behind an OpenAI-compatible `POST {base}/chat/completions`.
///
/// The HTTP layer never retries: a failed call is a [`ModelError`] at once, and its `code`
/// says whether trying again may help (`rate_limit`, `server_error`, `unreachable`,
/// `timeout`).
///
/// ```no_run
/// # async fn run() -> Result<(), a2a_run::model::ModelError> {
/// use a2a_run::openai::OpenAiModel;
///
/// let model = OpenAiModel::new("http://127.0.0.1:11434/v1", "qwen3:8b")
///     .with_api_key(std::env::var("OPENAI_API_KEY").ok());
/// model.check().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct OpenAiModel {
    client: Client<OpenAIConfig>,
    http: reqwest::Client,
    base_url: String,
    model: String,
    api_key: Option<String>,
    max_output_tokens: Option<u32>,
    temperature: Option<f32>,
    timeout: Duration,
}

impl std::fmt::Debug for OpenAiModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiModel")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("max_output_tokens", &self.max_output_tokens)
            .field("temperature", &self.temperature)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl OpenAiModel {
    /// The model `model` served at `base_url` (the part before `/chat/completions`, such
    /// as `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`), without an API key.
    ///
    /// The `OPENAI_*` environment variables are not read: everything comes from here.
    #[must_use]
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        let base_url = base_url.into().trim_end_matches('/').to_owned();
        Self {
            client: chat_client(&base_url, None),
            http: reqwest::Client::new(),
            base_url,
            model: model.into(),
            api_key: None,
            max_output_tokens: None,
            temperature: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Sends `api_key` as a bearer token (none when `None` or blank).
    #[must_use]
    pub fn with_api_key(mut self, api_key: Option<String>) -> Self {
        self.api_key = api_key
            .map(|key| key.trim().to_owned())
            .filter(|key| !key.is_empty());
        self.client = chat_client(&self.base_url, self.api_key.as_deref());
        self
    }

    /// Caps each reply at `max_output_tokens` (sent as `max_tokens`, which every
    /// OpenAI-compatible server reads); `None` leaves it to the server.
    #[must_use]
    pub fn with_max_output_tokens(mut self, max_output_tokens: Option<u32>) -> Self {
        self.max_output_tokens = max_output_tokens;
        self
    }

    /// Sets the sampling temperature; `None` leaves it to the server.
    #[must_use]
    pub fn with_temperature(mut self, temperature: Option<f32>) -> Self {
        self.temperature = temperature;
        self
    }

    /// How long the model may stay silent: before its reply when not streamed, before its
    /// first and between two pieces when streamed. Five minutes unless set.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The base URL calls go to.
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The model's name as the server knows it.
    #[must_use]
    pub fn model(&self) -> &str {
        &self.model
    }

    /// A start-up probe: `GET {base}/models` with the key, to tell a server that cannot be
    /// reached from one that refuses the key. A 404 counts as reachable (some servers have
    /// no `/models`).
    ///
    /// # Errors
    /// [`ModelError`] coded `unreachable`, `timeout`, `unauthorized` (401, 403),
    /// `rate_limit` (429) or `server_error` (5xx).
    pub async fn check(&self) -> Result<(), ModelError> {
        let url = format!("{}/models", self.base_url);
        let mut request = self.http.get(&url).timeout(CHECK_TIMEOUT);
        if let Some(key) = &self.api_key {
            if !is_header_safe(key) {
                return Err(unusable_key());
            }
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|error| {
            let code = if error.is_timeout() {
                "timeout"
            } else {
                "unreachable"
            };
            ModelError::new(code, format!("GET {url} failed: {error}"))
        })?;
        let status = response.status().as_u16();
        let result = match status {
            401 | 403 | 429 | 500..=599 => {
                let body = response.text().await.unwrap_or_default();
                Err(status_error(status, &url, &body))
            }
            _ => Ok(()),
        };
        result.map_err(|error| self.redact(error))
    }

    fn request_body(&self, request: &ModelRequest<'_>, stream: bool) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), Value::String(self.model.clone()));
        body.insert(
            "messages".into(),
            Value::Array(request.transcript.iter().map(wire_message).collect()),
        );
        if !request.tools.is_empty() {
            body.insert(
                "tools".into(),
                Value::Array(request.tools.iter().map(wire_tool).collect()),
            );
        }
        if let Some(max) = self.max_output_tokens {
            body.insert("max_tokens".into(), json!(max));
        }
        if let Some(temperature) = self.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        body.insert("stream".into(), Value::Bool(stream));
        if stream {
            body.insert("stream_options".into(), json!({ "include_usage": true }));
        }
        Value::Object(body)
    }

    async fn complete_whole(&self, body: Value) -> Result<ModelReply, ModelError> {
        let chat = self.client.chat();
        let call = chat.create_byot::<_, Completion>(body);
        let completion = tokio::time::timeout(self.timeout, call)
            .await
            .map_err(|_elapsed| self.silent())?
            .map_err(|error| self.call_error(error))?;
        if let Some(error) = completion.error {
            return Err(self.reported_error(&error));
        }
        let Some(choice) = completion.choices.unwrap_or_default().into_iter().next() else {
            return Err(ModelError::new(
                "bad_response",
                format!("{} answered without a choice", self.completions_url()),
            ));
        };
        let message = choice.message.unwrap_or_default();
        let tool_calls = message
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .map(|call| {
                let function = call.function.unwrap_or_default();
                tool_call(call.id, function.name, function.arguments)
            })
            .collect();
        Ok(reply(
            message.content.unwrap_or_default(),
            tool_calls,
            completion.usage.map(Usage::from),
            choice.finish_reason.as_deref(),
        ))
    }

    async fn complete_streamed(
        &self,
        body: Value,
        drafts: &Drafts,
    ) -> Result<ModelReply, ModelError> {
        let chat = self.client.chat();
        let call = chat.create_stream_byot::<_, Chunk>(body);
        let mut stream = tokio::time::timeout(self.timeout, call)
            .await
            .map_err(|_elapsed| self.silent())?
            .map_err(|error| self.call_error(error))?;
        let mut text = String::new();
        let mut calls: BTreeMap<u32, PartialCall> = BTreeMap::new();
        let mut usage = None;
        let mut finish = None;
        let mut chunks = 0_usize;
        while let Some(chunk) = tokio::time::timeout(self.timeout, stream.next())
            .await
            .map_err(|_elapsed| self.silent())?
        {
            let chunk = chunk.map_err(|error| self.call_error(error))?;
            // Servers report a failure met mid-stream as an `{"error": …}` chunk.
            if let Some(error) = chunk.error {
                return Err(self.reported_error(&error));
            }
            chunks += 1;
            if let Some(chunk_usage) = chunk.usage {
                usage = Some(Usage::from(chunk_usage));
            }
            // Only the first choice is read: we never ask for more than one (`n` unset).
            for choice in chunk
                .choices
                .unwrap_or_default()
                .into_iter()
                .filter(|choice| choice.index == 0)
            {
                let delta = choice.delta.unwrap_or_default();
                if let Some(piece) = delta.content.filter(|piece| !piece.is_empty()) {
                    text.push_str(&piece);
                    // A closed receiver only means nobody watches the drafts any more.
                    let _ = drafts.send(piece);
                }
                for call in delta.tool_calls.unwrap_or_default() {
                    let partial = calls.entry(call.index.unwrap_or_default()).or_default();
                    if let Some(id) = call.id.filter(|id| !id.is_empty()) {
                        partial.id = Some(id);
                    }
                    if let Some(function) = call.function {
                        // The name comes whole, once; some servers repeat it in later pieces.
                        if let Some(name) = function.name.filter(|name| !name.is_empty())
                            && partial.name.is_empty()
                        {
                            partial.name = name;
                        }
                        if let Some(arguments) = function.arguments {
                            partial.arguments.push_str(&arguments);
                        }
                    }
                }
                if choice.finish_reason.is_some() {
                    finish = choice.finish_reason;
                }
            }
        }
        if chunks == 0 {
            return Err(ModelError::new(
                "bad_response",
                format!(
                    "{} ended its stream without a chunk",
                    self.completions_url()
                ),
            ));
        }
        let tool_calls = calls
            .into_values()
            .map(|call| {
                tool_call(
                    call.id,
                    Some(call.name),
                    Some(Value::String(call.arguments)),
                )
            })
            .collect();
        Ok(reply(text, tool_calls, usage, finish.as_deref()))
    }

    fn completions_url(&self) -> String {
        format!("{}/chat/completions", self.base_url)
    }

    fn silent(&self) -> ModelError {
        ModelError::new(
            "timeout",
            format!(
                "{} was silent for {}s",
                self.completions_url(),
                self.timeout.as_secs_f32()
            ),
        )
    }

    fn call_error(&self, error: OpenAIError) -> ModelError {
        let url = self.completions_url();
        match error {
            OpenAIError::Boxed(boxed) => match boxed.downcast::<HttpStatus>() {
                Ok(status) => status_error(status.status, &url, &status.body),
                Err(other) => ModelError::new("bad_response", format!("POST {url}: {other}")),
            },
            OpenAIError::ApiError(api) => {
                status_error(api.status_code.as_u16(), &url, &api.api_error.message)
            }
            OpenAIError::Reqwest(error) => {
                let code = if error.is_timeout() {
                    "timeout"
                } else if error.is_connect() {
                    "unreachable"
                } else if error.is_decode() || error.is_body() {
                    "bad_response"
                } else {
                    "unreachable"
                };
                ModelError::new(code, format!("POST {url} failed: {error}"))
            }
            OpenAIError::JSONDeserialize(error, content) => ModelError::new(
                "bad_response",
                format!(
                    "POST {url}: undecodable answer ({error}): {}",
                    excerpt(&content)
                ),
            ),
            OpenAIError::StreamError(error) => ModelError::new(
                "bad_response",
                format!("POST {url}: broken stream: {error}"),
            ),
            OpenAIError::InvalidArgument(detail) => {
                ModelError::new("bad_request", format!("POST {url}: {detail}"))
            }
            other => ModelError::new("bad_response", format!("POST {url}: {other}")),
        }
    }

    /// An error the server reported in a 2xx answer.
    fn reported_error(&self, error: &Value) -> ModelError {
        ModelError::new(
            "server_error",
            format!(
                "{} reported an error: {}",
                self.completions_url(),
                excerpt(&error.to_string())
            ),
        )
    }

    /// Takes the key out of an error's detail, in case a server echoed it.
    fn redact(&self, mut error: ModelError) -> ModelError {
        if let Some(key) = &self.api_key {
            error.detail = error.detail.replace(key.as_str(), "[redacted]");
        }
        error
    }
}

#[async_trait]
impl Model for OpenAiModel {
    async fn complete(
        &self,
        request: ModelRequest<'_>,
        drafts: Option<Drafts>,
    ) -> Result<ModelReply, ModelError> {
        // async-openai panics on a key that cannot be a header value; refuse it here.
        if self
            .api_key
            .as_deref()
            .is_some_and(|key| !is_header_safe(key))
        {
            return Err(unusable_key());
        }
        let result = match &drafts {
            Some(drafts) => {
                let body = self.request_body(&request, true);
                self.complete_streamed(body, drafts).await
            }
            None => {
                let body = self.request_body(&request, false);
                self.complete_whole(body).await
            }
        };
        result.map_err(|error| self.redact(error))
    }
}

/// The async-openai client for `base_url`, whose HTTP layer neither retries nor loses a
/// failed call's status (its own would retry 429 and 5xx for as long as `Retry-After`
/// says, and reports a non-JSON error body without its status).
fn chat_client(base_url: &str, api_key: Option<&str>) -> Client<OpenAIConfig> {
    let config = OpenAIConfig::new()
        .with_api_base(base_url)
        .with_api_key(
            api_key
                .filter(|key| is_header_safe(key))
                .unwrap_or_default(),
        )
        .with_org_id("")
        .with_project_id("");
    let transport = ReqwestService::default();
    let service = tower::service_fn(move |factory: HttpRequestFactory| {
        let transport = transport.clone();
        async move {
            let response = transport.oneshot(factory).await?;
            let status = response.status().as_u16();
            if response.status().is_success() {
                return Ok(response);
            }
            let body = response.text().await.unwrap_or_default();
            Err(OpenAIError::Boxed(Box::new(HttpStatus { status, body })))
        }
    });
    Client::with_config(config).with_http_service(service)
}

/// A call answered with a status other than 2xx.
#[derive(Debug, thiserror::Error)]
#[error("http status {status}")]
struct HttpStatus {
    status: u16,
    body: String,
}

fn status_error(status: u16, url: &str, body: &str) -> ModelError {
    let code = match status {
        401 | 403 => "unauthorized",
        429 => "rate_limit",
        408 => "timeout",
        500..=599 => "server_error",
        400..=499 => "bad_request",
        _ => "bad_response",
    };
    ModelError::new(code, format!("{url} answered {status}: {}", excerpt(body)))
}

fn excerpt(text: &str) -> String {
    match text.char_indices().nth(DETAIL_LIMIT) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// True when `key` can be sent in an `Authorization` header.
fn is_header_safe(key: &str) -> bool {
    key.bytes()
        .all(|byte| byte == b'\t' || (0x20..0x7f).contains(&byte))
}

fn unusable_key() -> ModelError {
    ModelError::new(
        "unauthorized",
        "the API key holds characters an HTTP header cannot carry",
    )
}
