//! `gwproxy`: reference proxies for the gateway benchmark (`bench/gateway.sh` runs
//! `--mode forward` always, as its CPU goal is measured against it, and `--mode memory`
//! with `BENCH_REFERENCES=1`), to tell apart what one more HTTP hop costs and what the
//! gateway adds to it. Every mode serves `POST /a2a/{agent_id}` and forwards to `--agent`:
//!
//! - `--mode forward`: the floor of a hop. The body is read whole, POSTed to the agent with
//!   one reqwest client (as the gateway's: no redirects), and the agent's status,
//!   `Content-Type` and body are relayed; nothing is parsed or checked.
//! - `--mode memory`: the gateway's own proxy (`a2a_gateway::proxy::router`, default
//!   `ProxyConfig`) over a directory held in memory, which knows one agent: the proxy
//!   without its registry lookup in SQLite.
//! - `--mode sqlite`: the same proxy over a `Registry` in a SQLite file (`--store`), the
//!   agent registered at start: what `a2a gateway` runs, minus its registry API and
//!   `/metrics` routes, in this harness.
//!
//! Prints `listening on http://ADDR` like `a2a serve`; runs until killed.

use std::sync::Arc;

use a2a_gateway::agent::{AgentDirectory, DirectoryError, RegisteredAgent};
use a2a_gateway::metrics::Metrics;
use a2a_gateway::proxy::{ProxyConfig, router};
use a2a_gateway::registry::{Registry, RegistryOptions};
use anyhow::Context as _;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse as _, Response};
use axum::routing::post;
use bytes::Bytes;
use clap::{Parser, ValueEnum};
use serde_json::json;

// As `a2a`: the comparison is between proxies, not allocators.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Flags of `gwproxy`.
#[derive(Debug, Parser)]
#[command(about = "Reference proxies for the gateway benchmark")]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    bind: String,
    /// What forwards the calls.
    #[arg(long, value_enum)]
    mode: Mode,
    /// The agent's JSON-RPC URL, e.g. http://127.0.0.1:8080/.
    #[arg(long)]
    agent: String,
    /// The id the agent is reached under, `/a2a/ID`.
    #[arg(long, default_value = "echo-bench")]
    agent_id: String,
    /// `--mode sqlite`: the registry database, e.g. sqlite:///tmp/registry.db.
    #[arg(long, default_value = "sqlite::memory:")]
    store: String,
}

/// What forwards the calls.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Mode {
    /// Read, POST, relay; no parsing.
    Forward,
    /// The gateway's proxy over a directory in memory.
    Memory,
    /// The gateway's proxy over a SQLite registry.
    Sqlite,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let app = match args.mode {
        Mode::Forward => forwarder(&args.agent)?,
        Mode::Memory => {
            let mut agent = RegisteredAgent::new(args.agent_id.as_str(), "Echo", json!({}));
            agent.jsonrpc_url = Some(args.agent.clone());
            let directory: Arc<dyn AgentDirectory> = Arc::new(OneAgent(Arc::new(agent)));
            router(directory, ProxyConfig::default(), Arc::new(Metrics::new()))
        }
        Mode::Sqlite => {
            let registry = Registry::connect(&args.store, RegistryOptions::new())
                .await
                .with_context(|| format!("cannot open the registry {}", args.store))?;
            registry
                .register(json!({"agent_id": args.agent_id, "name": "Echo", "url": args.agent}))
                .await
                .context("cannot register the agent")?;
            let directory: Arc<dyn AgentDirectory> = Arc::new(registry);
            router(directory, ProxyConfig::default(), Arc::new(Metrics::new()))
        }
    };
    a2a_bench::serve(&args.bind, app)
        .await
        .with_context(|| format!("serving on {}", args.bind))
}

/// A directory of one agent, whatever id is asked for.
#[derive(Debug)]
struct OneAgent(Arc<RegisteredAgent>);

#[async_trait::async_trait]
impl AgentDirectory for OneAgent {
    async fn find(&self, _agent_id: &str) -> Result<Option<Arc<RegisteredAgent>>, DirectoryError> {
        Ok(Some(Arc::clone(&self.0)))
    }
}

/// What the forwarder's handler shares.
#[derive(Debug)]
struct Forward {
    client: reqwest::Client,
    agent: String,
}

/// `--mode forward`.
fn forwarder(agent: &str) -> anyhow::Result<Router> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .context("cannot build the HTTP client")?;
    let forward = Arc::new(Forward {
        client,
        agent: agent.to_owned(),
    });
    Ok(Router::new()
        .route("/a2a/{agent_id}", post(forward_one))
        .with_state(forward))
}

async fn forward_one(
    State(forward): State<Arc<Forward>>,
    Path(_agent_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut request = forward.client.post(&forward.agent).body(body);
    for name in [CONTENT_TYPE.as_str(), "a2a-version"] {
        if let Some(value) = headers.get(name) {
            request = request.header(name, value);
        }
    }
    let answer = async {
        let response = request.send().await?;
        let status = response.status();
        let content_type = response.headers().get(CONTENT_TYPE).cloned();
        let body = response.bytes().await?;
        Ok::<_, reqwest::Error>((status, content_type, body))
    };
    match answer.await {
        Ok((status, content_type, body)) => {
            let mut response = Response::new(Body::from(body));
            *response.status_mut() = status;
            if let Some(content_type) = content_type {
                response.headers_mut().insert(CONTENT_TYPE, content_type);
            }
            response
        }
        Err(error) => (StatusCode::BAD_GATEWAY, error.to_string()).into_response(),
    }
}
