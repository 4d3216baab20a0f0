//! Making the agent the settings name, and handing each turn to it.

use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use async_trait::async_trait;

use super::exec::Exec;
use super::{Agent, CommandNotFound, conformance, echo};
use crate::config::AgentSetup;

impl Agent {
    /// The agent `setup` names. Fails when the exec agent's program cannot be found, so a
    /// typo shows at start-up rather than on every message.
    /// The LLM agent needs its store and starts its tools: see [`super::llm::start`].
    pub(crate) fn new(setup: &AgentSetup) -> Result<Option<Self>, CommandNotFound> {
        Ok(Some(match setup {
            AgentSetup::Echo => Self::Echo(echo::Echo),
            AgentSetup::Exec(command) => Self::Exec(Exec::new(command)?),
            AgentSetup::Conformance => Self::Conformance(conformance::Conformance),
            AgentSetup::Llm(_) => return Ok(None),
        }))
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
            Self::Llm(agent) => agent.execute(context, updater).await,
        }
    }

    async fn cancel(
        &self,
        request: a2a_server::executor::CancelRequest<'_>,
    ) -> Result<(), ExecutorError> {
        match self {
            Self::Echo(agent) => agent.cancel(request).await,
            Self::Exec(agent) => agent.cancel(request).await,
            Self::Conformance(agent) => agent.cancel(request).await,
            Self::Llm(agent) => agent.cancel(request).await,
        }
    }

    async fn recover(&self, task: &a2a_types::Task) -> a2a_server::executor::Recovery {
        match self {
            Self::Echo(agent) => agent.recover(task).await,
            Self::Exec(agent) => agent.recover(task).await,
            Self::Conformance(agent) => agent.recover(task).await,
            Self::Llm(agent) => agent.recover(task).await,
        }
    }
}
