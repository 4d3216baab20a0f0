//! A client of any A2A agent: it discovers the agent's card, sends a message and waits for
//! the answer, then sends another and streams the reply as it comes.
//!
//! Start an agent (`cargo run -p a2a-examples --example streaming_agent`), then
//! `cargo run -p a2a-examples --example client [URL] [TEXT]` (default `http://127.0.0.1:8080`).
#![allow(clippy::print_stdout)] // printing what comes back is the point

use a2a_client::{A2aClient, message};
use a2a_types::{SendMessageResponse, StreamResponse};
use futures::TryStreamExt as _;

/// Talks to the agent at `url`; the artifact chunks of the streamed reply.
pub async fn run(url: &str, text: &str) -> anyhow::Result<Vec<String>> {
    // Fetches `{url}/.well-known/agent-card.json` and picks an interface the client speaks.
    let client = A2aClient::discover(url).await?;
    let card = client
        .card()
        .map(|card| card.name.clone())
        .unwrap_or_default();
    println!("{card} at {} over {:?}", client.url(), client.binding());

    // SendMessage: one answer, here a task that ran to its end.
    if let SendMessageResponse::Task(task) = client.send_message(message::request(text)).await? {
        let texts: Vec<String> = task
            .artifacts
            .iter()
            .map(|artifact| artifact.text())
            .collect();
        println!("task {} is {:?}: {texts:?}", task.id, task.status.state);
    }

    // SendStreamingMessage: the task's events as the agent sends them.
    let mut chunks = Vec::new();
    let mut events = client
        .send_streaming_message(message::request(text))
        .await?;
    while let Some(event) = events.try_next().await? {
        match event {
            StreamResponse::StatusUpdate(update) => {
                let said = update.status.message.map(|message| message.text());
                println!(
                    "status {:?} {}",
                    update.status.state,
                    said.unwrap_or_default()
                );
            }
            StreamResponse::ArtifactUpdate(update) => {
                println!("artifact chunk {:?}", update.artifact.text());
                chunks.push(update.artifact.text());
            }
            StreamResponse::Task(task) => println!("task {} {:?}", task.id, task.status.state),
            StreamResponse::Message(reply) => println!("reply {:?}", reply.text()),
        }
    }
    Ok(chunks)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let text = args
        .next()
        .unwrap_or_else(|| "hello from the client".into());
    run(&url, &text).await?;
    Ok(())
}
