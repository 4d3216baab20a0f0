//! v0.3 request params ([`MessageSendParams`], [`TaskQueryParams`], [`TaskIdParams`], the
//! push-config params) and push configs, with their conversions to and from the v1.0
//! requests.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::convert::{ConversionError, non_empty};
use super::message::Message;
use crate::{Metadata, PushConfigId, TaskId};

/// The params of `message/send` and `message/stream`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageSendParams {
    /// The user message.
    pub message: Message,
    /// How the server should answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<MessageSendConfiguration>,
    /// Request metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// Options of `message/send`.
///
/// Members v0.3 does not define (such as a gateway's `timeout`) are kept in `extra` and
/// carried into the v1.0 configuration's `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendConfiguration {
    /// Media types the client accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_output_modes: Option<Vec<String>>,
    /// The most history messages to return; in v0.3, `0` (like absent) means all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
    /// A webhook to register for the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config: Option<PushNotificationConfig>,
    /// True or absent: wait for the task to finish or pause; false: answer at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking: Option<bool>,
    /// Members v0.3 does not define, written back unchanged.
    #[serde(flatten)]
    pub extra: Metadata,
}

/// The params of `tasks/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskQueryParams {
    /// The task.
    pub id: TaskId,
    /// The most history messages to return; `0`, like absent, means all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
    /// Request metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The params of `tasks/cancel` and `tasks/resubscribe`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskIdParams {
    /// The task.
    pub id: TaskId,
    /// Request metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A webhook (v0.3 `PushNotificationConfig`): the nested half of a
/// [`TaskPushNotificationConfig`]. `Debug` hides the token and credentials.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct PushNotificationConfig {
    /// The config id; assigned by the server when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<PushConfigId>,
    /// The webhook URL.
    pub url: String,
    /// An opaque token sent with each delivery (`X-A2A-Notification-Token`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// How the agent authenticates to the webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<PushNotificationAuthenticationInfo>,
}

/// Credentials for a webhook: the schemes it accepts (v1.0 keeps one).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct PushNotificationAuthenticationInfo {
    /// HTTP authentication schemes such as `Bearer`.
    pub schemes: Vec<String>,
    /// The credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

/// A webhook registered for a task: the params and result of
/// `tasks/pushNotificationConfig/set`, the result of `…/get`, an element of `…/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfig {
    /// The task.
    pub task_id: TaskId,
    /// The webhook.
    pub push_notification_config: PushNotificationConfig,
}

/// The params of `tasks/pushNotificationConfig/get`; `id` is the task's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskPushNotificationConfigParams {
    /// The task.
    pub id: TaskId,
    /// The config; v0.3 let it be absent ("the task's config").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config_id: Option<PushConfigId>,
    /// Request metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The params of `tasks/pushNotificationConfig/list`; `id` is the task's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListTaskPushNotificationConfigParams {
    /// The task.
    pub id: TaskId,
    /// Request metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The params of `tasks/pushNotificationConfig/delete`; `id` is the task's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteTaskPushNotificationConfigParams {
    /// The task.
    pub id: TaskId,
    /// The config.
    pub push_notification_config_id: PushConfigId,
    /// Request metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl fmt::Debug for PushNotificationConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PushNotificationConfig")
            .field("id", &self.id)
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("authentication", &self.authentication)
            .finish()
    }
}

