//! Request and response messages of the eleven operations (spec digest §2, §3.12–§3.14).
//!
//! Every request carries an optional `tenant` (empty when unset). `GetTask` and `CancelTask`
//! answer with a bare [`Task`](crate::Task), `GetExtendedAgentCard` with an
//! [`AgentCard`](crate::AgentCard), and `CreateTaskPushNotificationConfig` takes and returns a
//! [`TaskPushNotificationConfig`].

use serde::{Deserialize, Serialize};

use crate::wire::{empty_as_none, int32, is_unset, is_zero, nullable, optional_int32};
use crate::{
    ContextId, Message, Metadata, PushConfigId, Task, TaskId, TaskPushNotificationConfig,
    TaskState, Timestamp,
};

/// `SendMessage` and `SendStreamingMessage` request (proto `SendMessageRequest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SendMessageRequest {
    /// Routing tenant; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub tenant: String,
    /// The user message; required.
    pub message: Message,
    /// How the server should answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<SendMessageConfiguration>,
    /// Request-level metadata, e.g. extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl SendMessageRequest {
    /// A request carrying `message` and nothing else.
    #[must_use]
    pub fn new(message: Message) -> Self {
        Self {
            tenant: String::new(),
            message,
            configuration: None,
            metadata: None,
        }
    }

    /// Whether the caller asked for an answer before the task finishes (in this order:
    /// `returnImmediately`, then legacy `blocking: false`); `None` when it said neither, so
    /// the server default applies.
    #[must_use]
    pub fn return_immediately(&self) -> Option<bool> {
        self.configuration
            .as_ref()
            .and_then(SendMessageConfiguration::return_immediately)
    }
}

/// Options of a `SendMessage` call (proto `SendMessageConfiguration`).
///
/// Also reads the v0.3 `blocking` flag (`false` means return immediately), and keeps members
/// it does not know (such as a gateway's `timeout`) so they are written back unchanged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendMessageConfiguration {
    /// Media types the client accepts for response parts.
    #[serde(
        default,
        alias = "accepted_output_modes",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub accepted_output_modes: Vec<String>,
    /// A webhook to register for the task (its `taskId` left empty).
    #[serde(
        default,
        alias = "task_push_notification_config",
        skip_serializing_if = "Option::is_none"
    )]
    pub task_push_notification_config: Option<TaskPushNotificationConfig>,
    /// The most history messages to return in the task.
    #[serde(
        default,
        alias = "history_length",
        skip_serializing_if = "Option::is_none",
        with = "optional_int32"
    )]
    pub history_length: Option<i32>,
    /// True: answer as soon as the task exists; false or absent: block (the default).
    #[serde(
        default,
        alias = "return_immediately",
        skip_serializing_if = "crate::wire::is_false",
        deserialize_with = "nullable"
    )]
    pub return_immediately: bool,
    /// The v0.3 flag (`true` = wait), kept as received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking: Option<bool>,
    /// Members this version does not know, written back unchanged.
    #[serde(flatten)]
    pub extra: Metadata,
}

impl SendMessageConfiguration {
    /// `Some(true)` when `returnImmediately` is set, else the inverse of a legacy `blocking`
    /// flag, else `None` (`returnImmediately` wins when both are set).
    #[must_use]
    pub fn return_immediately(&self) -> Option<bool> {
        if self.return_immediately {
            Some(true)
        } else {
            self.blocking.map(|blocking| !blocking)
        }
    }
}

/// `GetTask` request (proto `GetTaskRequest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskRequest {
    /// Routing tenant; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub tenant: String,
    /// The task; required.
    pub id: TaskId,
    /// The most history messages to return; `0` returns none.
    #[serde(
        default,
        alias = "history_length",
        skip_serializing_if = "Option::is_none",
        with = "optional_int32"
    )]
    pub history_length: Option<i32>,
}

