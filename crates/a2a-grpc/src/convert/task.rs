//! [`Task`](a2a_types::Task), [`TaskStatus`](a2a_types::TaskStatus),
//! [`TaskState`](a2a_types::TaskState), the two update events, and the
//! [`StreamResponse`](a2a_types::StreamResponse) and
//! [`SendMessageResponse`](a2a_types::SendMessageResponse) oneofs.

use a2a_types::{ContextId, TaskId};

use super::ConvertError;
use super::fields::{
    convert, convert_each, convert_optional, convert_present, into_each, required,
};
use super::structs::{metadata_in, metadata_out, timestamp_from_proto, timestamp_to_proto};
use crate::proto;
use crate::proto::{send_message_response, stream_response};

impl From<a2a_types::TaskState> for proto::TaskState {
    fn from(state: a2a_types::TaskState) -> Self {
        match state {
            a2a_types::TaskState::Unspecified => Self::Unspecified,
            a2a_types::TaskState::Submitted => Self::Submitted,
            a2a_types::TaskState::Working => Self::Working,
            a2a_types::TaskState::Completed => Self::Completed,
            a2a_types::TaskState::Failed => Self::Failed,
            a2a_types::TaskState::Canceled => Self::Canceled,
            a2a_types::TaskState::InputRequired => Self::InputRequired,
            a2a_types::TaskState::Rejected => Self::Rejected,
            a2a_types::TaskState::AuthRequired => Self::AuthRequired,
        }
    }
}

impl TryFrom<proto::TaskState> for a2a_types::TaskState {
    type Error = ConvertError;

    /// Never fails: both sides have the same nine values. A [`proto::TaskStatus`] still
    /// refuses `TASK_STATE_UNSPECIFIED`, which proto3 cannot tell from an absent state.
    fn try_from(state: proto::TaskState) -> Result<Self, ConvertError> {
        Ok(match state {
            proto::TaskState::Unspecified => Self::Unspecified,
            proto::TaskState::Submitted => Self::Submitted,
            proto::TaskState::Working => Self::Working,
            proto::TaskState::Completed => Self::Completed,
            proto::TaskState::Failed => Self::Failed,
            proto::TaskState::Canceled => Self::Canceled,
            proto::TaskState::InputRequired => Self::InputRequired,
            proto::TaskState::Rejected => Self::Rejected,
            proto::TaskState::AuthRequired => Self::AuthRequired,
        })
    }
}

/// Reads an `i32` task-state field, refusing numbers the enum does not define.
pub(crate) fn task_state_field(
    number: i32,
    field: &str,
) -> Result<a2a_types::TaskState, ConvertError> {
    let state = proto::TaskState::try_from(number)
        .map_err(|_| ConvertError::new(field, format!("unknown TaskState number {number}")))?;
    a2a_types::TaskState::try_from(state)
}

impl From<a2a_types::TaskStatus> for proto::TaskStatus {
    fn from(status: a2a_types::TaskStatus) -> Self {
        Self {
            state: proto::TaskState::from(status.state).into(),
            message: status.message.map(Into::into),
            timestamp: status.timestamp.map(timestamp_to_proto),
        }
    }
}

impl TryFrom<proto::TaskStatus> for a2a_types::TaskStatus {
    type Error = ConvertError;

    /// Fails on an unset or unknown state, a bad message or an out-of-range timestamp.
    fn try_from(status: proto::TaskStatus) -> Result<Self, ConvertError> {
        let state = task_state_field(status.state, "state")?;
        if state == a2a_types::TaskState::Unspecified {
            return Err(ConvertError::missing("state"));
        }
        let timestamp = status
            .timestamp
            .map(|timestamp| timestamp_from_proto(timestamp).map_err(|e| e.within("timestamp")))
            .transpose()?;
        Ok(Self {
            state,
            message: convert_optional(status.message, "message")?,
            timestamp,
        })
    }
}

impl From<a2a_types::Task> for proto::Task {
    fn from(task: a2a_types::Task) -> Self {
        Self {
            id: task.id.into_string(),
            context_id: task.context_id.into_string(),
            status: Some(task.status.into()),
            artifacts: into_each(task.artifacts),
            history: into_each(task.history),
            metadata: metadata_out(task.metadata),
        }
    }
}

impl TryFrom<proto::Task> for a2a_types::Task {
    type Error = ConvertError;

    /// Fails without an `id` or a status, or when an artifact or message fails.
    fn try_from(task: proto::Task) -> Result<Self, ConvertError> {
        Ok(Self {
            id: TaskId::new(required(task.id, "id")?),
            context_id: ContextId::new(task.context_id),
            status: convert_present(task.status, "status")?,
            artifacts: convert_each(task.artifacts, "artifacts")?,
            history: convert_each(task.history, "history")?,
            metadata: metadata_in(task.metadata),
        })
    }
}

