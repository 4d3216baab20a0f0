//! [`Task`] and [`TaskStatus`]: the unit of work an agent tracks.

use serde::{Deserialize, Serialize};

use crate::wire::nullable;
use crate::{Artifact, ContextId, Message, Metadata, TaskId, TaskState, Timestamp};

/// A unit of work with a lifecycle (proto `Task`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Server-generated, unique; required.
    pub id: TaskId,
    /// The conversation; the server always fills it.
    #[serde(
        default,
        alias = "context_id",
        skip_serializing_if = "ContextId::is_empty",
        deserialize_with = "nullable"
    )]
    pub context_id: ContextId,
    /// The current status; required.
    pub status: TaskStatus,
    /// Outputs produced so far.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub artifacts: Vec<Artifact>,
    /// Messages exchanged during the task, oldest first.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub history: Vec<Message>,
    /// Custom key/values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Task {
    /// A task in `state`, stamped now, with no artifacts or history.
    #[must_use]
    pub fn new(id: TaskId, context_id: ContextId, state: TaskState) -> Self {
        Self {
            id,
            context_id,
            status: TaskStatus::new(state),
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
        }
    }

    /// The text of the latest history message, or `""` without history.
    #[must_use]
    pub fn text(&self) -> String {
        self.history.last().map(Message::text).unwrap_or_default()
    }

    /// Keeps only the newest `length` history messages; `0` clears the history
    /// (spec §9.5: a negative length is the caller's to refuse).
    pub fn truncate_history(&mut self, length: usize) {
        let excess = self.history.len().saturating_sub(length);
        self.history.drain(..excess);
    }
}

/// The status of a task (proto `TaskStatus`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatus {
    /// The state; required.
    pub state: TaskState,
    /// An agent message explaining the status, e.g. the question for INPUT_REQUIRED.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When the status was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Timestamp>,
}

impl TaskStatus {
    /// A status in `state`, stamped now.
    #[must_use]
    pub fn new(state: TaskState) -> Self {
        Self {
            state,
            message: None,
            timestamp: Some(Timestamp::now()),
        }
    }

    /// Sets the status message.
    #[must_use]
    pub fn with_message(mut self, message: Message) -> Self {
        self.message = Some(message);
        self
    }

    /// The text of the status message, or `""` without one.
    #[must_use]
    pub fn text(&self) -> String {
        self.message.as_ref().map(Message::text).unwrap_or_default()
    }
}