/// `ListTasks` request (proto `ListTasksRequest`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksRequest {
    /// Routing tenant; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub tenant: String,
    /// Only tasks of this context.
    #[serde(
        default,
        alias = "context_id",
        skip_serializing_if = "is_unset",
        deserialize_with = "empty_as_none"
    )]
    pub context_id: Option<ContextId>,
    /// Only tasks in this state; `Unspecified` means no filter. An unknown state (the JS SDK
    /// sends `"UNRECOGNIZED"` when unset) reads as `Unspecified`.
    #[serde(
        default,
        skip_serializing_if = "is_unspecified",
        deserialize_with = "crate::enums::unknown_as_unspecified"
    )]
    pub status: TaskState,
    /// Page size: default 50, range 1..=100.
    #[serde(
        default,
        alias = "page_size",
        skip_serializing_if = "Option::is_none",
        with = "optional_int32"
    )]
    pub page_size: Option<i32>,
    /// Cursor from a previous `nextPageToken`.
    #[serde(
        default,
        alias = "page_token",
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub page_token: String,
    /// The most history messages per task.
    #[serde(
        default,
        alias = "history_length",
        skip_serializing_if = "Option::is_none",
        with = "optional_int32"
    )]
    pub history_length: Option<i32>,
    /// Only tasks whose status timestamp is at or after this instant.
    #[serde(
        default,
        alias = "status_timestamp_after",
        skip_serializing_if = "Option::is_none"
    )]
    pub status_timestamp_after: Option<Timestamp>,
    /// Include artifacts (default false: the `artifacts` member is then absent).
    #[serde(
        default,
        alias = "include_artifacts",
        skip_serializing_if = "Option::is_none"
    )]
    pub include_artifacts: Option<bool>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes a reference
fn is_unspecified(state: &TaskState) -> bool {
    *state == TaskState::Unspecified
}

/// `ListTasks` response (proto `ListTasksResponse`). All four members are always written,
/// `nextPageToken` as `""` on the last page (spec §2.4).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResponse {
    /// One page of tasks.
    #[serde(default, deserialize_with = "nullable")]
    pub tasks: Vec<Task>,
    /// The cursor of the next page; empty on the last page.
    #[serde(default, alias = "next_page_token", deserialize_with = "nullable")]
    pub next_page_token: String,
    /// The page size actually used.
    #[serde(default, alias = "page_size", with = "int32")]
    pub page_size: i32,
    /// How many tasks matched before paging.
    #[serde(default, alias = "total_size", with = "int32")]
    pub total_size: i32,
}

/// `CancelTask` request (proto `CancelTaskRequest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CancelTaskRequest {
    /// Routing tenant; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub tenant: String,
    /// The task; required.
    pub id: TaskId,
    /// Request metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// `SubscribeToTask` request (proto `SubscribeToTaskRequest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscribeToTaskRequest {
    /// Routing tenant; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub tenant: String,
    /// The task; required.
    pub id: TaskId,
}

/// Declares a request that names one push config of one task (`Get…` and `Delete…`): the
/// routing tenant, the task and the config, each operation its own type.
macro_rules! push_config_request {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// Routing tenant; empty when unset.
            #[serde(
                default,
                skip_serializing_if = "String::is_empty",
                deserialize_with = "nullable"
            )]
            pub tenant: String,
            /// The task; required.
            #[serde(alias = "task_id")]
            pub task_id: TaskId,
            /// The config; required.
            pub id: PushConfigId,
        }
    };
}

push_config_request! {
    /// `GetTaskPushNotificationConfig` request (proto `GetTaskPushNotificationConfigRequest`).
    GetTaskPushNotificationConfigRequest
}

push_config_request! {
    /// `DeleteTaskPushNotificationConfig` request (proto
    /// `DeleteTaskPushNotificationConfigRequest`).
    DeleteTaskPushNotificationConfigRequest
}

/// `ListTaskPushNotificationConfigs` request (proto `ListTaskPushNotificationConfigsRequest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigsRequest {
    /// Routing tenant; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub tenant: String,
    /// The task; required.
    #[serde(alias = "task_id")]
    pub task_id: TaskId,
    /// Page size; `0` lets the server choose.
    #[serde(
        default,
        alias = "page_size",
        skip_serializing_if = "is_zero",
        with = "int32"
    )]
    pub page_size: i32,
    /// Cursor from a previous `nextPageToken`.
    #[serde(
        default,
        alias = "page_token",
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub page_token: String,
}

/// `ListTaskPushNotificationConfigs` response (proto `ListTaskPushNotificationConfigsResponse`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigsResponse {
    /// The task's configs.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub configs: Vec<TaskPushNotificationConfig>,
    /// The cursor of the next page; empty when done.
    #[serde(
        default,
        alias = "next_page_token",
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub next_page_token: String,
}

/// `GetExtendedAgentCard` request (proto `GetExtendedAgentCardRequest`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetExtendedAgentCardRequest {
    /// Routing tenant; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub tenant: String,
}

/// `google.protobuf.Empty`: written as `{}`; `null` is also read (some SDKs send it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Empty {}

impl<'de> Deserialize<'de> for Empty {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Option::<serde::de::IgnoredAny>::deserialize(deserializer).map(|_| Empty {})
    }
}
