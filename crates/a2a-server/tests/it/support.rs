//! A server on a real socket, and small clients for both bindings.

use std::net::SocketAddr;

use a2a_server::auth::Authentication;
use a2a_server::{A2aServer, A2aServerBuilder, AgentExecutor};
use a2a_types::{AgentCard, AgentInterface, AgentSkill, ProtocolBinding};
use serde_json::{Value, json};

/// A card with a JSON-RPC interface at `/a2a` and an HTTP+JSON one at `/rest`.
pub fn standard_card() -> AgentCard {
    let mut skill = AgentSkill::new("echo", "Echo", "Repeats the message");
    skill.tags = vec!["echo".into()];
    let mut card = AgentCard::new("Test agent", "An agent for tests", "1.0.0")
        .with_interface(AgentInterface::new(
            "http://localhost/a2a",
            ProtocolBinding::JsonRpc,
        ))
        .with_interface(AgentInterface::new(
            "http://localhost/rest",
            ProtocolBinding::HttpJson,
        ))
        .with_skill(skill);
    card.default_input_modes = vec!["text/plain".into()];
    card.default_output_modes = vec!["text/plain".into()];
    card
}

/// A running server and an HTTP client pointed at it.
pub struct TestServer {
    pub addr: SocketAddr,
    pub server: A2aServer,
    pub http: reqwest::Client,
}

impl TestServer {
    /// Serves `executor` with the standard card.
    pub async fn start(executor: impl AgentExecutor) -> Self {
        Self::start_with(A2aServer::builder(standard_card(), executor)).await
    }

    /// Serves whatever `builder` builds, with authentication off: these tests are about
    /// everything else.
    pub async fn start_with(builder: A2aServerBuilder) -> Self {
        Self::start_secured(builder.authentication(Authentication::disabled())).await
    }

    /// Serves whatever `builder` builds, with its authentication (on by default).
    pub async fn start_secured(builder: A2aServerBuilder) -> Self {
        let server = builder.build().expect("server builds");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = server.router();
        tokio::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(20))
            .build()
            .unwrap();
        Self { addr, server, http }
    }

    /// `http://127.0.0.1:port` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Calls a JSON-RPC method at `/a2a` with `A2A-Version: 1.0`; returns the whole response.
    pub async fn jsonrpc(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let response = self
            .http
            .post(self.url("/a2a"))
            .header("A2A-Version", "1.0")
            .json(&body)
            .send()
            .await
            .unwrap();
        response.json().await.unwrap()
    }

    /// Calls a JSON-RPC method and returns its `result`, panicking on an error response.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        let response = self.jsonrpc(method, params).await;
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    /// Calls a JSON-RPC method that must fail; returns `error`.
    pub async fn call_err(&self, method: &str, params: Value) -> Value {
        let response = self.jsonrpc(method, params).await;
        assert!(
            response.get("result").is_none(),
            "{method} should fail: {response}"
        );
        response["error"].clone()
    }
}

/// A user text message as JSON, with a fresh message id.
pub fn user_message(text: &str) -> Value {
    json!({"messageId": uuid(), "role": "ROLE_USER", "parts": [{"text": text}]})
}

/// A fresh random id.
pub fn uuid() -> String {
    a2a_types::MessageId::generate().into_string()
}

/// An executor made from a closure.
pub struct FnExecutor<F>(pub F);

#[async_trait::async_trait]
impl<F, Fut> AgentExecutor for FnExecutor<F>
where
    F: Fn(a2a_server::RequestContext, a2a_server::TaskUpdater) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<(), a2a_server::ExecutorError>> + Send + 'static,
{
    async fn execute(
        &self,
        context: a2a_server::RequestContext,
        updater: a2a_server::TaskUpdater,
    ) -> Result<(), a2a_server::ExecutorError> {
        (self.0)(context, updater).await
    }
}