impl fmt::Debug for PushNotificationAuthenticationInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PushNotificationAuthenticationInfo")
            .field("schemes", &self.schemes)
            .field(
                "credentials",
                &self.credentials.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

/// A v0.3 history length as v1.0 reads it: v0.3 returns every message for `0` and for
/// negative lengths (the Python SDK truncates only for `> 0`), which in v1.0 is "unset".
fn history_length_to_v1(length: Option<i32>) -> Option<i32> {
    length.filter(|length| *length > 0)
}

/// A v1.0 history length as v0.3 reads it: v1.0's `0` ("no history") has no v0.3 spelling
/// and is left out (the whole history comes back; truncate it on receipt).
fn history_length_from_v1(length: Option<i32>) -> Option<i32> {
    length.filter(|length| *length > 0)
}

/// Fails on a message, or a push config, that does not convert. `blocking: false` becomes
/// `returnImmediately: true`; `historyLength` `0` becomes unset (see [`TaskQueryParams`]).
impl TryFrom<MessageSendParams> for crate::SendMessageRequest {
    type Error = ConversionError;

    fn try_from(params: MessageSendParams) -> Result<Self, ConversionError> {
        let message = params
            .message
            .try_into()
            .map_err(|err: ConversionError| err.within("message"))?;
        let configuration = params
            .configuration
            .map(crate::SendMessageConfiguration::try_from)
            .transpose()
            .map_err(|err| err.within("configuration"))?;
        Ok(Self {
            tenant: String::new(),
            message,
            configuration,
            metadata: params.metadata,
        })
    }
}

impl TryFrom<MessageSendConfiguration> for crate::SendMessageConfiguration {
    type Error = ConversionError;

    fn try_from(config: MessageSendConfiguration) -> Result<Self, ConversionError> {
        let push = config
            .push_notification_config
            .map(crate::TaskPushNotificationConfig::try_from)
            .transpose()
            .map_err(|err| err.within("pushNotificationConfig"))?;
        Ok(Self {
            accepted_output_modes: config.accepted_output_modes.unwrap_or_default(),
            task_push_notification_config: push,
            history_length: history_length_to_v1(config.history_length),
            return_immediately: config.blocking == Some(false),
            blocking: None,
            extra: config.extra,
        })
    }
}

/// `tenant` is dropped (v0.3 has none); `returnImmediately` becomes `blocking: false`.
impl From<crate::SendMessageRequest> for MessageSendParams {
    fn from(request: crate::SendMessageRequest) -> Self {
        Self {
            message: request.message.into(),
            configuration: request.configuration.map(MessageSendConfiguration::from),
            metadata: request.metadata,
        }
    }
}

impl From<crate::SendMessageConfiguration> for MessageSendConfiguration {
    fn from(config: crate::SendMessageConfiguration) -> Self {
        let blocking = config.return_immediately().map(|immediately| !immediately);
        Self {
            accepted_output_modes: non_empty(config.accepted_output_modes),
            history_length: history_length_from_v1(config.history_length),
            push_notification_config: config
                .task_push_notification_config
                .map(PushNotificationConfig::from),
            blocking,
            extra: config.extra,
        }
    }
}

/// `metadata` is dropped (v1.0 `GetTask` has none); `historyLength` `0` becomes unset.
impl From<TaskQueryParams> for crate::GetTaskRequest {
    fn from(params: TaskQueryParams) -> Self {
        Self {
            tenant: String::new(),
            id: params.id,
            history_length: history_length_to_v1(params.history_length),
        }
    }
}

/// `tenant` is dropped, and a `historyLength` of `0` (see [`TaskQueryParams`]).
impl From<crate::GetTaskRequest> for TaskQueryParams {
    fn from(request: crate::GetTaskRequest) -> Self {
        Self {
            id: request.id,
            history_length: history_length_from_v1(request.history_length),
            metadata: None,
        }
    }
}

impl From<TaskIdParams> for crate::CancelTaskRequest {
    fn from(params: TaskIdParams) -> Self {
        Self {
            tenant: String::new(),
            id: params.id,
            metadata: params.metadata,
        }
    }
}

/// `tenant` is dropped.
impl From<crate::CancelTaskRequest> for TaskIdParams {
    fn from(request: crate::CancelTaskRequest) -> Self {
        Self {
            id: request.id,
            metadata: request.metadata,
        }
    }
}

/// `metadata` is dropped (v1.0 `SubscribeToTask` has none).
impl From<TaskIdParams> for crate::SubscribeToTaskRequest {
    fn from(params: TaskIdParams) -> Self {
        Self {
            tenant: String::new(),
            id: params.id,
        }
    }
}

/// `tenant` is dropped.
impl From<crate::SubscribeToTaskRequest> for TaskIdParams {
    fn from(request: crate::SubscribeToTaskRequest) -> Self {
        Self {
            id: request.id,
            metadata: None,
        }
    }
}

/// Fails when `authentication` lists no scheme. Of several schemes, v1.0 keeps the first.
impl TryFrom<PushNotificationConfig> for crate::TaskPushNotificationConfig {
    type Error = ConversionError;

    fn try_from(config: PushNotificationConfig) -> Result<Self, ConversionError> {
        let authentication = config
            .authentication
            .map(|auth| -> Result<_, ConversionError> {
                let scheme = auth.schemes.into_iter().next().ok_or_else(|| {
                    ConversionError::new("authentication.schemes", "at least one scheme is needed")
                })?;
                Ok(crate::AuthenticationInfo {
                    scheme,
                    credentials: auth.credentials,
                })
            })
            .transpose()?;
        Ok(Self {
            tenant: String::new(),
            id: config.id.filter(|id| !id.is_empty()),
            task_id: None,
            url: config.url,
            token: config.token.filter(|token| !token.is_empty()),
            authentication,
        })
    }
}

/// `tenant` and `taskId` are dropped (a [`TaskPushNotificationConfig`] carries the task).
impl From<crate::TaskPushNotificationConfig> for PushNotificationConfig {
    fn from(config: crate::TaskPushNotificationConfig) -> Self {
        Self {
            id: config.id,
            url: config.url,
            token: config.token,
            authentication: config
                .authentication
                .map(|auth| PushNotificationAuthenticationInfo {
                    schemes: vec![auth.scheme],
                    credentials: auth.credentials,
                }),
        }
    }
}

/// The flat v1.0 config; fails like [`PushNotificationConfig`]'s conversion.
impl TryFrom<TaskPushNotificationConfig> for crate::TaskPushNotificationConfig {
    type Error = ConversionError;

    fn try_from(config: TaskPushNotificationConfig) -> Result<Self, ConversionError> {
        let mut flat = crate::TaskPushNotificationConfig::try_from(config.push_notification_config)
            .map_err(|err| err.within("pushNotificationConfig"))?;
        flat.task_id = Some(config.task_id).filter(|id| !id.is_empty());
        Ok(flat)
    }
}

/// `tenant` is dropped; an unset `taskId` becomes `""`.
impl From<crate::TaskPushNotificationConfig> for TaskPushNotificationConfig {
    fn from(mut config: crate::TaskPushNotificationConfig) -> Self {
        let task_id = config.task_id.take().unwrap_or_default();
        Self {
            task_id,
            push_notification_config: config.into(),
        }
    }
}

/// Fails when `pushNotificationConfigId` is absent: v1.0 always names the config, so a
/// server answers that v0.3 form itself (with the task's first config, from a list).
impl TryFrom<GetTaskPushNotificationConfigParams> for crate::GetTaskPushNotificationConfigRequest {
    type Error = ConversionError;

    fn try_from(params: GetTaskPushNotificationConfigParams) -> Result<Self, ConversionError> {
        let id = params
            .push_notification_config_id
            .filter(|id| !id.is_empty())
            .ok_or_else(|| {
                ConversionError::new(
                    "pushNotificationConfigId",
                    "required to name the config in v1.0",
                )
            })?;
        Ok(Self {
            tenant: String::new(),
            task_id: params.id,
            id,
        })
    }
}

/// `tenant` is dropped.
impl From<crate::GetTaskPushNotificationConfigRequest> for GetTaskPushNotificationConfigParams {
    fn from(request: crate::GetTaskPushNotificationConfigRequest) -> Self {
        Self {
            id: request.task_id,
            push_notification_config_id: Some(request.id),
            metadata: None,
        }
    }
}

/// Asks for the first page at the server's page size; v0.3 answers with every config, so a
/// server converting back follows `nextPageToken` to the end.
impl From<ListTaskPushNotificationConfigParams> for crate::ListTaskPushNotificationConfigsRequest {
    fn from(params: ListTaskPushNotificationConfigParams) -> Self {
        Self {
            tenant: String::new(),
            task_id: params.id,
            page_size: 0,
            page_token: String::new(),
        }
    }
}

/// `tenant`, `pageSize` and `pageToken` are dropped: v0.3 lists every config at once.
impl From<crate::ListTaskPushNotificationConfigsRequest> for ListTaskPushNotificationConfigParams {
    fn from(request: crate::ListTaskPushNotificationConfigsRequest) -> Self {
        Self {
            id: request.task_id,
            metadata: None,
        }
    }
}

impl From<DeleteTaskPushNotificationConfigParams>
    for crate::DeleteTaskPushNotificationConfigRequest
{
    fn from(params: DeleteTaskPushNotificationConfigParams) -> Self {
        Self {
            tenant: String::new(),
            task_id: params.id,
            id: params.push_notification_config_id,
        }
    }
}

/// `tenant` is dropped.
impl From<crate::DeleteTaskPushNotificationConfigRequest>
    for DeleteTaskPushNotificationConfigParams
{
    fn from(request: crate::DeleteTaskPushNotificationConfigRequest) -> Self {
        Self {
            id: request.task_id,
            push_notification_config_id: request.id,
            metadata: None,
        }
    }
}

/// The `…/list` result (a bare array) for one v1.0 page; `nextPageToken` is dropped.
impl From<crate::ListTaskPushNotificationConfigsResponse> for Vec<TaskPushNotificationConfig> {
    fn from(response: crate::ListTaskPushNotificationConfigsResponse) -> Self {
        response.configs.into_iter().map(Into::into).collect()
    }
}

/// Reads a v0.3 `…/list` result (a bare array) as one v1.0 page with no next page.
///
/// # Errors
/// When a config does not convert (the index names it).
pub fn list_result_to_v1(
    configs: Vec<TaskPushNotificationConfig>,
) -> Result<crate::ListTaskPushNotificationConfigsResponse, ConversionError> {
    Ok(crate::ListTaskPushNotificationConfigsResponse {
        configs: super::convert::try_each(configs)?,
        next_page_token: String::new(),
    })
}