impl From<a2a_types::TaskStatusUpdateEvent> for proto::TaskStatusUpdateEvent {
    fn from(event: a2a_types::TaskStatusUpdateEvent) -> Self {
        Self {
            task_id: event.task_id.into_string(),
            context_id: event.context_id.into_string(),
            status: Some(event.status.into()),
            metadata: metadata_out(event.metadata),
        }
    }
}

impl TryFrom<proto::TaskStatusUpdateEvent> for a2a_types::TaskStatusUpdateEvent {
    type Error = ConvertError;

    /// Fails without a `task_id`, a `context_id` or a status.
    fn try_from(event: proto::TaskStatusUpdateEvent) -> Result<Self, ConvertError> {
        Ok(Self {
            task_id: TaskId::new(required(event.task_id, "task_id")?),
            context_id: ContextId::new(required(event.context_id, "context_id")?),
            status: convert_present(event.status, "status")?,
            metadata: metadata_in(event.metadata),
        })
    }
}

impl From<a2a_types::TaskArtifactUpdateEvent> for proto::TaskArtifactUpdateEvent {
    fn from(event: a2a_types::TaskArtifactUpdateEvent) -> Self {
        Self {
            task_id: event.task_id.into_string(),
            context_id: event.context_id.into_string(),
            artifact: Some(event.artifact.into()),
            append: event.append,
            last_chunk: event.last_chunk,
            metadata: metadata_out(event.metadata),
        }
    }
}

impl TryFrom<proto::TaskArtifactUpdateEvent> for a2a_types::TaskArtifactUpdateEvent {
    type Error = ConvertError;

    /// Fails without a `task_id`, a `context_id` or an artifact.
    fn try_from(event: proto::TaskArtifactUpdateEvent) -> Result<Self, ConvertError> {
        Ok(Self {
            task_id: TaskId::new(required(event.task_id, "task_id")?),
            context_id: ContextId::new(required(event.context_id, "context_id")?),
            artifact: convert_present(event.artifact, "artifact")?,
            append: event.append,
            last_chunk: event.last_chunk,
            metadata: metadata_in(event.metadata),
        })
    }
}

impl From<a2a_types::StreamResponse> for proto::StreamResponse {
    fn from(response: a2a_types::StreamResponse) -> Self {
        use stream_response::Payload;
        let payload = match response {
            a2a_types::StreamResponse::Task(task) => Payload::Task(task.into()),
            a2a_types::StreamResponse::Message(message) => Payload::Message(message.into()),
            a2a_types::StreamResponse::StatusUpdate(event) => Payload::StatusUpdate(event.into()),
            a2a_types::StreamResponse::ArtifactUpdate(event) => {
                Payload::ArtifactUpdate(event.into())
            }
        };
        Self {
            payload: Some(payload),
        }
    }
}

impl TryFrom<proto::StreamResponse> for a2a_types::StreamResponse {
    type Error = ConvertError;

    /// Fails when no member of the `payload` oneof is set, or the member fails.
    fn try_from(response: proto::StreamResponse) -> Result<Self, ConvertError> {
        use stream_response::Payload;
        let payload = response.payload.ok_or_else(|| {
            ConvertError::new(
                "payload",
                "exactly one of task, message, status_update, artifact_update must be set",
            )
        })?;
        Ok(match payload {
            Payload::Task(task) => Self::Task(convert(task, "task")?),
            Payload::Message(message) => Self::Message(convert(message, "message")?),
            Payload::StatusUpdate(event) => Self::StatusUpdate(convert(event, "status_update")?),
            Payload::ArtifactUpdate(event) => {
                Self::ArtifactUpdate(convert(event, "artifact_update")?)
            }
        })
    }
}

impl From<a2a_types::SendMessageResponse> for proto::SendMessageResponse {
    fn from(response: a2a_types::SendMessageResponse) -> Self {
        use send_message_response::Payload;
        let payload = match response {
            a2a_types::SendMessageResponse::Task(task) => Payload::Task(task.into()),
            a2a_types::SendMessageResponse::Message(message) => Payload::Message(message.into()),
        };
        Self {
            payload: Some(payload),
        }
    }
}

impl TryFrom<proto::SendMessageResponse> for a2a_types::SendMessageResponse {
    type Error = ConvertError;

    /// Fails when no member of the `payload` oneof is set, or the member fails.
    fn try_from(response: proto::SendMessageResponse) -> Result<Self, ConvertError> {
        use send_message_response::Payload;
        let payload = response.payload.ok_or_else(|| {
            ConvertError::new("payload", "exactly one of task, message must be set")
        })?;
        Ok(match payload {
            Payload::Task(task) => Self::Task(convert(task, "task")?),
            Payload::Message(message) => Self::Message(convert(message, "message")?),
        })
    }
}