/// Serves a closure executor with the standard card.
pub async fn serve<F, Fut>(execute: F) -> TestServer
where
    F: Fn(a2a_server::RequestContext, a2a_server::TaskUpdater) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<(), a2a_server::ExecutorError>> + Send + 'static,
{
    TestServer::start(FnExecutor(execute)).await
}

/// SendMessage params for a user text message, with extra members merged into the message.
pub fn send_params(text: &str, message_extra: Value) -> Value {
    let mut message = user_message(text);
    if let (Some(message), Value::Object(extra)) = (message.as_object_mut(), message_extra) {
        message.extend(extra);
    }
    json!({"message": message})
}

// ---- Binding tests (bindings_jsonrpc.rs, bindings_rest.rs, bindings_card.rs) ----

/// Completes a message with one artifact echoing its text; the text `ask` asks for input
/// instead, leaving a task that can still be canceled.
pub struct BindingEcho;

#[async_trait::async_trait]
impl AgentExecutor for BindingEcho {
    async fn execute(
        &self,
        context: a2a_server::RequestContext,
        updater: a2a_server::TaskUpdater,
    ) -> Result<(), a2a_server::ExecutorError> {
        if context.text() == "ask" {
            updater.require_input("what else?").await?;
        } else {
            updater
                .add_artifact(a2a_types::Artifact::from_text(context.text()))
                .await?;
            updater.complete(()).await?;
        }
        Ok(())
    }
}

/// The extension `uri`, which every request must activate.
pub fn required_extension(uri: &str) -> a2a_types::card::AgentExtension {
    a2a_types::card::AgentExtension {
        uri: uri.into(),
        required: true,
        ..a2a_types::card::AgentExtension::default()
    }
}

/// [`BindingEcho`] served with the standard card, which requires the extension
/// `urn:ext:required`.
pub async fn serve_requiring_an_extension() -> TestServer {
    let mut card = standard_card();
    card.capabilities.extensions = vec![required_extension("urn:ext:required")];
    TestServer::start_with(A2aServer::builder(card, BindingEcho)).await
}

/// A response as the binding tests inspect it.
pub struct RawResponse {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

impl RawResponse {
    /// The body as JSON; panics with the text when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "body is not JSON ({error}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// A header's value as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

impl TestServer {
    /// A bodiless REST request with only the `A2A-Version: 1.0` header.
    pub async fn send_v1(&self, method: reqwest::Method, path: &str) -> RawResponse {
        self.send(method, path, &[("A2A-Version", "1.0")], None)
            .await
    }

