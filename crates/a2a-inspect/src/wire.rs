//! The wire log: every call the inspector makes to an agent, recorded by a
//! [`RecordingTransport`] wrapped around the network transport. Request head and body,
//! response head, and the response body's chunks are tee'd as they pass, so a stream is
//! recorded frame by frame without being buffered. Secrets are replaced by `<redacted>`
//! when the call is recorded, so they never sit in the log in clear.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Instant;

use a2a_client::ClientError;
use a2a_client::transport::{ResponseBody, Transport};
use bytes::Bytes;
use futures::Stream;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

/// How many calls the log keeps.
pub const WIRE_CAPACITY: usize = 500;

/// Longest body text kept for one call (a larger body is cut, and says so).
const MAX_BODY_CHARS: usize = 256 * 1024;

/// Most SSE frames kept for one call.
const MAX_FRAMES: usize = 2000;

/// What a secret is shown as.
pub const REDACTED: &str = "<redacted>";

/// Headers that always carry secrets.
const SECRET_HEADERS: [&str; 6] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
    "api-key",
];

/// Form and JSON members that carry secrets (OAuth token requests and answers).
const SECRET_MEMBERS: [&str; 5] = [
    "client_secret",
    "access_token",
    "refresh_token",
    "id_token",
    "password",
];

/// One recorded call, as `/api/wire` shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WireCall {
    /// Its number, from 1, in the order calls began.
    pub id: u64,
    /// The connection that made it, if any.
    pub connection: Option<String>,
    /// When it began (RFC 3339).
    pub time: String,
    /// The A2A operation (`SendMessage`, `GetAgentCard`…) or what else it is.
    pub operation: String,
    /// `JSONRPC`, `HTTP+JSON`, `GRPC`; `null` for card and registry fetches.
    pub binding: Option<String>,
    /// The HTTP method.
    pub method: String,
    /// The URL (secret query parameters redacted).
    pub url: String,
    /// Request headers, secrets redacted.
    pub request_headers: Vec<(String, String)>,
    /// The request body as text, JSON pretty-printed.
    pub request_body: String,
    /// The response status, once the head arrived.
    pub status: Option<u16>,
    /// Response headers, secrets redacted.
    pub response_headers: Vec<(String, String)>,
    /// The response body as text (JSON pretty-printed), once read; `null` for a stream.
    pub response_body: Option<String>,
    /// The SSE frames of a stream, in order.
    pub sse: Vec<SseFrame>,
    /// Milliseconds from the request to the end of the response (so far).
    pub duration_ms: u64,
    /// Why the call failed, if it did.
    pub error: Option<String>,
    /// The same request as a `curl` command, secrets as `$A2A_…` variables.
    pub curl: String,
    /// The equivalent `a2a` command, when there is one.
    pub a2a: Option<String>,
}

/// One frame of a recorded stream.
#[derive(Debug, Clone, Serialize)]
pub struct SseFrame {
    /// When it arrived (RFC 3339).
    pub time: String,
    /// The frame's text as received.
    pub frame: String,
}

/// The last [`WIRE_CAPACITY`] calls, and a broadcast of each new or updated one.
#[derive(Debug)]
pub struct WireLog {
    state: Mutex<LogState>,
    events: broadcast::Sender<WireCall>,
}

#[derive(Debug, Default)]
struct LogState {
    next_id: u64,
    calls: VecDeque<WireCall>,
}

impl Default for WireLog {
    fn default() -> Self {
        Self::new()
    }
}

impl WireLog {
    /// An empty log.
    pub fn new() -> Self {
        let (events, _) = broadcast::channel(1024);
        Self {
            state: Mutex::new(LogState::default()),
            events,
        }
    }

