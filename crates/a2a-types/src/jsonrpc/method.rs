//! [`Method`]: the eleven v1.0 operations, their names, and whether they stream (their v0.3
//! names are [`super::v0_3`]'s).

use std::fmt;
use std::str::FromStr;

use super::methods;

/// The eleven A2A v1.0 operations.
///
/// Not `#[non_exhaustive]`: the set is fixed by the protocol version, and every dispatcher must
/// fail to compile until it decides about a new operation (rule 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `SendMessage`.
    SendMessage,
    /// `SendStreamingMessage`.
    SendStreamingMessage,
    /// `GetTask`.
    GetTask,
    /// `ListTasks`.
    ListTasks,
    /// `CancelTask`.
    CancelTask,
    /// `SubscribeToTask`.
    SubscribeToTask,
    /// `CreateTaskPushNotificationConfig`.
    CreateTaskPushNotificationConfig,
    /// `GetTaskPushNotificationConfig`.
    GetTaskPushNotificationConfig,
    /// `ListTaskPushNotificationConfigs`.
    ListTaskPushNotificationConfigs,
    /// `DeleteTaskPushNotificationConfig`.
    DeleteTaskPushNotificationConfig,
    /// `GetExtendedAgentCard`.
    GetExtendedAgentCard,
}

impl Method {
    /// Every operation, in the order of [`methods::ALL`].
    pub const ALL: [Method; 11] = [
        Self::SendMessage,
        Self::SendStreamingMessage,
        Self::GetTask,
        Self::ListTasks,
        Self::CancelTask,
        Self::SubscribeToTask,
        Self::CreateTaskPushNotificationConfig,
        Self::GetTaskPushNotificationConfig,
        Self::ListTaskPushNotificationConfigs,
        Self::DeleteTaskPushNotificationConfig,
        Self::GetExtendedAgentCard,
    ];

    /// The v1.0 JSON-RPC method name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SendMessage => methods::SEND_MESSAGE,
            Self::SendStreamingMessage => methods::SEND_STREAMING_MESSAGE,
            Self::GetTask => methods::GET_TASK,
            Self::ListTasks => methods::LIST_TASKS,
            Self::CancelTask => methods::CANCEL_TASK,
            Self::SubscribeToTask => methods::SUBSCRIBE_TO_TASK,
            Self::CreateTaskPushNotificationConfig => methods::CREATE_TASK_PUSH_NOTIFICATION_CONFIG,
            Self::GetTaskPushNotificationConfig => methods::GET_TASK_PUSH_NOTIFICATION_CONFIG,
            Self::ListTaskPushNotificationConfigs => methods::LIST_TASK_PUSH_NOTIFICATION_CONFIGS,
            Self::DeleteTaskPushNotificationConfig => methods::DELETE_TASK_PUSH_NOTIFICATION_CONFIG,
            Self::GetExtendedAgentCard => methods::GET_EXTENDED_AGENT_CARD,
        }
    }

    /// Whether a successful answer is an SSE stream rather than one response.
    pub const fn is_streaming(self) -> bool {
        match self {
            Self::SendStreamingMessage | Self::SubscribeToTask => true,
            Self::SendMessage
            | Self::GetTask
            | Self::ListTasks
            | Self::CancelTask
            | Self::CreateTaskPushNotificationConfig
            | Self::GetTaskPushNotificationConfig
            | Self::ListTaskPushNotificationConfigs
            | Self::DeleteTaskPushNotificationConfig
            | Self::GetExtendedAgentCard => false,
        }
    }

    /// The operation with this exact (case-sensitive) v1.0 name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|method| method.as_str() == name)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a v1.0 A2A method.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown method {name:?}")]
pub struct UnknownMethod {
    name: String,
}

impl UnknownMethod {
    /// The rejected name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl FromStr for Method {
    type Err = UnknownMethod;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::from_name(name).ok_or_else(|| UnknownMethod {
            name: name.to_owned(),
        })
    }
}
