//! The fleet the gateway is tested against: real `A2aServer`s, small axum fakes whose
//! misbehaviour is the point, and the gateway itself on 127.0.0.1, all with an in-memory
//! directory.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_gateway::agent::{AgentDirectory, DirectoryError, RegisteredAgent};
use a2a_gateway::metrics::{LATENCY_BUCKETS, Metrics, REQUEST_DURATION_SECONDS};
use a2a_gateway::proxy::{ProxyConfig, router};
use a2a_server::{A2aServer, AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use a2a_types::{AgentCard, AgentInterface, Artifact, ProtocolBinding};
use serde_json::{Value, json};

/// Agents by id; counts lookups, and fails for [`BROKEN_ID`].
#[derive(Debug, Default)]
pub struct Directory {
    agents: Mutex<HashMap<String, RegisteredAgent>>,
    pub lookups: AtomicUsize,
}

/// The id whose lookup fails as if the registry were down.
pub const BROKEN_ID: &str = "broken-registry";

#[async_trait::async_trait]
impl AgentDirectory for Directory {
    async fn find(
        &self,
        agent_id: &str,
    ) -> Result<Option<std::sync::Arc<RegisteredAgent>>, DirectoryError> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        if agent_id == BROKEN_ID {
            return Err(DirectoryError("database is down".into()));
        }
        Ok(self
            .agents
            .lock()
            .unwrap()
            .get(agent_id)
            .cloned()
            .map(std::sync::Arc::new))
    }
}

