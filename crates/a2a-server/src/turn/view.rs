//! [`TurnView`]: what the request that started a turn, and a subscriber that joins it, can
//! see of the turn.

use std::sync::Arc;

use a2a_types::{A2aError, Message, Task, TaskState};

/// What the request that started a turn can see of it.
#[derive(Debug, Clone, Default)]
pub(crate) struct TurnView {
    /// The latest task as stored, once it exists (shared: every reader of the view gets it
    /// without a copy, and the last one to hold it may take it).
    pub(crate) task: Option<Arc<Task>>,
    /// True once the turn changed the task.
    pub(crate) changed: bool,
    /// The last state the turn set with a status change.
    pub(crate) status_set: Option<TaskState>,
    /// The reply, when the executor answered with a message.
    pub(crate) reply: Option<Message>,
    /// The error that answers the request (a refusal, or InvalidAgentResponse).
    pub(crate) refusal: Option<A2aError>,
    /// True once the turn ended.
    pub(crate) ended: bool,
}
