//! The request and response messages of the task operations: `SendMessage` (with its
//! [`SendMessageConfiguration`](a2a_types::SendMessageConfiguration)), `GetTask`,
//! `ListTasks`, `CancelTask`, `SubscribeToTask` and `GetExtendedAgentCard`. The
//! push-config requests are in `push.rs`.

use a2a_types::{ContextId, Metadata, TaskId};

use super::ConvertError;
use super::fields::{
    convert_each, convert_optional, convert_present, into_each, non_empty, required,
};
use super::structs::{metadata_in, metadata_out, timestamp_from_proto, timestamp_to_proto};
use crate::proto;

impl From<a2a_types::SendMessageConfiguration> for proto::SendMessageConfiguration {
    /// The v0.3 `blocking` flag has no field in v1.0: `blocking: false` is sent as
    /// `return_immediately: true`, which means the same. Members kept in `extra` are dropped.
    fn from(configuration: a2a_types::SendMessageConfiguration) -> Self {
        let return_immediately = configuration.return_immediately() == Some(true);
        Self {
            accepted_output_modes: configuration.accepted_output_modes,
            task_push_notification_config: configuration
                .task_push_notification_config
                .map(Into::into),
            history_length: configuration.history_length,
            return_immediately,
        }
    }
}

impl TryFrom<proto::SendMessageConfiguration> for a2a_types::SendMessageConfiguration {
    type Error = ConvertError;

    /// Fails when the push config fails.
    fn try_from(configuration: proto::SendMessageConfiguration) -> Result<Self, ConvertError> {
        Ok(Self {
            accepted_output_modes: configuration.accepted_output_modes,
            task_push_notification_config: convert_optional(
                configuration.task_push_notification_config,
                "task_push_notification_config",
            )?,
            history_length: configuration.history_length,
            return_immediately: configuration.return_immediately,
            blocking: None,
            extra: Metadata::new(),
        })
    }
}

impl From<a2a_types::SendMessageRequest> for proto::SendMessageRequest {
    fn from(request: a2a_types::SendMessageRequest) -> Self {
        Self {
            tenant: request.tenant,
            message: Some(request.message.into()),
            configuration: request.configuration.map(Into::into),
            metadata: metadata_out(request.metadata),
        }
    }
}

impl TryFrom<proto::SendMessageRequest> for a2a_types::SendMessageRequest {
    type Error = ConvertError;

    /// Fails without a message, or when the message or configuration fails.
    fn try_from(request: proto::SendMessageRequest) -> Result<Self, ConvertError> {
        Ok(Self {
            tenant: request.tenant,
            message: convert_present(request.message, "message")?,
            configuration: convert_optional(request.configuration, "configuration")?,
            metadata: metadata_in(request.metadata),
        })
    }
}

impl From<a2a_types::GetTaskRequest> for proto::GetTaskRequest {
    fn from(request: a2a_types::GetTaskRequest) -> Self {
        Self {
            tenant: request.tenant,
            id: request.id.into_string(),
            history_length: request.history_length,
        }
    }
}

impl TryFrom<proto::GetTaskRequest> for a2a_types::GetTaskRequest {
    type Error = ConvertError;

    /// Fails without an `id`.
    fn try_from(request: proto::GetTaskRequest) -> Result<Self, ConvertError> {
        Ok(Self {
            tenant: request.tenant,
            id: TaskId::new(required(request.id, "id")?),
            history_length: request.history_length,
        })
    }
}

impl From<a2a_types::ListTasksRequest> for proto::ListTasksRequest {
    fn from(request: a2a_types::ListTasksRequest) -> Self {
        Self {
            tenant: request.tenant,
            context_id: request
                .context_id
                .map(ContextId::into_string)
                .unwrap_or_default(),
            status: proto::TaskState::from(request.status).into(),
            page_size: request.page_size,
            page_token: request.page_token,
            history_length: request.history_length,
            status_timestamp_after: request.status_timestamp_after.map(timestamp_to_proto),
            include_artifacts: request.include_artifacts,
        }
    }
}

