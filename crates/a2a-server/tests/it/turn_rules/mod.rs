//! The turn rules (those of a TS SDK's A2A module), cancels included, one test per rule,
//! over a real socket through the JSON-RPC binding.

mod answering;
mod cancel;
mod messages;
mod outcomes;
mod updates;

use std::sync::Arc;

use a2a_server::{ExecutorError, RequestContext, TaskUpdater};
use a2a_types::TaskState;
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::support::{TestServer, send_params, serve};

/// Sends `text` as a new message and returns the result.
async fn send_text(server: &TestServer, text: &str) -> Value {
    server
        .call("SendMessage", send_params(text, json!({})))
        .await
}

fn state(task: &Value) -> &str {
    task["status"]["state"].as_str().unwrap_or_default()
}

fn history_texts(task: &Value) -> Vec<String> {
    task["history"]
        .as_array()
        .map(|history| {
            history
                .iter()
                .map(|message| {
                    message["parts"][0]["text"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Asks for input on the first turn, completes on the next (the weather example of a TS
/// SDK's A2A module).
async fn ask_then_complete(
    context: RequestContext,
    updater: TaskUpdater,
) -> Result<(), ExecutorError> {
    if context.task.is_none() {
        updater.require_input("Which city?").await?;
    } else {
        updater
            .complete(format!("Sunny in {}.", context.text()))
            .await?;
    }
    Ok(())
}

async fn input_required_task(server: &TestServer) -> Value {
    let result = server
        .call(
            "SendMessage",
            send_params("What is the weather?", json!({})),
        )
        .await;
    assert_eq!(state(&result["task"]), "TASK_STATE_INPUT_REQUIRED");
    result["task"].clone()
}

/// Serves an agent that sets `first` (with `text`), waits until the test releases the
/// returned gate, then completes with `done` when given (or just returns).
async fn serve_gated(
    first: TaskState,
    text: Option<&'static str>,
    done: Option<&'static str>,
) -> (TestServer, Arc<Notify>) {
    let release = Arc::new(Notify::new());
    let gate = Arc::clone(&release);
    let server = serve(move |_context, updater| {
        let gate = Arc::clone(&gate);
        async move {
            match text {
                Some(text) => updater.status(first, text).await?,
                None => updater.status(first, ()).await?,
            }
            gate.notified().await;
            if let Some(done) = done {
                updater.complete(done).await?;
            }
            Ok(())
        }
    })
    .await;
    (server, release)
}