    /// The calls with an id above `after`, oldest first.
    pub fn calls_after(&self, after: u64) -> Vec<WireCall> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .calls
            .iter()
            .filter(|call| call.id > after)
            .cloned()
            .collect()
    }

    /// Each new or updated call from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<WireCall> {
        self.events.subscribe()
    }

    /// The calls kept, oldest first, and each new or updated call after them: nothing
    /// between the two is missed or told twice.
    pub fn follow(&self) -> (Vec<WireCall>, broadcast::Receiver<WireCall>) {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let receiver = self.events.subscribe();
        (state.calls.iter().cloned().collect(), receiver)
    }

    /// Records a new call; gives its id.
    pub fn begin(&self, mut call: WireCall) -> u64 {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.next_id += 1;
        call.id = state.next_id;
        if state.calls.len() >= WIRE_CAPACITY {
            state.calls.pop_front();
        }
        state.calls.push_back(call.clone());
        let id = call.id;
        // Sent under the lock, so that `follow` sees each change exactly once. Nobody
        // listening is fine.
        let _ = self.events.send(call);
        drop(state);
        id
    }

    /// Changes call `id` (if still kept) and tells the listeners.
    pub fn update(&self, id: u64, change: impl FnOnce(&mut WireCall)) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(call) = state.calls.iter_mut().rev().find(|call| call.id == id) else {
            return;
        };
        change(call);
        let call = call.clone();
        let _ = self.events.send(call);
        drop(state);
    }

    /// The id of the most recent call of `connection` for `operation`, if any.
    pub fn last_of(&self, connection: &str, operation: &str) -> Option<u64> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .calls
            .iter()
            .rev()
            .find(|call| {
                call.connection.as_deref() == Some(connection) && call.operation == operation
            })
            .map(|call| call.id)
    }
}

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

tokio::task_local! {
    /// The ids of the calls recorded while a handler's future runs in this scope: how a
    /// handler learns which wire entry its call to the agent became.
    pub static CALL_IDS: Arc<Mutex<Vec<u64>>>;
}

/// Runs `future`, giving the ids of the calls it recorded.
pub async fn with_call_ids<T>(future: impl Future<Output = T>) -> (T, Vec<u64>) {
    let ids = Arc::new(Mutex::new(Vec::new()));
    let output = CALL_IDS.scope(Arc::clone(&ids), future).await;
    let ids = ids.lock().unwrap_or_else(PoisonError::into_inner).clone();
    (output, ids)
}

/// RFC 3339 now, milliseconds, UTC.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// How a connection authenticates, for the `curl` and `a2a` renderings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AuthShape {
    /// No credentials.
    #[default]
    None,
    /// An API key in this header.
    ApiKey(String),
    /// A bearer token.
    Bearer,
    /// OAuth 2.0 client credentials with this client id.
    OAuth2(String),
}

/// What a [`RecordingTransport`] knows about the connection it records for.
#[derive(Debug, Default)]
pub struct RecordContext {
    /// The connection's id.
    pub connection: Option<String>,
    /// The URL the user connected to, for the `a2a` command.
    pub agent_url: String,
    /// How it authenticates.
    pub auth: AuthShape,
    /// Lower-case names of further headers and query parameters that carry secrets (the
    /// API key header, those the card's security schemes name).
    pub secret_names: Mutex<Vec<String>>,
}

impl RecordContext {
    fn is_secret(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        SECRET_HEADERS.contains(&name.as_str())
            || self
                .secret_names
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(&name)
    }
}

/// A [`Transport`] that records every call in a [`WireLog`] and passes it to `inner`.
#[derive(Debug, Clone)]
pub struct RecordingTransport {
    inner: Arc<dyn Transport>,
    log: Arc<WireLog>,
    context: Arc<RecordContext>,
}

impl RecordingTransport {
    /// Records `inner`'s calls in `log`, for the connection `context` describes.
    pub fn new(inner: Arc<dyn Transport>, log: Arc<WireLog>, context: Arc<RecordContext>) -> Self {
        Self {
            inner,
            log,
            context,
        }
    }
}

