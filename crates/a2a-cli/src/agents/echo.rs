//! `--agent echo`: completes every task with an artifact holding the message text.

use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use a2a_types::Artifact;
use async_trait::async_trait;

/// The echo agent.
#[derive(Debug)]
pub(crate) struct Echo;

#[async_trait]
impl AgentExecutor for Echo {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        // One update, so a durable store writes the task once.
        updater
            .complete_with_artifacts([Artifact::from_text(context.text()).with_name("echo")], ())
            .await?;
        Ok(())
    }
}
