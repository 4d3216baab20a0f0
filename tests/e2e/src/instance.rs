//! One agent server instance on a runtime of its own, and the calls a test makes to it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_server::{A2aServer, ServerConfig};
use serde_json::{Value, json};

use crate::agent::GatedAgent;
use crate::card::card;
use crate::postgres::Postgres;
use crate::sse::Sse;

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
