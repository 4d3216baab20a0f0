//! End-to-end test support: agent servers on real sockets, each on a runtime of its own so a
//! test can kill one abruptly, over a real PostgreSQL database.
//!
//! ```no_run
//! # async fn run() {
//! let Some(database) = a2a_e2e::Postgres::schema_for_test().await else {
//!     return; // no PostgreSQL here, and not in CI: skipped with a notice
//! };
//! let agent = a2a_e2e::GatedAgent::default();
//! let a = a2a_e2e::Instance::start(&database, "a", agent.clone());
//! let task = a.call("SendMessage", a2a_e2e::send("hello", None)).await;
//! # let _ = task;
//! # }
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::missing_panics_doc)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use a2a_server::{A2aServer, ServerConfig};
use a2a_store_sql::{SqlStore, SqlStoreOptions};
use a2a_types::{AgentCapabilities, AgentCard, AgentInterface, Artifact, ProtocolBinding};
use futures::StreamExt as _;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

/// How long a lease lives in these tests: short, so expiry is quick to observe.
pub const LEASE_TTL: Duration = Duration::from_millis(1500);

/// A PostgreSQL schema of one test's own.
#[derive(Debug, Clone)]
pub struct Postgres {
    /// The database URL.
    pub url: String,
    /// The schema.
    pub schema: String,
}

impl Postgres {
    /// The test database (`A2A_TEST_POSTGRES_URL`, else the local one) and a fresh schema
    /// name. When the database cannot be reached the test is skipped with a notice
    /// (`None`), except under `CI=true`, where it fails: CI always runs these tests against a
    /// real server.
    pub async fn schema_for_test() -> Option<Self> {
        let url = a2a_test_support::postgres::reachable().await?;
        let schema = format!("a2a_e2e_{}", uuid::Uuid::new_v4().simple());
        Some(Self { url, schema })
    }

    /// A store over this schema for instance `id`.
    pub async fn store(&self, id: &str) -> SqlStore {
        let options = SqlStoreOptions::new()
            .postgres_schema(self.schema.clone())
            .instance_id(id)
            .lease_ttl(LEASE_TTL);
        SqlStore::connect(&self.url, options).await.unwrap()
    }
}

/// A card serving JSON-RPC at `/a2a` and HTTP+JSON at `/rest`, with streaming.
pub fn card() -> AgentCard {
    let mut card = AgentCard::new(
        "Cluster agent",
        "An agent served by several instances",
        "1.0.0",
    )
    .with_interface(AgentInterface::new(
        "http://localhost/a2a",
        ProtocolBinding::JsonRpc,
    ))
    .with_interface(AgentInterface::new(
        "http://localhost/rest",
        ProtocolBinding::HttpJson,
    ));
    card.capabilities = AgentCapabilities {
        streaming: Some(true),
        push_notifications: Some(true),
        ..AgentCapabilities::default()
    };
    card.default_input_modes = vec!["text/plain".into()];
    card.default_output_modes = vec!["text/plain".into()];
    card
}

/// An agent shared by every instance of a test:
/// - `slow`: WORKING, an artifact `part 1`, then waits for the gate (or its cancellation),
///   then `part 2` and COMPLETED;
/// - `ask`: asks for input; its follow-up completes with an artifact echoing the answer;
/// - anything else: an artifact echoing the text, COMPLETED.
#[derive(Debug, Clone)]
pub struct GatedAgent {
    /// Opened by the test, one permit per `slow` turn to let through.
    pub gate: Arc<Semaphore>,
    /// How many turns saw their cancellation fire.
    pub canceled: Arc<AtomicUsize>,
    /// How many `slow` turns started.
    pub started: Arc<AtomicUsize>,
}

impl Default for GatedAgent {
    fn default() -> Self {
        Self {
            gate: Arc::new(Semaphore::new(0)),
            canceled: Arc::default(),
            started: Arc::default(),
        }
    }
}

impl GatedAgent {
    /// Lets one waiting `slow` turn go on.
    pub fn open(&self) {
        self.gate.add_permits(1);
    }

    /// How many turns saw their cancellation.
    pub fn canceled(&self) -> usize {
        self.canceled.load(Ordering::SeqCst)
    }
}

#[async_trait::async_trait]
impl AgentExecutor for GatedAgent {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let text = context.text();
        if context.is_follow_up() {
            updater
                .add_artifact(Artifact::from_text(format!("answer: {text}")))
                .await?;
            updater.complete(()).await?;
            return Ok(());
        }
        match text.as_str() {
            "slow" => {
                self.started.fetch_add(1, Ordering::SeqCst);
                updater.working("on it").await?;
                updater.add_artifact(Artifact::from_text("part 1")).await?;
                tokio::select! {
                    permit = self.gate.acquire() => permit.map_err(ExecutorError::internal)?.forget(),
                    () = context.cancellation.cancelled() => {
                        self.canceled.fetch_add(1, Ordering::SeqCst);
                        return Ok(());
                    }
                }
                updater.add_artifact(Artifact::from_text("part 2")).await?;
                updater.complete(()).await?;
            }
            "ask" => updater.require_input("which colour?").await?,
            _ => {
                updater.add_artifact(Artifact::from_text(text)).await?;
                updater.complete(()).await?;
            }
        }
        Ok(())
    }
}