impl TryFrom<proto::ListTasksRequest> for a2a_types::ListTasksRequest {
    type Error = ConvertError;

    /// Fails on an out-of-range timestamp; `TASK_STATE_UNSPECIFIED` is "no filter", and so
    /// is a status number the enum does not define.
    fn try_from(request: proto::ListTasksRequest) -> Result<Self, ConvertError> {
        let status_timestamp_after = request
            .status_timestamp_after
            .map(|timestamp| {
                timestamp_from_proto(timestamp).map_err(|e| e.within("status_timestamp_after"))
            })
            .transpose()?;
        Ok(Self {
            tenant: request.tenant,
            context_id: non_empty(request.context_id).map(ContextId::new),
            status: a2a_types::TaskState::from_number(i64::from(request.status))
                .unwrap_or_default(),
            page_size: request.page_size,
            page_token: request.page_token,
            history_length: request.history_length,
            status_timestamp_after,
            include_artifacts: request.include_artifacts,
        })
    }
}

impl From<a2a_types::ListTasksResponse> for proto::ListTasksResponse {
    fn from(response: a2a_types::ListTasksResponse) -> Self {
        Self {
            tasks: into_each(response.tasks),
            next_page_token: response.next_page_token,
            page_size: response.page_size,
            total_size: response.total_size,
        }
    }
}

impl TryFrom<proto::ListTasksResponse> for a2a_types::ListTasksResponse {
    type Error = ConvertError;

    /// Fails when a task fails.
    fn try_from(response: proto::ListTasksResponse) -> Result<Self, ConvertError> {
        Ok(Self {
            tasks: convert_each(response.tasks, "tasks")?,
            next_page_token: response.next_page_token,
            page_size: response.page_size,
            total_size: response.total_size,
        })
    }
}

impl From<a2a_types::CancelTaskRequest> for proto::CancelTaskRequest {
    fn from(request: a2a_types::CancelTaskRequest) -> Self {
        Self {
            tenant: request.tenant,
            id: request.id.into_string(),
            metadata: metadata_out(request.metadata),
        }
    }
}

impl TryFrom<proto::CancelTaskRequest> for a2a_types::CancelTaskRequest {
    type Error = ConvertError;

    /// Fails without an `id`.
    fn try_from(request: proto::CancelTaskRequest) -> Result<Self, ConvertError> {
        Ok(Self {
            tenant: request.tenant,
            id: TaskId::new(required(request.id, "id")?),
            metadata: metadata_in(request.metadata),
        })
    }
}

impl From<a2a_types::SubscribeToTaskRequest> for proto::SubscribeToTaskRequest {
    fn from(request: a2a_types::SubscribeToTaskRequest) -> Self {
        Self {
            tenant: request.tenant,
            id: request.id.into_string(),
        }
    }
}

impl TryFrom<proto::SubscribeToTaskRequest> for a2a_types::SubscribeToTaskRequest {
    type Error = ConvertError;

    /// Fails without an `id`.
    fn try_from(request: proto::SubscribeToTaskRequest) -> Result<Self, ConvertError> {
        Ok(Self {
            tenant: request.tenant,
            id: TaskId::new(required(request.id, "id")?),
        })
    }
}

impl From<a2a_types::GetExtendedAgentCardRequest> for proto::GetExtendedAgentCardRequest {
    fn from(request: a2a_types::GetExtendedAgentCardRequest) -> Self {
        Self {
            tenant: request.tenant,
        }
    }
}

impl TryFrom<proto::GetExtendedAgentCardRequest> for a2a_types::GetExtendedAgentCardRequest {
    type Error = ConvertError;

    /// Never fails; `TryFrom` for the same shape as every other request.
    fn try_from(request: proto::GetExtendedAgentCardRequest) -> Result<Self, ConvertError> {
        Ok(Self {
            tenant: request.tenant,
        })
    }
}
