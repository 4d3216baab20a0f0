//! `a2a get URL TASK_ID`: a task's current state, history and artifacts.

use a2a_types::{GetTaskRequest, TaskId};

use crate::client_args::ClientArgs;
use crate::connection;
use crate::output;
use crate::render;

/// `a2a get`.
#[derive(Debug, clap::Args)]
pub(crate) struct GetArgs {
    #[command(flatten)]
    client: ClientArgs,

    /// The task
    #[arg(value_name = "TASK_ID")]
    task_id: String,

    /// Return at most N history messages (0: none)
    #[arg(long, value_name = "N")]
    history_length: Option<u16>,
}

/// Fetches the task and prints it.
pub(crate) async fn run(args: GetArgs) -> anyhow::Result<()> {
    let connection = connection::open(&args.client).await?;
    let request = GetTaskRequest {
        tenant: String::new(),
        id: TaskId::new(args.task_id),
        history_length: args.history_length.map(i32::from),
    };
    let task = connection.get_task(request).await?;
    if args.client.json {
        output::json_line(&task)
    } else {
        output::text(&render::task::task(args.client.style(), &task, true))?;
        Ok(())
    }
}