/// Two instances, `a` and `b`, of one [`GatedAgent`] over one fresh schema; `None` when the
/// test is skipped (see [`Postgres::schema_for_test`]). Fields drop in declaration order:
/// `b`, `a`, the agent, then the database.
#[derive(Debug)]
pub struct Cluster {
    /// Instance `b`.
    pub b: Instance,
    /// Instance `a`.
    pub a: Instance,
    /// The agent both serve.
    pub agent: GatedAgent,
    /// The schema both share.
    pub database: Postgres,
}

impl Cluster {
    /// Starts `a`, then `b`, over a fresh schema.
    pub async fn start() -> Option<Self> {
        let database = Postgres::schema_for_test().await?;
        let agent = GatedAgent::default();
        let a = Instance::start(&database, "a", agent.clone());
        let b = Instance::start(&database, "b", agent.clone());
        Some(Self {
            b,
            a,
            agent,
            database,
        })
    }
}

/// One agent server instance on a runtime of its own (so [`Instance::kill`] can stop it dead,
/// as a crash would: no graceful shutdown, leases no longer renewed).
pub struct Instance {
    /// Where it listens.
    pub addr: SocketAddr,
    http: reqwest::Client,
    kill: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instance")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Instance {
    /// Starts instance `id` over the test's schema.
    pub fn start(database: &Postgres, id: &str, agent: GatedAgent) -> Self {
        let (ready, ready_rx) = std::sync::mpsc::channel();
        let (kill, kill_rx) = std::sync::mpsc::channel::<()>();
        let database = database.clone();
        let id = id.to_owned();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let store = Arc::new(database.store(&id).await);
                // Push on, webhooks on 127.0.0.1 allowed, rounds every 50 ms: the push
                // tests need it, the others register no webhook.
                let mut config = ServerConfig::default();
                config.push.allow_local_webhooks = true;
                config.push.poll_interval = Duration::from_millis(50);
                config.push.retry_backoff = Duration::from_millis(50);
                let server = A2aServer::builder(card(), agent)
                    .shared_store(store.clone())
                    .push_store(store.clone())
                    .cluster(store)
                    .config(config)
                    .authentication(a2a_server::auth::Authentication::disabled())
                    .build()
                    .unwrap();
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let router = server.router();
                tokio::spawn(async move { axum::serve(listener, router).await });
                ready.send(addr).unwrap();
            });
            // Blocks this thread (not the runtime's workers) until the test kills it.
            let _ = kill_rx.recv();
            runtime.shutdown_background();
        });
        let addr = ready_rx.recv().expect("the instance started");
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        Self {
            addr,
            http,
            kill: Some(kill),
            thread: Some(thread),
        }
    }

    /// Stops the instance dead: its runtime is dropped with every task on it.
    pub fn kill(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// `http://addr` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// A JSON-RPC call; the whole response.
    pub async fn jsonrpc(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.http
            .post(self.url("/a2a"))
            .header("A2A-Version", "1.0")
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// A JSON-RPC call that must succeed; its result.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        let response = self.jsonrpc(method, params).await;
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// A JSON-RPC streaming call; `last_event_id` resumes a stream.
    pub async fn stream(&self, method: &str, params: Value, last_event_id: Option<u64>) -> Sse {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut request = self
            .http
            .post(self.url("/a2a"))
            .header("A2A-Version", "1.0")
            .header("Accept", "text/event-stream")
            .json(&body);
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id.to_string());
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        Sse::new(response, true)
    }

    /// SubscribeToTask over HTTP+JSON (`POST /rest/tasks/{id}:subscribe`).
    pub async fn rest_subscribe(&self, task_id: &str) -> Sse {
        let response = self
            .http
            .post(self.url(&format!("/rest/tasks/{task_id}:subscribe")))
            .header("A2A-Version", "1.0")
            .header("Accept", "text/event-stream")
            .header("Content-Type", "application/a2a+json")
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        Sse::new(response, false)
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.stop();
    }
}

/// SendMessage params for a text message, optionally continuing `task_id`.
pub fn send(text: &str, task_id: Option<&str>) -> Value {
    let mut message = json!({
        "messageId": uuid::Uuid::new_v4().to_string(),
        "role": "ROLE_USER",
        "parts": [{"text": text}],
    });
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    json!({"message": message})
}

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
    fn new(response: reqwest::Response, jsonrpc: bool) -> Self {
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

/// Polls `check` every 20 ms until it returns `Some`, for at most `limit`.
pub async fn eventually<T, F, Fut>(limit: Duration, mut check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if let Some(found) = check().await {
            return Some(found);
        }
        if tokio::time::Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
