//! The built-in agents of `a2a serve`, behind one [`Agent`] so the server is built once.

mod conformance;
mod echo;
mod exec;

use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use async_trait::async_trait;

use crate::config::AgentSetup;

pub(crate) use self::exec::CommandNotFound;
use self::exec::Exec;

/// One of the built-in agents.
#[derive(Debug)]
pub(crate) enum Agent {
    /// `--agent echo`.
    Echo(echo::Echo),
    /// `--agent exec -- CMD ARGS…`.
    Exec(Exec),
    /// `--agent conformance`.
    Conformance(conformance::Conformance),
}

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
