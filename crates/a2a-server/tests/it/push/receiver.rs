//! A webhook receiver on 127.0.0.1 that answers from a script and records every hit.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse as _, Response};
use axum::routing::post;
use serde_json::Value;

/// How the receiver answers one POST.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// This status.
    Status(u16),
    /// This status with `Retry-After: <seconds>`.
    Busy(u16, u64),
    /// Nothing for this long (the sender's timeout should fire).
    Hang(Duration),
}

/// One POST: when it came, what it carried, what it was answered (0: hung up on).
#[derive(Debug, Clone)]
pub struct Hit {
    pub at: Duration,
    pub status: u16,
    pub body: Value,
    pub headers: HeaderMap,
}

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Reply>>,
    hits: Mutex<Vec<Hit>>,
}

/// A running receiver: answers the script's replies in order, then 200.
pub struct Receiver {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

async fn hook(
    State((shared, started)): State<(Arc<Shared>, Instant)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let reply = shared.script.lock().unwrap().pop_front();
    let at = started.elapsed();
    match reply {
        Some(Reply::Hang(time)) => {
            shared.hits.lock().unwrap().push(Hit {
                at,
                status: 0,
                body,
                headers,
            });
            tokio::time::sleep(time).await;
            StatusCode::OK.into_response()
        }
        Some(Reply::Status(status)) => {
            shared.hits.lock().unwrap().push(Hit {
                at,
                status,
                body,
                headers,
            });
            StatusCode::from_u16(status).unwrap().into_response()
        }
        Some(Reply::Busy(status, seconds)) => {
            shared.hits.lock().unwrap().push(Hit {
                at,
                status,
                body,
                headers,
            });
            let status = StatusCode::from_u16(status).unwrap();
            (status, [("retry-after", seconds.to_string())]).into_response()
        }
        None => {
            shared.hits.lock().unwrap().push(Hit {
                at,
                status: 200,
                body,
                headers,
            });
            StatusCode::OK.into_response()
        }
    }
}

impl Receiver {
    pub async fn start(script: Vec<Reply>) -> Self {
        let shared = Arc::new(Shared::default());
        shared.script.lock().unwrap().extend(script);
        let router = axum::Router::new()
            .route("/{*path}", post(hook))
            .with_state((Arc::clone(&shared), Instant::now()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await });
        Self { addr, shared }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.shared.hits.lock().unwrap().clone()
    }

    /// The bodies answered 200, in arrival order.
    pub fn bodies(&self) -> Vec<Value> {
        self.hits()
            .into_iter()
            .filter(|hit| hit.status == 200)
            .map(|hit| hit.body)
            .collect()
    }

    /// The headers of the hits answered 200.
    pub fn headers(&self) -> Vec<HeaderMap> {
        self.hits()
            .into_iter()
            .filter(|hit| hit.status == 200)
            .map(|hit| hit.headers)
            .collect()
    }
}
