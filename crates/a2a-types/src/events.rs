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