impl Directory {
    /// Registers `agent_id` with a v1.0 card whose JSON-RPC and REST URLs are given.
    pub fn register(&self, agent_id: &str, jsonrpc_url: Option<String>, rest_url: Option<String>) {
        let mut interfaces = Vec::new();
        if let Some(url) = &jsonrpc_url {
            interfaces
                .push(json!({"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}));
        }
        if let Some(url) = &rest_url {
            interfaces.push(
                json!({"url": url, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}),
            );
        }
        let card = json!({
            "name": agent_id, "description": "test agent", "version": "1.0.0",
            "supportedInterfaces": interfaces, "capabilities": {"streaming": true},
            "defaultInputModes": ["text"], "defaultOutputModes": ["text"], "skills": []
        });
        let mut agent = RegisteredAgent::new(agent_id, agent_id, card);
        agent.jsonrpc_url = jsonrpc_url;
        agent.rest_url = rest_url;
        self.insert(agent);
    }

    /// Registers `agent` as it is.
    pub fn insert(&self, agent: RegisteredAgent) {
        self.agents
            .lock()
            .unwrap()
            .insert(agent.agent_id.clone(), agent);
    }
}

/// The gateway on 127.0.0.1, with `/metrics` beside the proxy.
pub struct Gateway {
    pub addr: SocketAddr,
    pub directory: Arc<Directory>,
    pub metrics: Arc<Metrics>,
    pub http: reqwest::Client,
    _recorder: LocalMetrics,
}

impl Gateway {
    pub async fn start() -> Self {
        Self::start_with(ProxyConfig::default()).await
    }

    pub async fn start_with(config: ProxyConfig) -> Self {
        let directory = Arc::new(Directory::default());
        let metrics = Arc::new(Metrics::new());
        let recorder = LocalMetrics::install();
        let page = recorder.handle.clone();
        let app = router(
            Arc::clone(&directory) as Arc<dyn AgentDirectory>,
            config,
            Arc::clone(&metrics),
        )
        .route(
            "/metrics",
            axum::routing::get(move || std::future::ready(page.render())),
        );
        let addr = serve(app).await;
        Self {
            addr,
            directory,
            metrics,
            _recorder: recorder,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
        }
    }

    /// A gateway with a real A2A agent, its JSON-RPC and HTTP+JSON interfaces both,
    /// registered as `agent_id`.
    pub async fn with_a2a_agent(agent_id: &str) -> Self {
        let gateway = Self::start().await;
        let (jsonrpc, rest) = a2a_agent().await;
        gateway
            .directory
            .register(agent_id, Some(jsonrpc), Some(rest));
        gateway
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// POSTs `body` to `path` with a JSON content type and no other header.
    pub async fn post_json(&self, path: &str, body: impl Into<reqwest::Body>) -> reqwest::Response {
        self.http
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap()
    }

    /// POSTs `body` as JSON to `/a2a/{agent_id}`; the status and the body as JSON.
    pub async fn rpc(&self, agent_id: &str, body: &Value) -> (u16, Value) {
        let response = post_a2a(
            &self.http,
            self.url(&format!("/a2a/{agent_id}")),
            body.to_string(),
        )
        .await;
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    /// `/metrics` as text.
    pub async fn metrics_text(&self) -> String {
        self.http
            .get(self.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }
}

/// A Prometheus recorder for the test's thread, set as that thread's recorder until the
/// thread ends. The tests run on one thread each (the default test runtime), so what the
/// gateway records in a test lands here and in no other test's page.
pub struct LocalMetrics {
    pub handle: metrics_exporter_prometheus::PrometheusHandle,
}

thread_local! {
    /// Guards of the recorders installed on this thread (kept here: a guard is not `Send`).
    static INSTALLED: std::cell::RefCell<Vec<metrics::LocalRecorderGuard<'static>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl LocalMetrics {
    pub fn install() -> Self {
        use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(
                Matcher::Full(REQUEST_DURATION_SECONDS.to_owned()),
                &LATENCY_BUCKETS,
            )
            .unwrap()
            .build_recorder();
        // The guard borrows the recorder for as long as the thread runs.
        let recorder = Box::leak(Box::new(recorder));
        let handle = recorder.handle();
        let guard = metrics::set_default_local_recorder(recorder);
        INSTALLED.with(|installed| installed.borrow_mut().push(guard));
        a2a_gateway::metrics::describe();
        Self { handle }
    }
}

/// Serves `app` on a fresh port of 127.0.0.1.
pub async fn serve(app: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    addr
}

/// A port nothing listens on.
pub fn closed_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

/// A real `A2aServer` on 127.0.0.1: JSON-RPC at `/a2a`, HTTP+JSON at `/rest`, running
/// [`Script`]. Returns the two URLs.
pub async fn a2a_agent() -> (String, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (jsonrpc, rest) = (format!("{base}/a2a"), format!("{base}/rest"));
    let mut card = AgentCard::new("Script", "Does what the message says", "1.0.0")
        .with_interface(AgentInterface::new(&jsonrpc, ProtocolBinding::JsonRpc))
        .with_interface(AgentInterface::new(&rest, ProtocolBinding::HttpJson));
    card.capabilities.streaming = Some(true);
    let server = A2aServer::builder(card, Script)
        .authentication(a2a_server::auth::Authentication::disabled())
        .build()
        .unwrap();
    let app = server.router();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (jsonrpc, rest)
}

/// A real `A2aServer` whose card offers only gRPC, serving its gRPC binding over plaintext
/// HTTP/2 on 127.0.0.1 and running [`Script`]. Returns the card as registered.
pub async fn grpc_agent() -> Value {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let mut card = AgentCard::new("Script", "Does what the message says", "1.0.0")
        .with_interface(AgentInterface::new(&address, ProtocolBinding::Grpc));
    card.capabilities.streaming = Some(true);
    let registered = serde_json::to_value(&card).unwrap();
    let server = A2aServer::builder(card, Script)
        .authentication(a2a_server::auth::Authentication::disabled())
        .build()
        .unwrap();
    let app = server.grpc_router();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    registered
}

/// As [`grpc_agent`], over TLS with a certificate of a private CA nobody trusts: its card
/// names `https://127.0.0.1:PORT`.
pub async fn grpc_tls_agent() -> Value {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("https://{}", listener.local_addr().unwrap());
    let mut card = AgentCard::new("Script", "Does what the message says", "1.0.0")
        .with_interface(AgentInterface::new(&address, ProtocolBinding::Grpc));
    card.capabilities.streaming = Some(true);
    let registered = serde_json::to_value(&card).unwrap();
    let server = A2aServer::builder(card, Script)
        .authentication(a2a_server::auth::Authentication::disabled())
        .build()
        .unwrap();
    let issued = a2a_test_support::tls::Authority::new("Private CA").server();
    let tls = a2a_server::tls::TlsConfig::from_pem(issued.cert.as_bytes(), issued.key.as_bytes())
        .unwrap();
    let app = server.grpc_router();
    tokio::spawn(a2a_server::tls::serve_tls_h2(
        listener,
        app,
        tls,
        std::future::pending(),
    ));
    registered
}

/// `stream N`: N artifacts `chunk i`, 20 ms apart, then COMPLETED; `sleep MS`: COMPLETED
/// after MS milliseconds; `who am i`: one artifact naming the caller id the gateway
/// forwarded; anything else: one artifact echoing the text, then COMPLETED.
struct Script;

#[async_trait::async_trait]
impl AgentExecutor for Script {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let text = context.text();
        if let Some(millis) = text.strip_prefix("sleep ") {
            tokio::time::sleep(Duration::from_millis(millis.parse().unwrap())).await;
            updater.complete(()).await?;
        } else if let Some(count) = text.strip_prefix("stream ") {
            updater.working("streaming").await?;
            for step in 0..count.parse::<usize>().unwrap() {
                tokio::time::sleep(Duration::from_millis(20)).await;
                updater
                    .add_artifact(Artifact::from_text(format!("chunk {step}")))
                    .await?;
            }
            updater.complete(()).await?;
        } else if text == "who am i" {
            let caller = context
                .headers
                .get(a2a_gateway::proxy::CALLER_ID_HEADER)
                .unwrap_or("nobody")
                .to_owned();
            updater
                .complete_with_artifacts(vec![Artifact::from_text(caller)], ())
                .await?;
        } else {
            updater
                .complete_with_artifacts(vec![Artifact::from_text(text)], ())
                .await?;
        }
        Ok(())
    }
}

/// A v1.0 `SendMessage` (or `SendStreamingMessage`) request saying `text`.
pub fn send_message(method: &str, text: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 7, "method": method,
        "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}}
    })
}

/// The `data:` documents of an SSE body, with each event's `event:` name if any.
pub fn sse_events(body: &str) -> Vec<(Option<String>, Value)> {
    body.split("\n\n")
        .filter_map(|block| {
            let mut name = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(value) = line.strip_prefix("event:") {
                    name = Some(value.trim().to_owned());
                } else if let Some(value) = line.strip_prefix("data:") {
                    data = Some(serde_json::from_str(value.trim()).unwrap());
                }
            }
            data.map(|data| (name, data))
        })
        .collect()
}

/// The gateway's `ErrorInfo` of a JSON-RPC error body.
pub fn error_info(body: &Value) -> &Value {
    &body["error"]["data"][0]
}

/// POSTs `body` to `url` with a JSON content type and `a2a-version: 1.0`.
pub async fn post_a2a(http: &reqwest::Client, url: String, body: String) -> reqwest::Response {
    http.post(url)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .body(body)
        .send()
        .await
        .unwrap()
}

/// POSTs the JSON-RPC `body` to `url` asking for a stream; the stream's text, which must
/// come at HTTP 200 as `text/event-stream`.
pub async fn jsonrpc_stream(http: &reqwest::Client, url: String, body: String) -> String {
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .header("a2a-version", "1.0")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    response.text().await.unwrap()
}

/// An agent that takes 5 s over each call and then answers `answer`; the receiver hears
/// when the first call's handler is dropped.
pub fn slow_agent<R>(answer: R) -> (axum::Router, tokio::sync::oneshot::Receiver<()>)
where
    R: axum::response::IntoResponse + Clone + Send + Sync + 'static,
{
    let (cancelled, was_cancelled) = tokio::sync::oneshot::channel();
    let signal = Arc::new(Mutex::new(Some(cancelled)));
    let app = axum::Router::new().route(
        "/",
        axum::routing::post(move || {
            let guard = DropSignal(signal.lock().unwrap().take());
            let answer = answer.clone();
            async move {
                let _guard = guard;
                tokio::time::sleep(Duration::from_secs(5)).await;
                answer
            }
        }),
    );
    (app, was_cancelled)
}

/// Fires when dropped: how a fake agent learns its call was cancelled.
pub struct DropSignal(pub Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(signal) = self.0.take() {
            let _ = signal.send(());
        }
    }
}
