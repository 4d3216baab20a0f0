//! The hello agent on a durable store: its tasks live in a SQLite file (created on first
//! use, nothing to install) and outlive the process.
//!
//! `cargo run -p a2a-examples --example sqlite_agent [ADDR] [DATABASE]` (defaults
//! `127.0.0.1:8080` and `sqlite://hello.db`). Send it a message with
//! `cargo run -p a2a-cli --bin a2a -- send http://127.0.0.1:8080 world`, which prints the
//! task id; stop the agent with Ctrl-C, start it again, and
//! `a2a get http://127.0.0.1:8080 TASK_ID` still finds the task.

use std::sync::Arc;
use std::time::Duration;

use a2a_server::{A2aServer, AgentExecutor, ExecutorError, RequestContext, TaskUpdater, auth};
use a2a_store_sql::{SqlStore, SqlStoreOptions};
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

/// Serves the agent on `listener`, its tasks in `database`, until `shutdown` completes.
pub async fn run(
    listener: tokio::net::TcpListener,
    database: String,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let url = format!("http://{}/a2a", listener.local_addr()?);
    let card = AgentCard::new("Hello", "Says hello, and remembers.", "1.0.0")
        .with_interface(AgentInterface::new(url, ProtocolBinding::JsonRpc));
    // Creates the file and its tables, or migrates them; `postgres://…` works the same.
    let store = SqlStore::connect(&database, SqlStoreOptions::new()).await?;
    let server = A2aServer::builder(card, Hello)
        // Anyone may call: for local development only (see `a2a_server::auth`).
        .authentication(auth::Authentication::disabled())
        .store(store.clone())
        // The same store lets several instances share the database (turn leases, signals).
        .cluster(Arc::new(store.clone()))
        .build()?;
    axum::serve(listener, server.router())
        .with_graceful_shutdown(shutdown)
        .await?;
    // Lets the turns under way finish (for up to 5 s), then closes the database.
    server.shutdown(Duration::from_secs(5)).await;
    store.close().await;
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8080".into());
    let database = args.next().unwrap_or_else(|| "sqlite://hello.db".into());
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    run(tokio::net::TcpListener::bind(addr).await?, database, ctrl_c).await
}