#[async_trait::async_trait]
impl Transport for RecordingTransport {
    async fn send(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<ResponseBody>, ClientError> {
        let started = Instant::now();
        let call = self.describe(&request);
        let id = self.log.begin(call);
        // Outside a handler's scope there is nobody to tell.
        let _ =
            CALL_IDS.try_with(|ids| ids.lock().unwrap_or_else(PoisonError::into_inner).push(id));
        match self.inner.send(request).await {
            Ok(response) => {
                let status = response.status().as_u16();
                let headers = self.headers(response.headers());
                let is_sse = response
                    .headers()
                    .get(http::header::CONTENT_TYPE)
                    .and_then(|value| value.to_str().ok())
                    .is_some_and(|value| value.starts_with("text/event-stream"));
                self.log.update(id, |call| {
                    call.status = Some(status);
                    call.response_headers = headers;
                    call.duration_ms = elapsed_ms(started);
                });
                let (parts, body) = response.into_parts();
                let tee = Tee {
                    inner: body,
                    log: Arc::clone(&self.log),
                    id,
                    started,
                    is_sse,
                    text: Vec::new(),
                    pending: String::new(),
                    frames: 0,
                    finished: false,
                };
                Ok(http::Response::from_parts(
                    parts,
                    ResponseBody::from_stream(tee),
                ))
            }
            Err(error) => {
                let text = crate::error::error_chain(&error);
                self.log.update(id, |call| {
                    call.error = Some(text);
                    call.duration_ms = elapsed_ms(started);
                });
                Err(error)
            }
        }
    }
}

impl RecordingTransport {
    fn headers(&self, headers: &http::HeaderMap) -> Vec<(String, String)> {
        headers
            .iter()
            .map(|(name, value)| {
                let value = if self.context.is_secret(name.as_str()) {
                    REDACTED.to_owned()
                } else {
                    String::from_utf8_lossy(value.as_bytes()).into_owned()
                };
                (name.as_str().to_owned(), value)
            })
            .collect()
    }

    fn describe(&self, request: &http::Request<Bytes>) -> WireCall {
        let url = self.redact_url(&request.uri().to_string());
        let content_type = request
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let json: Option<Value> = serde_json::from_slice(request.body()).ok();
        let (operation, binding) =
            operation_of(request.method(), request.uri().path(), json.as_ref());
        let request_body = if content_type.starts_with("application/x-www-form-urlencoded") {
            redact_form(&String::from_utf8_lossy(request.body()))
        } else {
            match &json {
                Some(value) => pretty_value(&redact_json(value.clone())),
                None => cut(String::from_utf8_lossy(request.body()).into_owned()),
            }
        };
        let request_headers = self.headers(request.headers());
        let curl = curl_command(
            request.method().as_str(),
            &url,
            request.headers(),
            request.body(),
            &self.context,
        );
        let a2a = a2a_command(
            &operation,
            request.uri().path(),
            json.as_ref(),
            binding.as_deref(),
            &self.context,
        );
        WireCall {
            id: 0,
            connection: self.context.connection.clone(),
            time: now(),
            operation,
            binding,
            method: request.method().as_str().to_owned(),
            url,
            request_headers,
            request_body,
            status: None,
            response_headers: Vec::new(),
            response_body: None,
            sse: Vec::new(),
            duration_ms: 0,
            error: None,
            curl,
            a2a,
        }
    }

