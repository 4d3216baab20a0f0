//! v0.3 [`Task`], [`TaskStatus`], [`TaskState`], the two update events, and the results
//! that carry them ([`SendMessageResult`], [`StreamEvent`]), with their conversions.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::convert::{ConversionError, non_empty, try_each_opt};
use super::message::{Artifact, Message, from_value, kind_of};
use crate::{ContextId, Metadata, TaskId, Timestamp};

/// The state of a task, in its v0.3 spelling.
///
/// Not `#[non_exhaustive]`: the v0.3 set is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskState {
    /// `submitted`.
    Submitted,
    /// `working`.
    Working,
    /// `input-required`.
    InputRequired,
    /// `completed`.
    Completed,
    /// `canceled`.
    Canceled,
    /// `failed`.
    Failed,
    /// `rejected`.
    Rejected,
    /// `auth-required`.
    AuthRequired,
    /// `unknown`: v1.0's `TASK_STATE_UNSPECIFIED`.
    Unknown,
}

/// The status of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatus {
    /// The state.
    pub state: TaskState,
    /// An agent message about the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When the status was recorded, ISO 8601 as received (checked when converted to v1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// A task (`kind: "task"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "task", rename_all = "camelCase")]
pub struct Task {
    /// The task id.
    pub id: TaskId,
    /// The conversation.
    #[serde(default)]
    pub context_id: ContextId,
    /// The current status.
    pub status: TaskStatus,
    /// Outputs produced so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
    /// Messages exchanged during the task, oldest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<Message>>,
    /// Custom key/values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A task's status changed (`kind: "status-update"`); `final` marks the last event of a
/// stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "status-update", rename_all = "camelCase")]
pub struct TaskStatusUpdateEvent {
    /// The task.
    pub task_id: TaskId,
    /// The task's context.
    pub context_id: ContextId,
    /// The new status.
    pub status: TaskStatus,
    /// True on the last event of the stream (`final`).
    #[serde(rename = "final")]
    pub is_final: bool,
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A task produced an artifact or a chunk of one (`kind: "artifact-update"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "artifact-update", rename_all = "camelCase")]
pub struct TaskArtifactUpdateEvent {
    /// The task.
    pub task_id: TaskId,
    /// The task's context.
    pub context_id: ContextId,
    /// The artifact or chunk.
    pub artifact: Artifact,
    /// True: append these parts to the artifact with the same id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append: Option<bool>,
    /// True: the final chunk of this artifact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_chunk: Option<bool>,
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The `result` of `message/send`: a bare task or message, told apart by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SendMessageResult {
    /// `kind: "task"`.
    Task(Task),
    /// `kind: "message"`.
    Message(Message),
}

/// One `result` of a `message/stream` or `tasks/resubscribe` stream (and, as a task, the
/// body of a v0.3 push notification), told apart by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StreamEvent {
    /// `kind: "task"`.
    Task(Task),
    /// `kind: "message"`.
    Message(Message),
    /// `kind: "status-update"`.
    StatusUpdate(TaskStatusUpdateEvent),
    /// `kind: "artifact-update"`.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

/// The kind of a result object that came without `kind`, from its members.
fn infer_result_kind(object: &Metadata) -> Option<&'static str> {
    if object.contains_key("artifact") {
        Some("artifact-update")
    } else if object.contains_key("final")
        || object.contains_key("taskId") && object.contains_key("status")
    {
        Some("status-update")
    } else if object.contains_key("status") {
        Some("task")
    } else if object.contains_key("parts") {
        Some("message")
    } else {
        None
    }
}

impl<'de> Deserialize<'de> for SendMessageResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        match kind_of::<D::Error>(&value, "SendMessageResult", infer_result_kind)?.as_str() {
            "task" => from_value(value).map(Self::Task),
            "message" => from_value(value).map(Self::Message),
            other => Err(de::Error::custom(format!(
                "SendMessageResult: unexpected kind {other:?}, expected \"task\" or \"message\""
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for StreamEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        match kind_of::<D::Error>(&value, "StreamEvent", infer_result_kind)?.as_str() {
            "task" => from_value(value).map(Self::Task),
            "message" => from_value(value).map(Self::Message),
            "status-update" => from_value(value).map(Self::StatusUpdate),
            "artifact-update" => from_value(value).map(Self::ArtifactUpdate),
            other => Err(de::Error::custom(format!(
                "StreamEvent: unexpected kind {other:?}, expected \"task\", \"message\", \
                 \"status-update\" or \"artifact-update\""
            ))),
        }
    }
}

impl StreamEvent {
    /// True for the last event of a v0.3 stream: a message, a status update marked
    /// `final`, or a task in a terminal state.
    #[must_use]
    pub fn is_final(&self) -> bool {
        match self {
            Self::Message(_) => true,
            Self::StatusUpdate(event) => event.is_final,
            Self::Task(task) => crate::TaskState::from(task.status.state).is_terminal(),
            Self::ArtifactUpdate(_) => false,
        }
    }
}

impl From<TaskState> for crate::TaskState {
    fn from(state: TaskState) -> Self {
        match state {
            TaskState::Submitted => Self::Submitted,
            TaskState::Working => Self::Working,
            TaskState::InputRequired => Self::InputRequired,
            TaskState::Completed => Self::Completed,
            TaskState::Canceled => Self::Canceled,
            TaskState::Failed => Self::Failed,
            TaskState::Rejected => Self::Rejected,
            TaskState::AuthRequired => Self::AuthRequired,
            TaskState::Unknown => Self::Unspecified,
        }
    }
}

impl From<crate::TaskState> for TaskState {
    fn from(state: crate::TaskState) -> Self {
        match state {
            crate::TaskState::Unspecified => Self::Unknown,
            crate::TaskState::Submitted => Self::Submitted,
            crate::TaskState::Working => Self::Working,
            crate::TaskState::Completed => Self::Completed,
            crate::TaskState::Failed => Self::Failed,
            crate::TaskState::Canceled => Self::Canceled,
            crate::TaskState::InputRequired => Self::InputRequired,
            crate::TaskState::Rejected => Self::Rejected,
            crate::TaskState::AuthRequired => Self::AuthRequired,
        }
    }
}

/// Fails on a timestamp that is not RFC 3339 or a status message that does not convert.
impl TryFrom<TaskStatus> for crate::TaskStatus {
    type Error = ConversionError;

    fn try_from(status: TaskStatus) -> Result<Self, ConversionError> {
        let timestamp = status
            .timestamp
            .as_deref()
            .map(Timestamp::parse)
            .transpose()
            .map_err(|err| ConversionError::new("timestamp", err.to_string()))?;
        let message = status
            .message
            .map(crate::Message::try_from)
            .transpose()
            .map_err(|err| err.within("message"))?;
        Ok(Self {
            state: status.state.into(),
            message,
            timestamp,
        })
    }
}

/// Timestamps are written in RFC 3339 UTC (`…Z`).
impl From<crate::TaskStatus> for TaskStatus {
    fn from(status: crate::TaskStatus) -> Self {
        Self {
            state: status.state.into(),
            message: status.message.map(Message::from),
            timestamp: status.timestamp.map(|timestamp| timestamp.to_string()),
        }
    }
}

impl TryFrom<Task> for crate::Task {
    type Error = ConversionError;

    fn try_from(task: Task) -> Result<Self, ConversionError> {
        Ok(Self {
            id: task.id,
            context_id: task.context_id,
            status: task
                .status
                .try_into()
                .map_err(|err: ConversionError| err.within("status"))?,
            artifacts: try_each_opt(task.artifacts).map_err(|err| err.within("artifacts"))?,
            history: try_each_opt(task.history).map_err(|err| err.within("history"))?,
            metadata: task.metadata,
        })
    }
}

/// Empty artifact and history lists are left out.
impl From<crate::Task> for Task {
    fn from(task: crate::Task) -> Self {
        Self {
            id: task.id,
            context_id: task.context_id,
            status: task.status.into(),
            artifacts: non_empty(task.artifacts),
            history: non_empty(task.history),
            metadata: task.metadata,
        }
    }
}

/// `final` is dropped: in v1.0 the binding ends the stream.
impl TryFrom<TaskStatusUpdateEvent> for crate::TaskStatusUpdateEvent {
    type Error = ConversionError;

    fn try_from(event: TaskStatusUpdateEvent) -> Result<Self, ConversionError> {
        Ok(Self {
            task_id: event.task_id,
            context_id: event.context_id,
            status: event
                .status
                .try_into()
                .map_err(|err: ConversionError| err.within("status"))?,
            metadata: event.metadata,
        })
    }
}

impl TaskStatusUpdateEvent {
    /// The v0.3 event for a v1.0 one, with `final` as the caller decides (the stream's
    /// last event; see [`From`] for the default).
    #[must_use]
    pub fn from_v1(event: crate::TaskStatusUpdateEvent, is_final: bool) -> Self {
        Self {
            task_id: event.task_id,
            context_id: event.context_id,
            status: event.status.into(),
            is_final,
            metadata: event.metadata,
        }
    }
}

/// `final` is true when the new state is terminal (completed, failed, canceled, rejected),
/// which is where a v1.0 stream ends; a server that ends streams elsewhere too (at
/// `input-required`) uses [`TaskStatusUpdateEvent::from_v1`].
impl From<crate::TaskStatusUpdateEvent> for TaskStatusUpdateEvent {
    fn from(event: crate::TaskStatusUpdateEvent) -> Self {
        let is_final = event.status.state.is_terminal();
        Self::from_v1(event, is_final)
    }
}

/// An absent `append` or `lastChunk` reads as false.
impl TryFrom<TaskArtifactUpdateEvent> for crate::TaskArtifactUpdateEvent {
    type Error = ConversionError;

    fn try_from(event: TaskArtifactUpdateEvent) -> Result<Self, ConversionError> {
        Ok(Self {
            task_id: event.task_id,
            context_id: event.context_id,
            artifact: event
                .artifact
                .try_into()
                .map_err(|err: ConversionError| err.within("artifact"))?,
            append: event.append.unwrap_or(false),
            last_chunk: event.last_chunk.unwrap_or(false),
            metadata: event.metadata,
        })
    }
}

/// `append` and `lastChunk` are always written.
impl From<crate::TaskArtifactUpdateEvent> for TaskArtifactUpdateEvent {
    fn from(event: crate::TaskArtifactUpdateEvent) -> Self {
        Self {
            task_id: event.task_id,
            context_id: event.context_id,
            artifact: event.artifact.into(),
            append: Some(event.append),
            last_chunk: Some(event.last_chunk),
            metadata: event.metadata,
        }
    }
}

impl TryFrom<SendMessageResult> for crate::SendMessageResponse {
    type Error = ConversionError;

    fn try_from(result: SendMessageResult) -> Result<Self, ConversionError> {
        Ok(match result {
            SendMessageResult::Task(task) => Self::Task(task.try_into()?),
            SendMessageResult::Message(message) => Self::Message(message.try_into()?),
        })
    }
}

impl From<crate::SendMessageResponse> for SendMessageResult {
    fn from(response: crate::SendMessageResponse) -> Self {
        match response {
            crate::SendMessageResponse::Task(task) => Self::Task(task.into()),
            crate::SendMessageResponse::Message(message) => Self::Message(message.into()),
        }
    }
}

impl TryFrom<StreamEvent> for crate::StreamResponse {
    type Error = ConversionError;

    fn try_from(event: StreamEvent) -> Result<Self, ConversionError> {
        Ok(match event {
            StreamEvent::Task(task) => Self::Task(task.try_into()?),
            StreamEvent::Message(message) => Self::Message(message.try_into()?),
            StreamEvent::StatusUpdate(event) => Self::StatusUpdate(event.try_into()?),
            StreamEvent::ArtifactUpdate(event) => Self::ArtifactUpdate(event.try_into()?),
        })
    }
}

/// A status update's `final` follows its [`From`] rule (terminal states).
impl From<crate::StreamResponse> for StreamEvent {
    fn from(response: crate::StreamResponse) -> Self {
        match response {
            crate::StreamResponse::Task(task) => Self::Task(task.into()),
            crate::StreamResponse::Message(message) => Self::Message(message.into()),
            crate::StreamResponse::StatusUpdate(event) => Self::StatusUpdate(event.into()),
            crate::StreamResponse::ArtifactUpdate(event) => Self::ArtifactUpdate(event.into()),
        }
    }
}
