//! Delegating from an [`AgentExecutor`](a2a_server::AgentExecutor) to another agent (feature
//! `executor`): `?` on a [`ClientError`] fails the task, so the other agent's A2A error is
//! never passed on as this server's own answer.
//!
//! The other agent was answering this executor, not this server's caller: its TaskNotFound,
//! InvalidParams… would mean something else to the caller. So an [`ClientError::Agent`]
//! becomes [`ExecutorError::failed`] with the other agent's message text only (its code,
//! reason and metadata are dropped), and any other failure (network, timeout, decoding)
//! becomes [`ExecutorError::internal`]: logged, with a generic message shown. From the
//! cancel hook either one answers InternalError. To refuse deliberately, return an
//! [`A2aError`](a2a_types::A2aError) of your own ([`ExecutorError::Refuse`]).
//!
//! ```
//! use a2a_client::{A2aClient, message};
//! use a2a_server::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
//! use a2a_types::Artifact;
//!
//! /// Asks another agent and hands its answer on.
//! struct Relay {
//!     other: A2aClient,
//! }
//!
//! #[async_trait::async_trait]
//! impl AgentExecutor for Relay {
//!     async fn execute(&self, context: RequestContext, updater: TaskUpdater) -> Result<(), ExecutorError> {
//!         // The other agent's TaskNotFound fails this task; it does not answer our caller.
//!         let answer = self.other.send_message(message::request(context.text())).await?;
//!         updater.add_artifact(Artifact::from_text(format!("{answer:?}"))).await?;
//!         updater.complete(()).await?;
//!         Ok(())
//!     }
//! }
//! ```

use a2a_server::ExecutorError;

use crate::ClientError;

impl From<ClientError> for ExecutorError {
    fn from(error: ClientError) -> Self {
        match error {
            ClientError::Agent(error) => ExecutorError::failed(error.message()),
            other => ExecutorError::internal(other),
        }
    }
}
