//! Making the agent the settings name, and handing each turn to it.

use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use async_trait::async_trait;

use super::exec::Exec;
use super::{Agent, CommandNotFound, conformance, echo};
use crate::config::AgentSetup;

impl Agent {
    /// The agent `setup` names. Fails when the exec agent's program cannot be found, so a
    /// typo shows at start-up rather than on every message.
    pub(crate) fn new(setup: &AgentSetup) -> Result<Self, CommandNotFound> {
        Ok(match setup {
            AgentSetup::Echo => Self::Echo(echo::Echo),
            AgentSetup::Exec(command) => Self::Exec(Exec::new(command)?),
            AgentSetup::Conformance => Self::Conformance(conformance::Conformance),
        })
    }
}

#[async_trait]
impl AgentExecutor for Agent {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        match self {
            Self::Echo(agent) => agent.execute(context, updater).await,
            Self::Exec(agent) => agent.execute(context, updater).await,
            Self::Conformance(agent) => agent.execute(context, updater).await,
        }
    }
}