    fn redact_url(&self, url: &str) -> String {
        let Ok(mut parsed) = url::Url::parse(url) else {
            return url.to_owned();
        };
        if parsed.query().is_none() {
            return url.to_owned();
        }
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(name, value)| {
                let value = if self.context.is_secret(&name) {
                    REDACTED.to_owned()
                } else {
                    value.into_owned()
                };
                (name.into_owned(), value)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
        parsed.to_string()
    }
}

/// The A2A operation and binding of a request, from its JSON-RPC method or REST route.
fn operation_of(
    method: &http::Method,
    path: &str,
    json: Option<&Value>,
) -> (String, Option<String>) {
    if let Some(name) = json
        .filter(|body| body.get("jsonrpc").is_some())
        .and_then(|body| body.get("method"))
        .and_then(Value::as_str)
    {
        return (name.to_owned(), Some("JSONRPC".to_owned()));
    }
    let rest = |name: &str| (name.to_owned(), Some("HTTP+JSON".to_owned()));
    let other = |name: &str| (name.to_owned(), None);
    if path.ends_with("agent-card.json") || path.ends_with("agent.json") {
        return other("GetAgentCard");
    }
    if path.ends_with("jwks.json") {
        return other("GetJwks");
    }
    if path.ends_with("/agents") && method == http::Method::GET {
        return other("ListAgents");
    }
    if path.ends_with("/message:send") {
        return rest("SendMessage");
    }
    if path.ends_with("/message:stream") {
        return rest("SendStreamingMessage");
    }
    if path.ends_with(":cancel") {
        return rest("CancelTask");
    }
    if path.ends_with(":subscribe") {
        return rest("SubscribeToTask");
    }
    if path.ends_with("/extendedAgentCard") {
        return rest("GetExtendedAgentCard");
    }
    if path.contains("/pushNotificationConfigs") {
        let name = match *method {
            http::Method::POST => "CreateTaskPushNotificationConfig",
            http::Method::DELETE => "DeleteTaskPushNotificationConfig",
            _ if path.ends_with("/pushNotificationConfigs") => "ListTaskPushNotificationConfigs",
            _ => "GetTaskPushNotificationConfig",
        };
        return rest(name);
    }
    if path.ends_with("/tasks") && method == http::Method::GET {
        return rest("ListTasks");
    }
    if path.contains("/tasks/") && method == http::Method::GET {
        return rest("GetTask");
    }
    if method == http::Method::POST && json.is_none() {
        return other("GetToken");
    }
    other(&format!("{method} request"))
}

/// `value` pretty-printed.
pub fn pretty_value(value: &Value) -> String {
    cut(serde_json::to_string_pretty(value).unwrap_or_default())
}

/// `bytes` as text, pretty-printed when JSON.
fn pretty_bytes(bytes: &[u8]) -> String {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => pretty_value(&redact_json(value)),
        Err(_) => cut(String::from_utf8_lossy(bytes).into_owned()),
    }
}

fn cut(mut text: String) -> String {
    if text.len() > MAX_BODY_CHARS {
        let mut end = MAX_BODY_CHARS;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("\n… (cut: the body is longer)");
    }
    text
}

/// `value` with the members that carry secrets redacted, at any depth.
fn redact_json(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(name, value)| {
                    if SECRET_MEMBERS.contains(&name.as_str()) && value.is_string() {
                        (name, Value::from(REDACTED))
                    } else {
                        (name, redact_json(value))
                    }
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(redact_json).collect()),
        other => other,
    }
}

fn redact_form(form: &str) -> String {
    form.split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if SECRET_MEMBERS.contains(&name) => format!("{name}={REDACTED}"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// `text` quoted for a POSIX shell.
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c))
    {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The variable a secret header's value is shown as.
fn variable_for(name: &str, value: &str, auth: &AuthShape) -> String {
    let lower = name.to_ascii_lowercase();
    if lower == "authorization" {
        if value.starts_with("Bearer ") || value.starts_with("bearer ") {
            return "Bearer $A2A_TOKEN".to_owned();
        }
        if let AuthShape::ApiKey(header) = auth
            && header.eq_ignore_ascii_case(name)
        {
            return "$A2A_API_KEY".to_owned();
        }
        return "$A2A_AUTHORIZATION".to_owned();
    }
    if lower.contains("cookie") {
        return "$A2A_COOKIE".to_owned();
    }
    "$A2A_API_KEY".to_owned()
}

fn curl_command(
    method: &str,
    url: &str,
    headers: &http::HeaderMap,
    body: &[u8],
    context: &RecordContext,
) -> String {
    let mut words = vec!["curl".to_owned(), "-sS".to_owned()];
    let streams = headers
        .get(http::header::ACCEPT)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.contains("text/event-stream"));
    if streams {
        words.push("-N".to_owned());
    }
    if method != "GET" || !body.is_empty() {
        words.push("-X".to_owned());
        words.push(method.to_owned());
    }
    words.push(shell_quote(url));
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes());
        if context.is_secret(name.as_str()) {
            let variable = variable_for(name.as_str(), &value, &context.auth);
            // Double quotes, so the shell puts the variable's value in.
            words.push("-H".to_owned());
            words.push(format!("\"{}: {variable}\"", name.as_str()));
        } else {
            words.push("-H".to_owned());
            words.push(shell_quote(&format!("{}: {value}", name.as_str())));
        }
    }
    if !body.is_empty() {
        let text = String::from_utf8_lossy(body);
        let text = match headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
        {
            Some(kind) if kind.starts_with("application/x-www-form-urlencoded") => {
                redact_form(&text).replace(REDACTED, "$A2A_OAUTH_CLIENT_SECRET")
            }
            _ => text.into_owned(),
        };
        words.push("--data-raw".to_owned());
        words.push(shell_quote(&text));
    }
    words.join(" ")
}

