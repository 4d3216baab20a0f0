//! `a2a cancel URL TASK_ID`: asks the agent to stop a task.

use a2a_types::{CancelTaskRequest, TaskId};

use crate::client_args::ClientArgs;
use crate::connection;
use crate::output;
use crate::render;

/// `a2a cancel`.
#[derive(Debug, clap::Args)]
pub(crate) struct CancelArgs {
    #[command(flatten)]
    client: ClientArgs,

    /// The task
    #[arg(value_name = "TASK_ID")]
    task_id: String,
}

/// Cancels the task and prints its new state. A task that cannot be canceled (it has
/// already ended) is the agent's refusal: exit code 1.
pub(crate) async fn run(args: CancelArgs) -> anyhow::Result<()> {
    let connection = connection::open(&args.client).await?;
    let request = CancelTaskRequest {
        tenant: String::new(),
        id: TaskId::new(args.task_id),
        metadata: None,
    };
    let task = connection.cancel_task(request).await?;
    if args.client.json {
        output::json_line(&task)
    } else {
        output::text(&render::list::task_state(args.client.style(), &task))?;
        Ok(())
    }
}
