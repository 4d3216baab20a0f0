//! An LLM agent with tools: those of an MCP server, which run freely, and `send_email`,
//! written here, which waits for a person's approval (the task stops at INPUT_REQUIRED with
//! the request; the answer resumes the run). Any OpenAI-compatible model will do; defaults:
//! `A2A_MODEL_URL=http://127.0.0.1:11434/v1 A2A_MODEL=qwen3:8b A2A_BIND=127.0.0.1:8080
//! A2A_MCP='npx -y @modelcontextprotocol/server-filesystem .' cargo run -p a2a-examples
//! --example agent_run`, then `a2a chat http://127.0.0.1:8080` asks `approve? [y/N]`.

use std::sync::Arc;

use a2a_run::tools::{FnTools, ToolOutput, ToolSource, Toolbox};
use a2a_run::{RunAgent, run::ToolSpec, store::InMemoryRunStore};
use a2a_run::{approval::ApprovalKey, mcp::McpTools, openai::OpenAiModel, policy::ToolPolicy};
use a2a_server::{A2aServer, auth::Authentication};
use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
use serde_json::json;
use tokio::net::TcpListener;

/// Serves the agent on `listener`: `model`, the tools of the MCP server the command line
/// `mcp` starts (a child process, stopped with the agent) and approvals signed with `key`.
pub async fn run(
    listener: TcpListener,
    model: OpenAiModel,
    mcp: &str,
    key: ApprovalKey,
) -> anyhow::Result<()> {
    // A tool written in Rust: an async function from its JSON arguments to text for the model.
    let schema = json!({"type": "object", "properties": {"to": {}, "body": {}}});
    let email = FnTools::new().tool(
        ToolSpec::new("send_email", "Sends an email.", schema),
        |args| async move { Ok(ToolOutput::ok(format!("email sent to {}", args["to"]))) },
    );
    let sources: Vec<Arc<dyn ToolSource>> = vec![
        Arc::new(McpTools::command_line(mcp).await?),
        Arc::new(email),
    ];
    // Runs are kept in memory here; a2a-store-sql's SqlStore keeps them beside the tasks.
    let agent = RunAgent::builder(Arc::new(model), Arc::new(InMemoryRunStore::new()))
        .system("You help with files and email. Be brief.")
        .toolbox(Toolbox::gather(sources).await?)
        // Every tool runs, but each send_email call waits for a person's approval...
        .policy(ToolPolicy::allow_all().ask("send_email")?)
        // ...whose answer must send back the token this key signed into the request.
        .approval_key(key)
        .build();
    let url = format!("http://{}/a2a", listener.local_addr()?);
    let mut card = AgentCard::new("Assistant", "Files and email, with approval.", "1.0.0")
        .with_interface(AgentInterface::new(url, ProtocolBinding::JsonRpc));
    card.capabilities.streaming = Some(true); // streamed calls see the answer as it is written
    // Anyone may call: for local development only (see `a2a_server::auth`).
    let server = A2aServer::builder(card, agent).authentication(Authentication::disabled());
    axum::serve(listener, server.build()?.router()).await?;
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let env = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.into());
    let model = OpenAiModel::new(
        env("A2A_MODEL_URL", "http://127.0.0.1:11434/v1"),
        env("A2A_MODEL", "qwen3:8b"),
    )
    .with_api_key(std::env::var("A2A_MODEL_API_KEY").ok());
    let mcp = env(
        "A2A_MCP",
        "npx -y @modelcontextprotocol/server-filesystem .",
    );
    // Instances serving one agent share a key; one alone may make its own.
    let key =
        std::env::var("A2A_APPROVAL_KEY").map_or_else(|_| ApprovalKey::random(), ApprovalKey::new);
    let listener = TcpListener::bind(env("A2A_BIND", "127.0.0.1:8080")).await?;
    run(listener, model, &mcp, key).await
}
