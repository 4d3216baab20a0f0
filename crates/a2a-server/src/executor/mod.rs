//! What an agent implements: the [`AgentExecutor`] trait, the [`RequestContext`] a turn
//! receives, the [`TaskUpdater`] that drives the task, and [`progress`] helpers.
//!
//! Every incoming message starts a *turn*: the server calls [`AgentExecutor::execute`] once,
//! and the executor drives the task through its updater. The rules (those of a TS SDK's A2A
//! module):
//!
//! - A new interaction gets its task at the first update: the task is created SUBMITTED with
//!   the client's message as its history, then the update applies. [`TaskUpdater::reply`]
//!   answers with a message and creates no task.
//! - The turn ends at a reply, at a status update to a terminal state or INPUT_REQUIRED, or
//!   when `execute` returns. Later updates fail with [`UpdateError::TurnEnded`].
//! - Returning `Ok` while the task is SUBMITTED or WORKING completes it; while AUTH_REQUIRED it
//!   stays waiting. A new interaction that neither replied nor updated answers
//!   InvalidAgentResponse.
//! - [`ExecutorError::Refuse`] before the task changed answers the request with that error and
//!   leaves the task as it was (a refused follow-up message is taken back out of the history).
//!   Any other error fails the task with a message that is safe to show.

mod context;
mod debug;
mod error;
pub mod progress;
mod updater;

use a2a_types::{A2aError, Task};
use async_trait::async_trait;

pub use self::context::RequestContext;
pub(crate) use self::updater::{Change, TurnHandle};
pub use self::updater::{TaskUpdater, Update, UpdateError};

/// The agent's logic.
#[async_trait]
pub trait AgentExecutor: Send + Sync + 'static {
    /// Runs one turn: reads `context.message` and drives the task through `updater`.
    ///
    /// The future runs on its own tokio task: a client that disconnects, or a SendMessage
    /// answered early (`returnImmediately`), does not stop it. It must honour
    /// `context.cancellation` and return soon after it fires.
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError>;

    /// Called by CancelTask before the task becomes CANCELED, whether or not a turn is
    /// running (a task waiting for input has none). Returning an error keeps the task as it
    /// is: [`ExecutorError::Refuse`] answers the request with that error, anything else
    /// answers InternalError. The task's lock is held while this runs, so it must not
    /// wait for `execute`.
    async fn cancel(&self, request: CancelRequest<'_>) -> Result<(), ExecutorError> {
        let _ = request;
        Ok(())
    }

    /// Called on one surviving instance for a task whose turn was lost: the instance running
    /// it stopped renewing its lease (it crashed or was cut off) while the task was SUBMITTED,
    /// WORKING or AUTH_REQUIRED. By default the task fails with a status message
    /// saying so; [`Recovery::Rerun`] runs [`AgentExecutor::execute`] again, on this instance,
    /// for the task's last client message.
    async fn recover(&self, task: &Task) -> Recovery {
        let _ = task;
        Recovery::Fail(LOST_TURN_MESSAGE.to_owned())
    }
}

/// The status message of a task failed because its turn was lost (its instance stopped
/// mid-turn).
pub const LOST_TURN_MESSAGE: &str =
    "the server instance working on this task stopped before it finished";

/// What to do with a task whose turn was lost ([`AgentExecutor::recover`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Recovery {
    /// Fail the task with this status message (shown to the client).
    Fail(String),
    /// Run the executor again for the task's last client message, as a follow-up turn.
    Rerun,
}

/// What the cancel hook learns about the task being canceled.
#[derive(Debug)]
#[non_exhaustive]
pub struct CancelRequest<'a> {
    /// The task as stored, before cancellation.
    pub task: &'a Task,
    /// True when a turn of this task is running on this server.
    pub running: bool,
    /// The tenant of the request.
    pub tenant: &'a str,
    /// The caller, when authentication is on.
    pub owner: Option<&'a str>,
    /// The metadata of the CancelTask request.
    pub metadata: Option<&'a a2a_types::Metadata>,
}

/// How an executor's turn went wrong; the variant decides what the client sees.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecutorError {
    /// Refuse the request with this A2A error, leaving the task as it was. Only honoured
    /// before the task changed in this turn; afterwards it fails the task with the error's
    /// message.
    #[error("refused: {0}")]
    Refuse(A2aError),
    /// Fail the task, with this text (shown to the client) as the status message.
    #[error("{0}")]
    Failed(String),
    /// Fail the task with a generic message; the cause is logged, never shown.
    #[error("executor failed")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// An update was refused (the turn ended, or the task was canceled).
    #[error(transparent)]
    Update(#[from] UpdateError),
}