/// The `a2a` command that makes the same call, for the operations it has a command for.
fn a2a_command(
    operation: &str,
    path: &str,
    json: Option<&Value>,
    binding: Option<&str>,
    context: &RecordContext,
) -> Option<String> {
    let params = json.map(|body| body.get("params").unwrap_or(body));
    let task_from_path = || {
        let tail = path.rsplit("/tasks/").next()?;
        let id = tail.split([':', '/']).next()?;
        Some(percent_decode(id))
    };
    let task_id = || {
        params
            .and_then(|params| params.get("id"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(task_from_path)
    };
    let mut words = vec!["a2a".to_owned()];
    match operation {
        "SendMessage" | "SendStreamingMessage" => {
            let message = params?.get("message")?;
            let parts = message.get("parts").and_then(Value::as_array)?;
            words.push("send".to_owned());
            words.push(shell_quote(&context.agent_url));
            let text: Vec<&str> = parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            if !text.is_empty() {
                words.push(shell_quote(&text.join("\n")));
            }
            for part in parts {
                if let Some(data) = part.get("data") {
                    words.push("--data".to_owned());
                    words.push(shell_quote(&data.to_string()));
                }
            }
            if operation == "SendStreamingMessage" {
                words.push("--stream".to_owned());
            }
            for (member, flag) in [("taskId", "--task-id"), ("contextId", "--context-id")] {
                if let Some(value) = message.get(member).and_then(Value::as_str) {
                    words.push(flag.to_owned());
                    words.push(shell_quote(value));
                }
            }
        }
        "GetTask" | "CancelTask" | "SubscribeToTask" => {
            words.push(
                match operation {
                    "GetTask" => "get",
                    "CancelTask" => "cancel",
                    _ => "subscribe",
                }
                .to_owned(),
            );
            words.push(shell_quote(&context.agent_url));
            words.push(shell_quote(&task_id()?));
        }
        "ListTasks" => {
            words.push("list".to_owned());
            words.push(shell_quote(&context.agent_url));
        }
        "GetAgentCard" => {
            words.push("card".to_owned());
            words.push(shell_quote(&context.agent_url));
            return Some(words.join(" "));
        }
        _ => return None,
    }
    if let Some(binding) = binding {
        words.push("--binding".to_owned());
        words.push(shell_quote(binding));
    }
    match &context.auth {
        AuthShape::None => {}
        AuthShape::ApiKey(header) => {
            words.push("--api-key".to_owned());
            words.push("\"$A2A_API_KEY\"".to_owned());
            words.push("--api-key-header".to_owned());
            words.push(shell_quote(header));
        }
        AuthShape::Bearer => {
            words.push("--bearer".to_owned());
            words.push("\"$A2A_TOKEN\"".to_owned());
        }
        AuthShape::OAuth2(client_id) => {
            words.push("--oauth-client-id".to_owned());
            words.push(shell_quote(client_id));
            words.push("--oauth-client-secret".to_owned());
            words.push("\"$A2A_OAUTH_CLIENT_SECRET\"".to_owned());
        }
    }
    Some(words.join(" "))
}

fn percent_decode(text: &str) -> String {
    url::form_urlencoded::parse(format!("x={text}").as_bytes())
        .next()
        .map_or_else(|| text.to_owned(), |(_, value)| value.into_owned())
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A response body that records what passes through it.
struct Tee {
    inner: ResponseBody,
    log: Arc<WireLog>,
    id: u64,
    started: Instant,
    is_sse: bool,
    /// A plain body read so far.
    text: Vec<u8>,
    /// A stream's text after its last complete frame.
    pending: String,
    frames: usize,
    finished: bool,
}

impl Tee {
    fn chunk(&mut self, chunk: &[u8]) {
        if !self.is_sse {
            if self.text.len() < MAX_BODY_CHARS {
                self.text.extend_from_slice(chunk);
            }
            return;
        }
        self.pending
            .push_str(&String::from_utf8_lossy(chunk).replace("\r\n", "\n"));
        let mut frames = Vec::new();
        while let Some(end) = self.pending.find("\n\n") {
            let frame: String = self.pending.drain(..end + 2).collect();
            let frame = frame.trim_end_matches('\n').to_owned();
            if !frame.is_empty() {
                frames.push(frame);
            }
        }
        self.push_frames(frames);
    }

    fn push_frames(&mut self, frames: Vec<String>) {
        if frames.is_empty() {
            return;
        }
        let room = MAX_FRAMES.saturating_sub(self.frames);
        self.frames += frames.len();
        let time = now();
        let duration = elapsed_ms(self.started);
        self.log.update(self.id, |call| {
            call.sse
                .extend(frames.into_iter().take(room).map(|frame| SseFrame {
                    time: time.clone(),
                    frame,
                }));
            call.duration_ms = duration;
        });
    }

    fn finish(&mut self, error: Option<String>) {
        if self.finished {
            return;
        }
        self.finished = true;
        let rest = std::mem::take(&mut self.pending);
        let rest = rest.trim_end_matches('\n');
        if !rest.is_empty() {
            self.push_frames(vec![rest.to_owned()]);
        }
        let body = (!self.is_sse).then(|| pretty_bytes(&self.text));
        let duration = elapsed_ms(self.started);
        self.log.update(self.id, |call| {
            call.response_body = body;
            call.duration_ms = duration;
            if error.is_some() {
                call.error = error;
            }
        });
    }
}

impl Stream for Tee {
    type Item = Result<Bytes, ClientError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = Pin::new(&mut self.inner).poll_next(cx);
        match &polled {
            Poll::Ready(Some(Ok(chunk))) => {
                let chunk = chunk.clone();
                self.chunk(&chunk);
            }
            Poll::Ready(Some(Err(error))) => {
                let text = crate::error::error_chain(error);
                self.finish(Some(text));
            }
            Poll::Ready(None) => self.finish(None),
            Poll::Pending => {}
        }
        polled
    }
}

impl Drop for Tee {
    fn drop(&mut self) {
        // A body dropped before its end: the reader stopped (a closed page, a cancelled stream).
        if !self.finished {
            self.finish(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quoting_keeps_plain_words_and_escapes_quotes() {
        assert_eq!(shell_quote("http://a/b"), "http://a/b");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn secret_members_are_redacted_at_any_depth() {
        let value = serde_json::json!({"a": {"access_token": "x", "b": [{"client_secret": "y"}]}});
        let redacted = redact_json(value);
        assert_eq!(redacted["a"]["access_token"], REDACTED);
        assert_eq!(redacted["a"]["b"][0]["client_secret"], REDACTED);
        assert_eq!(
            redact_form("grant_type=x&client_secret=s"),
            "grant_type=x&client_secret=<redacted>"
        );
    }

    #[test]
    fn rest_routes_name_their_operation() {
        let post = http::Method::POST;
        assert_eq!(
            operation_of(&post, "/rest/message:stream", Some(&serde_json::json!({}))).0,
            "SendStreamingMessage"
        );
        assert_eq!(
            operation_of(&http::Method::GET, "/rest/tasks/t1", None).0,
            "GetTask"
        );
        assert_eq!(
            operation_of(&http::Method::GET, "/.well-known/agent-card.json", None).0,
            "GetAgentCard"
        );
    }
}
