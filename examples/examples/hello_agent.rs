//! The smallest agent: it answers every message with an artifact.
//!
//! `cargo run -p a2a-examples --example hello_agent [ADDR]` (default `127.0.0.1:8080`), then
//! `cargo run -p a2a-cli --bin a2a -- send http://127.0.0.1:8080 world`.

use a2a_server::{A2aServer, AgentExecutor, ExecutorError, RequestContext, TaskUpdater, auth};
use a2a_types::{AgentCard, AgentInterface, Artifact, ProtocolBinding};

/// Says hello to whatever it is told.
struct Hello;

#[async_trait::async_trait]
impl AgentExecutor for Hello {
    async fn execute(
        &self,
        request: RequestContext,
        task: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let answer = Artifact::from_text(format!("Hello, {}!", request.text()));
        task.complete_with_artifacts([answer], ()).await?;
        Ok(())
    }
}

/// Serves the agent on `listener`: its card at `/.well-known/agent-card.json`, JSON-RPC at `/a2a`.
pub async fn run(listener: tokio::net::TcpListener) -> anyhow::Result<()> {
    let url = format!("http://{}/a2a", listener.local_addr()?);
    let card = AgentCard::new("Hello", "Says hello.", "1.0.0")
        .with_interface(AgentInterface::new(url, ProtocolBinding::JsonRpc));
    // Anyone may call: for local development only (see `a2a_server::auth` for API keys).
    let server = A2aServer::builder(card, Hello).authentication(auth::Authentication::disabled());
    axum::serve(listener, server.build()?.router()).await?;
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".into());
    run(tokio::net::TcpListener::bind(addr).await?).await
}
