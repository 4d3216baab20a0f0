//! The webhook receiver a run serves on a local port.
//!
//! The webhook receiver a run serves on a local port: each push check gets a URL of its own
//! (`/hooks/{id}`), and every delivery to it is kept, headers and body, for the check to read.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::routing::post;
use tokio::time::Instant;

/// One delivery as received.
#[derive(Debug, Clone)]
pub(crate) struct Delivery {
    pub(crate) headers: http::HeaderMap,
    pub(crate) body: String,
}

type Inbox = Arc<Mutex<HashMap<String, Vec<Delivery>>>>;

/// The running receiver; stops when dropped.
#[derive(Debug)]
pub struct Receiver {
    base: String,
    inbox: Inbox,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn receive(
    State(inbox): State<Inbox>,
    Path(id): Path<String>,
    headers: http::HeaderMap,
    body: String,
) -> http::StatusCode {
    if let Ok(mut inbox) = inbox.lock() {
        inbox
            .entry(id)
            .or_default()
            .push(Delivery { headers, body });
    }
    http::StatusCode::OK
}

impl Receiver {
    /// Serves on `bind`; the agent is told `public` (the URL it can reach the receiver at),
    /// or the bound address over plain HTTP.
    ///
    /// # Errors
    /// The address cannot be bound.
    pub async fn start(bind: SocketAddr, public: Option<String>) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(bind).await?;
        let local = listener.local_addr()?;
        let inbox: Inbox = Arc::default();
        let app = axum::Router::new()
            .route("/hooks/{id}", post(receive))
            .with_state(Arc::clone(&inbox));
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        let base = public
            .map(|url| url.trim_end_matches('/').to_owned())
            .unwrap_or_else(|| format!("http://{local}"));
        Ok(Self {
            base,
            inbox,
            server,
        })
    }

    /// A fresh hook: its id and the URL to register.
    pub(crate) fn hook(&self) -> (String, String) {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let url = format!("{}/hooks/{id}", self.base);
        (id, url)
    }

    /// The deliveries to hook `id` so far.
    pub(crate) fn deliveries(&self, id: &str) -> Vec<Delivery> {
        self.inbox
            .lock()
            .map(|inbox| inbox.get(id).cloned().unwrap_or_default())
            .unwrap_or_default()
    }

    /// Waits until `until` says the deliveries to hook `id` are enough, or `timeout` passes;
    /// returns what arrived.
    pub(crate) async fn wait(
        &self,
        id: &str,
        timeout: Duration,
        until: impl Fn(&[Delivery]) -> bool,
    ) -> Vec<Delivery> {
        let deadline = Instant::now() + timeout;
        loop {
            let deliveries = self.deliveries(id);
            if until(&deliveries) || Instant::now() >= deadline {
                return deliveries;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
