//! An agent that works in steps: it reports its progress as status updates and sends its
//! answer as an artifact in chunks, which streaming clients see as they come.
//!
//! `cargo run -p a2a-examples --example streaming_agent [ADDR]` (default `127.0.0.1:8080`),
//! then `cargo run -p a2a-examples --example client` to watch the stream.

use std::time::Duration;

use a2a_server::{A2aServer, AgentExecutor, ExecutorError, RequestContext, TaskUpdater, auth};
use a2a_types::{AgentCard, AgentInterface, Artifact, ArtifactChunk, ProtocolBinding};

/// Spells out what it is told, one word per chunk.
struct Speller;

#[async_trait::async_trait]
impl AgentExecutor for Speller {
    async fn execute(
        &self,
        request: RequestContext,
        task: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let text = request.text();
        let words: Vec<&str> = text.split_whitespace().collect();
        for (index, word) in words.iter().enumerate() {
            // A status update: the task stays WORKING, with this message.
            task.working(format!("word {} of {}", index + 1, words.len()))
                .await?;
            // A chunk of the artifact "answer": the first replaces any earlier one, the
            // others are appended to it, and the last says nothing more follows.
            let chunk = match index {
                0 if words.len() == 1 => ArtifactChunk::Whole,
                0 => ArtifactChunk::First,
                last if last + 1 == words.len() => ArtifactChunk::Last,
                _ => ArtifactChunk::Next,
            };
            let piece = Artifact::from_text(word.to_uppercase());
            task.artifact(piece.with_id("answer"), chunk).await?;
            tokio::time::sleep(Duration::from_millis(100)).await; // real work goes here
        }
        task.complete("All spelled out.").await?;
        Ok(())
    }
}

/// Serves the agent on `listener`, declaring streaming in its card.
pub async fn run(listener: tokio::net::TcpListener) -> anyhow::Result<()> {
    let url = format!("http://{}/a2a", listener.local_addr()?);
    let mut card = AgentCard::new("Speller", "Spells out words, one at a time.", "1.0.0")
        .with_interface(AgentInterface::new(url, ProtocolBinding::JsonRpc));
    card.capabilities.streaming = Some(true);
    // Anyone may call: for local development only (see `a2a_server::auth` for API keys).
    let server = A2aServer::builder(card, Speller).authentication(auth::Authentication::disabled());
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
