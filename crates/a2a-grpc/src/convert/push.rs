//! Push-notification configuration: [`TaskPushNotificationConfig`](a2a_types::TaskPushNotificationConfig),
//! [`AuthenticationInfo`](a2a_types::AuthenticationInfo) and the requests and response of
//! the get, delete and list operations.

use a2a_types::{PushConfigId, TaskId};

use super::ConvertError;
use super::fields::{convert_each, convert_optional, into_each, non_empty, required};
use crate::proto;

impl From<a2a_types::AuthenticationInfo> for proto::AuthenticationInfo {
    fn from(info: a2a_types::AuthenticationInfo) -> Self {
        Self {
            scheme: info.scheme,
            credentials: info.credentials.unwrap_or_default(),
        }
    }
}

impl TryFrom<proto::AuthenticationInfo> for a2a_types::AuthenticationInfo {
    type Error = ConvertError;

    /// Fails without a `scheme`.
    fn try_from(info: proto::AuthenticationInfo) -> Result<Self, ConvertError> {
        Ok(Self {
            scheme: required(info.scheme, "scheme")?,
            credentials: non_empty(info.credentials),
        })
    }
}

impl From<a2a_types::TaskPushNotificationConfig> for proto::TaskPushNotificationConfig {
    fn from(config: a2a_types::TaskPushNotificationConfig) -> Self {
        Self {
            tenant: config.tenant,
            id: config.id.map(PushConfigId::into_string).unwrap_or_default(),
            task_id: config.task_id.map(TaskId::into_string).unwrap_or_default(),
            url: config.url,
            token: config.token.unwrap_or_default(),
            authentication: config.authentication.map(Into::into),
        }
    }
}

impl TryFrom<proto::TaskPushNotificationConfig> for a2a_types::TaskPushNotificationConfig {
    type Error = ConvertError;

    /// Fails without a `url`, or when the authentication has no scheme.
    fn try_from(config: proto::TaskPushNotificationConfig) -> Result<Self, ConvertError> {
        Ok(Self {
            tenant: config.tenant,
            id: non_empty(config.id).map(PushConfigId::new),
            task_id: non_empty(config.task_id).map(TaskId::new),
            url: required(config.url, "url")?,
            token: non_empty(config.token),
            authentication: convert_optional(config.authentication, "authentication")?,
        })
    }
}

impl From<a2a_types::GetTaskPushNotificationConfigRequest>
    for proto::GetTaskPushNotificationConfigRequest
{
    fn from(request: a2a_types::GetTaskPushNotificationConfigRequest) -> Self {
        Self {
            tenant: request.tenant,
            task_id: request.task_id.into_string(),
            id: request.id.into_string(),
        }
    }
}

impl TryFrom<proto::GetTaskPushNotificationConfigRequest>
    for a2a_types::GetTaskPushNotificationConfigRequest
{
    type Error = ConvertError;

    /// Fails without a `task_id` or an `id`.
    fn try_from(
        request: proto::GetTaskPushNotificationConfigRequest,
    ) -> Result<Self, ConvertError> {
        Ok(Self {
            tenant: request.tenant,
            task_id: TaskId::new(required(request.task_id, "task_id")?),
            id: PushConfigId::new(required(request.id, "id")?),
        })
    }
}

impl From<a2a_types::DeleteTaskPushNotificationConfigRequest>
    for proto::DeleteTaskPushNotificationConfigRequest
{
    fn from(request: a2a_types::DeleteTaskPushNotificationConfigRequest) -> Self {
        Self {
            tenant: request.tenant,
            task_id: request.task_id.into_string(),
            id: request.id.into_string(),
        }
    }
}

impl TryFrom<proto::DeleteTaskPushNotificationConfigRequest>
    for a2a_types::DeleteTaskPushNotificationConfigRequest
{
    type Error = ConvertError;

    /// Fails without a `task_id` or an `id`.
    fn try_from(
        request: proto::DeleteTaskPushNotificationConfigRequest,
    ) -> Result<Self, ConvertError> {
        Ok(Self {
            tenant: request.tenant,
            task_id: TaskId::new(required(request.task_id, "task_id")?),
            id: PushConfigId::new(required(request.id, "id")?),
        })
    }
}

impl From<a2a_types::ListTaskPushNotificationConfigsRequest>
    for proto::ListTaskPushNotificationConfigsRequest
{
    fn from(request: a2a_types::ListTaskPushNotificationConfigsRequest) -> Self {
        Self {
            tenant: request.tenant,
            task_id: request.task_id.into_string(),
            page_size: request.page_size,
            page_token: request.page_token,
        }
    }
}

impl TryFrom<proto::ListTaskPushNotificationConfigsRequest>
    for a2a_types::ListTaskPushNotificationConfigsRequest
{
    type Error = ConvertError;

    /// Fails without a `task_id`.
    fn try_from(
        request: proto::ListTaskPushNotificationConfigsRequest,
    ) -> Result<Self, ConvertError> {
        Ok(Self {
            tenant: request.tenant,
            task_id: TaskId::new(required(request.task_id, "task_id")?),
            page_size: request.page_size,
            page_token: request.page_token,
        })
    }
}

impl From<a2a_types::ListTaskPushNotificationConfigsResponse>
    for proto::ListTaskPushNotificationConfigsResponse
{
    fn from(response: a2a_types::ListTaskPushNotificationConfigsResponse) -> Self {
        Self {
            configs: into_each(response.configs),
            next_page_token: response.next_page_token,
        }
    }
}

impl TryFrom<proto::ListTaskPushNotificationConfigsResponse>
    for a2a_types::ListTaskPushNotificationConfigsResponse
{
    type Error = ConvertError;

    /// Fails when a config fails.
    fn try_from(
        response: proto::ListTaskPushNotificationConfigsResponse,
    ) -> Result<Self, ConvertError> {
        Ok(Self {
            configs: convert_each(response.configs, "configs")?,
            next_page_token: response.next_page_token,
        })
    }
}
