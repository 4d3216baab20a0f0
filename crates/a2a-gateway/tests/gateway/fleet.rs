//! The assembled gateway on 127.0.0.1 and the agents registered with it over HTTP.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_gateway::Gateway;
use a2a_gateway::proxy::{GATEWAY_DOMAIN, ProxyConfig};
use a2a_gateway::registry::{Clock, Registry, RegistryOptions};
use a2a_server::MetricsRender;
use serde_json::{Value, json};

use crate::proxy_support::{LocalMetrics, a2a_agent, post_a2a, serve};
use crate::support::ManualClock;

/// A gateway served on a fresh port, and a client for it.
pub struct Running {
    pub addr: SocketAddr,
    pub http: reqwest::Client,
    _recorder: LocalMetrics,
}

impl Running {
    /// Serves `gateway`.
    pub async fn start(gateway: &Gateway) -> Self {
        let recorder = LocalMetrics::install();
        let page = recorder.handle.clone();
        let gateway = gateway
            .clone()
            .metrics(MetricsRender::new(move || page.render()));
        let addr = serve(gateway.router()).await;
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        Self {
            addr,
            http,
            _recorder: recorder,
        }
    }

    /// A gateway over a `sqlite::memory:` registry with `options`, proxying as `config`.
    pub async fn with(options: RegistryOptions, config: ProxyConfig) -> Self {
        Self::start(&gateway(options, config).await).await
    }

    /// A gateway with the defaults, over a registry whose time is `clock`.
    pub async fn with_clock(clock: &Arc<ManualClock>) -> Self {
        let options = RegistryOptions::new().clock(Arc::clone(clock) as Arc<dyn Clock>);
        Self::with(options, ProxyConfig::default()).await
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// POSTs `body` to `path` as `content_type`; the status and the body as JSON
    /// (`Value::Null` when empty).
    pub async fn post_as(&self, path: &str, content_type: &str, body: &str) -> (u16, Value) {
        let response = self
            .http
            .post(self.url(path))
            .header("content-type", content_type)
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        read(response).await
    }

    /// POSTs a raw JSON-RPC `body` to `/a2a/{agent_id}`, as the seed's curl does.
    pub async fn call(&self, agent_id: &str, body: &str) -> (u16, Value) {
        self.post_as(&format!("/a2a/{agent_id}"), "application/json", body)
            .await
    }

    /// A v1.0 SendMessage saying `text` to `agent_id`; the JSON-RPC response.
    pub async fn send(&self, agent_id: &str, text: &str) -> Value {
        // Each call is a new message: an agent answers a repeated message id with the first
        // send's task, or refuses it when the text differs.
        static SENT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = SENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let request = json!({
            "jsonrpc": "2.0", "id": 3, "method": "SendMessage",
            "params": {"message": {"messageId": format!("m-{n}"), "role": "ROLE_USER", "parts": [{"text": text}]}}
        });
        let response = post_a2a(
            &self.http,
            self.url(&format!("/a2a/{agent_id}")),
            request.to_string(),
        )
        .await;
        let (status, body) = read(response).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// POSTs a JSON `body` to the registry at `path`, without a key.
    pub async fn registry_post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.post_as(path, "application/json", &body.to_string())
            .await
    }

    pub async fn register(&self, body: &Value) -> (u16, Value) {
        self.registry_post("/agents/register", body).await
    }

    pub async fn heartbeat(&self, agent_id: &str) -> (u16, Value) {
        self.registry_post("/agents/heartbeat", &json!({"agent_id": agent_id}))
            .await
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        read(self.http.get(self.url(path)).send().await.unwrap()).await
    }

    pub async fn delete(&self, path: &str) -> (u16, Value) {
        read(self.http.delete(self.url(path)).send().await.unwrap()).await
    }

    /// Starts a real agent and registers it as `agent_id` over HTTP; its base URL.
    pub async fn register_agent(&self, agent_id: &str) -> String {
        let (body, base) = real_agent(agent_id).await;
        let (status, record) = self.register(&body).await;
        assert_eq!(status, 200, "{record}");
        assert_eq!(record["agent_id"], agent_id);
        base
    }

    /// `/metrics` as text.
    pub async fn metrics(&self) -> String {
        let response = self.http.get(self.url("/metrics")).send().await.unwrap();
        assert_eq!(response.status(), 200);
        response.text().await.unwrap()
    }

    /// The `kubemq_a2a_registered_agents` gauge of a fresh scrape.
    pub async fn registered_gauge(&self) -> u64 {
        let text = self.metrics().await;
        text.lines()
            .find_map(|line| line.strip_prefix("kubemq_a2a_registered_agents "))
            .unwrap_or_else(|| panic!("no registry gauge in:\n{text}"))
            .parse()
            .unwrap()
    }
}

/// The status and the JSON body of `response` (`Value::Null` when empty).
pub async fn read(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("HTTP {status}, not JSON: {text}"))
    };
    (status, body)
}

/// A gateway over a fresh `sqlite::memory:` registry.
pub async fn gateway(options: RegistryOptions, config: ProxyConfig) -> Gateway {
    let registry = Registry::connect("sqlite::memory:", options).await.unwrap();
    Gateway::new(Arc::new(registry), config)
}

/// A real `A2aServer` (echoes text; `stream N` streams N chunks) and the register body
/// that names it `agent_id`: its served card in an envelope, as an agent registers.
/// Returns the body and the agent's base URL.
pub async fn real_agent(agent_id: &str) -> (Value, String) {
    let (jsonrpc, _rest) = a2a_agent().await;
    let base = jsonrpc.strip_suffix("/a2a").unwrap().to_owned();
    let card: Value = reqwest::get(format!("{base}/.well-known/agent-card.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (json!({"agent_id": agent_id, "card": card}), base)
}

/// Asserts a gateway error: its code and message, the gateway's `ErrorInfo` with
/// `executed = "false"`.
pub fn assert_gateway_error(body: &Value, id: &Value, code: i64, message: &str) {
    assert_eq!(body["jsonrpc"], "2.0", "{body}");
    assert_eq!(&body["id"], id, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["error"]["message"], message, "{body}");
    let info = &body["error"]["data"][0];
    assert_eq!(info["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    assert_eq!(info["domain"], GATEWAY_DOMAIN, "{body}");
    assert_eq!(info["metadata"]["executed"], "false", "{body}");
}

/// Asserts that `body` is agent-not-found (-32002) for `agent_id`.
pub fn assert_not_found(body: &Value, agent_id: &str) {
    assert_gateway_error(
        body,
        &json!(3),
        -32002,
        &format!("agent not found: {agent_id}"),
    );
}

/// Asserts that `body` is the real agent's completed echo of `text`.
pub fn assert_echoed(body: &Value, text: &str) {
    let task = &body["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{body}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], text, "{body}");
}