    /// Sends exactly this request: nothing added but what reqwest always sends.
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> RawResponse {
        let mut request = self.http.request(method, self.url(path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.body(body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.bytes().await.unwrap().to_vec();
        RawResponse {
            status,
            headers,
            body,
        }
    }
}

/// Writes `request` on a fresh connection and reads one response: its status and body. For
/// requests reqwest will not make, such as a body that stops short of its `Content-Length`.
pub async fn raw_http(addr: SocketAddr, request: &[u8]) -> (u16, Vec<u8>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut received = Vec::new();
    let read = async {
        let mut buffer = [0_u8; 8192];
        loop {
            if let Some(end) = received.windows(4).position(|window| window == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&received[..end]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .map_or(0, |value| value.trim().parse::<usize>().unwrap());
                if received.len() >= end + 4 + length {
                    return end;
                }
            }
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => panic!(
                    "connection ended early: {}",
                    String::from_utf8_lossy(&received)
                ),
                Ok(count) => received.extend_from_slice(&buffer[..count]),
            }
        }
    };
    let end = tokio::time::timeout(std::time::Duration::from_secs(10), read)
        .await
        .expect("a response in time");
    let status_line = String::from_utf8_lossy(&received[..end])
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    (status, received[end + 4..].to_vec())
}

/// A task store whose backend is down: every call fails, with a cause that must never reach
/// a client.
pub struct BrokenStore;

impl BrokenStore {
    fn failure() -> a2a_server::store::StoreError {
        a2a_server::store::StoreError::Backend("disk on fire at /var/lib/secret".into())
    }
}

#[async_trait::async_trait]
impl a2a_server::store::TaskStore for BrokenStore {
    async fn ping(&self) -> Result<(), a2a_server::store::StoreError> {
        Err(Self::failure())
    }

    async fn load(
        &self,
        _: &a2a_server::store::TaskScope,
        _: &a2a_types::TaskId,
    ) -> Result<Option<a2a_server::store::StoredTask>, a2a_server::store::StoreError> {
        Err(Self::failure())
    }

    async fn save(
        &self,
        _: &a2a_server::store::TaskScope,
        _: &a2a_types::Task,
        _: a2a_server::store::Expected,
        _: &[a2a_types::StreamResponse],
    ) -> Result<a2a_server::store::Saved, a2a_server::store::StoreError> {
        Err(Self::failure())
    }

    async fn events(
        &self,
        _: &a2a_server::store::TaskScope,
        _: &a2a_types::TaskId,
        _: u64,
        _: usize,
    ) -> Result<Option<Vec<a2a_server::TaskEvent>>, a2a_server::store::StoreError> {
        Err(Self::failure())
    }

    async fn list(
        &self,
        _: &a2a_server::store::TaskScope,
        _: &a2a_server::store::TaskQuery,
    ) -> Result<a2a_server::store::TaskPage, a2a_server::store::StoreError> {
        Err(Self::failure())
    }
}

// ---- Limits and shutdown (limits.rs, shutdown.rs) ----

/// Watches an [`Probe::executor`]: which messages it ran and which saw their cancellation, and
/// holds `hold` turns until released.
#[derive(Clone, Default)]
pub struct Probe {
    inner: std::sync::Arc<ProbeInner>,
}

struct ProbeInner {
    ran: std::sync::Mutex<Vec<String>>,
    canceled: std::sync::Mutex<Vec<String>>,
    gate: tokio::sync::Semaphore,
}

impl Default for ProbeInner {
    fn default() -> Self {
        Self {
            ran: std::sync::Mutex::default(),
            canceled: std::sync::Mutex::default(),
            gate: tokio::sync::Semaphore::new(0),
        }
    }
}

impl Probe {
    /// An executor acting on the message text:
    /// - `hold…`: WORKING, then COMPLETED once [`Probe::release`]d; returns when canceled;
    /// - `stubborn`: WORKING until its cancellation fires, then returns;
    /// - `panic`: panics;
    /// - `reply`: replies with the message `replied`;
    /// - `idle`: returns without a word;
    /// - anything else: COMPLETED at once.
    pub fn executor(&self) -> impl AgentExecutor {
        let probe = self.clone();
        FnExecutor(
            move |context: a2a_server::RequestContext, updater: a2a_server::TaskUpdater| {
                let probe = probe.clone();
                async move {
                    let text = context.text();
                    probe.inner.ran.lock().unwrap().push(text.clone());
                    match text.as_str() {
                        "panic" => panic!("the agent panics on purpose"),
                        "reply" => return Ok(updater.reply("replied").await?),
                        "idle" => return Ok(()),
                        _ => {}
                    }
                    if !(text.starts_with("hold") || text == "stubborn") {
                        return Ok(updater.complete(()).await?);
                    }
                    updater.working("held").await?;
                    let released = async {
                        if text == "stubborn" {
                            std::future::pending::<()>().await;
                        }
                        probe.inner.gate.acquire().await.unwrap().forget();
                    };
                    tokio::select! {
                        () = released => Ok(updater.complete(()).await?),
                        () = context.cancellation.cancelled() => {
                            probe.inner.canceled.lock().unwrap().push(text);
                            Ok(())
                        }
                    }
                }
            },
        )
    }

    /// Lets one held turn complete.
    pub fn release(&self) {
        self.inner.gate.add_permits(1);
    }

    /// The texts of the messages the executor ran, in order.
    pub fn ran(&self) -> Vec<String> {
        self.inner.ran.lock().unwrap().clone()
    }

    /// The texts of the turns that saw their cancellation.
    pub fn canceled(&self) -> Vec<String> {
        self.inner.canceled.lock().unwrap().clone()
    }

    /// Waits until the executor ran `text`.
    pub async fn wait_started(&self, text: &str) {
        eventually(&format!("{text} to start"), || async {
            self.ran().iter().any(|ran| ran == text)
        })
        .await;
    }
}

/// Serves a [`Probe`] with `max_concurrent_tasks` and `task_queue_size`, on a card that
/// declares streaming.
pub async fn serve_probe(probe: &Probe, max_concurrent_tasks: usize, queue: usize) -> TestServer {
    let mut config = a2a_server::ServerConfig::default();
    config.max_concurrent_tasks = max_concurrent_tasks;
    config.task_queue_size = queue;
    let mut card = standard_card();
    card.capabilities.streaming = Some(true);
    TestServer::start_with(A2aServer::builder(card, probe.executor()).config(config)).await
}

/// Polls `check` every 10 ms until it holds; panics naming `what` after 5 s.
pub async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    while !check().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// SendMessage params for `text`, with `returnImmediately` set as given.
pub fn send_params_returning(text: &str, return_immediately: bool) -> Value {
    let mut params = send_params(text, json!({}));
    params["configuration"] = json!({"returnImmediately": return_immediately});
    params
}

impl TestServer {
    /// SendMessage of `text` with `returnImmediately`, expecting a result.
    pub async fn send_returning_immediately(&self, text: &str) -> Value {
        self.call("SendMessage", send_params_returning(text, true))
            .await
    }

    /// The task's state, through GetTask.
    pub async fn state_of(&self, task_id: &str) -> String {
        let task = self.call("GetTask", json!({"id": task_id})).await;
        task["status"]["state"].as_str().unwrap().to_owned()
    }

    /// SendMessage of `text` over HTTP+JSON.
    pub async fn rest_send_message(&self, text: &str) -> RawResponse {
        let body = json!({"message": user_message(text)});
        let headers = [("A2A-Version", "1.0"), ("Content-Type", "application/json")];
        let path = "/rest/message:send";
        self.send(
            reqwest::Method::POST,
            path,
            &headers,
            Some(body.to_string().into_bytes()),
        )
        .await
    }

    /// SendStreamingMessage of `text`, called in process, which must be refused `when`;
    /// the refusal.
    pub async fn streaming_refusal(&self, text: &str, when: &str) -> a2a_types::A2aError {
        let request = serde_json::from_value(json!({"message": user_message(text)})).unwrap();
        let handler = self.server.handler();
        let streaming = handler
            .send_streaming_message(&a2a_server::CallContext::v1(), request)
            .await;
        let Err(error) = streaming else {
            panic!("a streaming request must be refused {when}");
        };
        error
    }
}

/// Serves `probe` with one task slot and a queue of one, and fills the slot with a blocking
/// SendMessage of `hold` whose turn runs until the probe lets it go.
pub async fn hold_the_only_slot(
    probe: &Probe,
) -> (std::sync::Arc<TestServer>, tokio::task::JoinHandle<Value>) {
    let server = std::sync::Arc::new(serve_probe(probe, 1, 1).await);
    let first = start_blocking(&server, probe, "hold").await;
    (server, first)
}

/// Starts a blocking SendMessage of `text` on its own tokio task and waits until its turn
/// runs (the probe agent reports it).
pub async fn start_blocking(
    server: &std::sync::Arc<TestServer>,
    probe: &Probe,
    text: &str,
) -> tokio::task::JoinHandle<Value> {
    let request = {
        let server = std::sync::Arc::clone(server);
        let text = text.to_owned();
        tokio::spawn(async move {
            server
                .call("SendMessage", send_params_returning(&text, false))
                .await
        })
    };
    probe.wait_started(text).await;
    request
}
