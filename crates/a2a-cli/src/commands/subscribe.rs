//! `a2a subscribe URL TASK_ID`: follows a running task's events until it stops.

use a2a_types::{SubscribeToTaskRequest, TaskId};

use crate::client_args::ClientArgs;
use crate::connection;
use crate::follow;
use crate::spinner::Spinners;

/// `a2a subscribe`.
#[derive(Debug, clap::Args)]
pub(crate) struct SubscribeArgs {
    #[command(flatten)]
    client: ClientArgs,

    /// The task
    #[arg(value_name = "TASK_ID")]
    task_id: String,
}

/// Prints the task's events as they happen; exit code 1 when it ends FAILED, REJECTED or
/// CANCELED.
pub(crate) async fn run(args: SubscribeArgs) -> anyhow::Result<()> {
    let connection = connection::open(&args.client).await?;
    let request = SubscribeToTaskRequest {
        tenant: String::new(),
        id: TaskId::new(args.task_id),
    };
    let stream = connection.subscribe_to_task(request).await?;
    let progress = follow::follow(stream, &args.client, Spinners::detect(args.client.json)).await?;
    progress.outcome()?;
    Ok(())
}
