//! Stream elements: [`TaskStatusUpdateEvent`], [`TaskArtifactUpdateEvent`] and the
//! [`StreamResponse`] oneof that carries them (also the push-notification payload).

use serde::{Deserialize, Serialize};

use crate::oneof::oneof_message;
use crate::wire::{is_false, nullable};
use crate::{Artifact, ContextId, Message, Metadata, Task, TaskId, TaskStatus};

/// A task's status changed (proto `TaskStatusUpdateEvent`). There is no `final` flag in
/// v1.0: the binding signals the end of a stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusUpdateEvent {
    /// The task; required.
    #[serde(alias = "task_id")]
    pub task_id: TaskId,
    /// The task's context; required.
    #[serde(alias = "context_id")]
    pub context_id: ContextId,
    /// The new status; required.
    pub status: TaskStatus,
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A task produced an artifact or a chunk of one (proto `TaskArtifactUpdateEvent`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskArtifactUpdateEvent {
    /// The task; required.
    #[serde(alias = "task_id")]
    pub task_id: TaskId,
    /// The task's context; required.
    #[serde(alias = "context_id")]
    pub context_id: ContextId,
    /// The artifact or chunk; required.
    pub artifact: Artifact,
    /// True: append these parts to the artifact with the same id; false: add or replace.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "nullable"
    )]
    pub append: bool,
    /// True: the final chunk of this artifact.
    #[serde(
        default,
        alias = "last_chunk",
        skip_serializing_if = "is_false",
        deserialize_with = "nullable"
    )]
    pub last_chunk: bool,
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// Where an artifact update stands in its artifact: the wire's `append` and `lastChunk`
/// flags as one named value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArtifactChunk {
    /// The whole artifact: adds it, or replaces the one with the same id.
    Whole,
    /// The first chunk of a streamed artifact (replaces any with the same id); more follow.
    First,
    /// A chunk appended to the artifact with the same id; more follow.
    Next,
    /// The final chunk appended to the artifact with the same id.
    Last,
}

impl ArtifactChunk {
    /// The wire's `append` flag: add these parts to the artifact with the same id.
    #[must_use]
    pub const fn append(self) -> bool {
        match self {
            Self::Whole | Self::First => false,
            Self::Next | Self::Last => true,
        }
    }

    /// The wire's `lastChunk` flag: nothing follows for this artifact.
    #[must_use]
    pub const fn last_chunk(self) -> bool {
        match self {
            Self::Whole | Self::Last => true,
            Self::First | Self::Next => false,
        }
    }
}

impl TaskArtifactUpdateEvent {
    /// Where this update stands in its artifact, from its `append` and `last_chunk` flags.
    #[must_use]
    pub const fn chunk(&self) -> ArtifactChunk {
        match (self.append, self.last_chunk) {
            (false, true) => ArtifactChunk::Whole,
            (false, false) => ArtifactChunk::First,
            (true, false) => ArtifactChunk::Next,
            (true, true) => ArtifactChunk::Last,
        }
    }
}

oneof_message! {
    /// One element of a stream, and the body of a push notification (proto `StreamResponse`).
    pub enum StreamResponse {
        /// A snapshot of the task.
        Task(Task) = "task",
        /// A direct agent message (a message-only stream).
        Message(Message) = "message",
        /// A status change.
        StatusUpdate(TaskStatusUpdateEvent) = "statusUpdate" | "status_update",
        /// An artifact or chunk.
        ArtifactUpdate(TaskArtifactUpdateEvent) = "artifactUpdate" | "artifact_update",
    }
}

oneof_message! {
    /// The answer to `SendMessage` (proto `SendMessageResponse`): a task or a direct message.
    pub enum SendMessageResponse {
        /// The task the message created or continued.
        Task(Task) = "task",
        /// A direct reply; no task was created.
        Message(Message) = "message",
    }
}

impl StreamResponse {
    /// True when this element leaves its task in a terminal state (a task snapshot or a
    /// status update in one): nothing is logged for the task after it.
    #[must_use]
    pub fn is_terminal_status(&self) -> bool {
        match self {
            Self::Task(task) => task.status.state.is_terminal(),
            Self::StatusUpdate(event) => event.status.state.is_terminal(),
            Self::Message(_) | Self::ArtifactUpdate(_) => false,
        }
    }

    /// The id of the task this element belongs to, if any.
    #[must_use]
    pub fn task_id(&self) -> Option<&TaskId> {
        match self {
            Self::Task(task) => Some(&task.id),
            Self::Message(message) => message.task_id.as_ref(),
            Self::StatusUpdate(event) => Some(&event.task_id),
            Self::ArtifactUpdate(event) => Some(&event.task_id),
        }
    }
}

impl From<SendMessageResponse> for StreamResponse {
    fn from(response: SendMessageResponse) -> Self {
        match response {
            SendMessageResponse::Task(task) => Self::Task(task),
            SendMessageResponse::Message(message) => Self::Message(message),
        }
    }
}
