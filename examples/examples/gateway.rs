//! A gateway in front of a fleet: two agents registered under ids, and a client calling
//! each of them through the gateway's one address (`/a2a/{agent_id}`).
//!
//! `cargo run -p a2a-examples --example gateway [ADDR]` (default `127.0.0.1:9090`) starts
//! both agents and the gateway, calls each, and keeps serving: try
//! `curl -s http://127.0.0.1:9090/agents` or `a2a send http://127.0.0.1:9090/a2a/french monde`.
#![allow(clippy::print_stdout)] // printing the answers is the point

use std::sync::Arc;

use a2a_client::{A2aClient, message};
use a2a_gateway::{Gateway, proxy::ProxyConfig, registry::Registry, registry::RegistryOptions};
use a2a_server::{A2aServer, AgentExecutor, ExecutorError, RequestContext, TaskUpdater, auth};
use a2a_types::{AgentCard, AgentInterface, Artifact, ProtocolBinding, SendMessageResponse};
use serde_json::json;
use tokio::net::TcpListener;

/// Greets in its own language.
struct Greeter(&'static str);

#[async_trait::async_trait]
impl AgentExecutor for Greeter {
    async fn execute(
        &self,
        request: RequestContext,
        task: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let answer = Artifact::from_text(format!("{}, {}!", self.0, request.text()));
        task.complete_with_artifacts([answer], ()).await?;
        Ok(())
    }
}

/// Starts an agent saying `greeting` on a port of its own; the card it serves, as JSON.
async fn agent(greeting: &'static str) -> anyhow::Result<serde_json::Value> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/a2a", listener.local_addr()?);
    let card = AgentCard::new(greeting, "Greets you.", "1.0.0")
        .with_interface(AgentInterface::new(url, ProtocolBinding::JsonRpc));
    // Anyone may call: for local development only (see `a2a_server::auth`).
    let builder = A2aServer::builder(card.clone(), Greeter(greeting));
    let router = builder
        .authentication(auth::Authentication::disabled())
        .build()?
        .router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(serde_json::to_value(card)?)
}

/// Serves the gateway on `listener`, with two agents registered: `english` and `french`.
/// Its URL.
pub async fn start(listener: TcpListener) -> anyhow::Result<String> {
    // The registry outlives restarts in a file (`sqlite://gateway.db`) or PostgreSQL.
    let registry = Registry::connect("sqlite::memory:", RegistryOptions::new()).await?;
    // Agents usually register themselves: POST /agents/register with this body, then
    // heartbeats (`a2a serve --register URL --agent-id ID` does both). Here, in process.
    registry
        .register(json!({"agent_id": "english", "card": agent("Hello").await?}))
        .await?;
    registry
        .register(json!({"agent_id": "french", "card": agent("Bonjour").await?}))
        .await?;
    let gateway = Gateway::new(Arc::new(registry), ProxyConfig::default());
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, gateway.router()).await });
    Ok(url)
}

/// Calls each agent through the gateway at `gateway`; their answers.
pub async fn call_each(gateway: &str) -> anyhow::Result<Vec<String>> {
    let mut answers = Vec::new();
    for agent_id in ["english", "french"] {
        // The gateway serves each agent's card, its interfaces pointing at the gateway.
        let card = format!("{gateway}/a2a/{agent_id}/.well-known/agent-card.json");
        let client = A2aClient::discover(&card).await?;
        let answer = match client.send_message(message::request("world")).await? {
            SendMessageResponse::Task(task) => task.artifacts.iter().map(Artifact::text).collect(),
            SendMessageResponse::Message(reply) => reply.text(),
        };
        println!("{agent_id} at {}: {answer}", client.url());
        answers.push(answer);
    }
    Ok(answers)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9090".into());
    let gateway = start(TcpListener::bind(addr).await?).await?;
    call_each(&gateway).await?;
    println!("gateway at {gateway}; Ctrl-C to stop");
    tokio::signal::ctrl_c().await?;
    Ok(())
}
