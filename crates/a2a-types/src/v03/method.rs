//! [`Method`]: the ten JSON-RPC methods of A2A v0.3.

use std::fmt;
use std::str::FromStr;

use crate::jsonrpc::{self, v0_3};

/// The JSON-RPC methods of A2A v0.3 (v0.3 had no `tasks/list` on JSON-RPC).
///
/// Not `#[non_exhaustive]`: the v0.3 set is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `message/send`.
    MessageSend,
    /// `message/stream`.
    MessageStream,
    /// `tasks/get`.
    TasksGet,
    /// `tasks/cancel`.
    TasksCancel,
    /// `tasks/resubscribe`.
    TasksResubscribe,
    /// `tasks/pushNotificationConfig/set`.
    PushConfigSet,
    /// `tasks/pushNotificationConfig/get`.
    PushConfigGet,
    /// `tasks/pushNotificationConfig/list`.
    PushConfigList,
    /// `tasks/pushNotificationConfig/delete`.
    PushConfigDelete,
    /// `agent/getAuthenticatedExtendedCard`.
    GetAuthenticatedExtendedCard,
}

impl Method {
    /// Every method.
    pub const ALL: [Method; 10] = [
        Self::MessageSend,
        Self::MessageStream,
        Self::TasksGet,
        Self::TasksCancel,
        Self::TasksResubscribe,
        Self::PushConfigSet,
        Self::PushConfigGet,
        Self::PushConfigList,
        Self::PushConfigDelete,
        Self::GetAuthenticatedExtendedCard,
    ];

    /// The method name on the wire.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::MessageSend => v0_3::MESSAGE_SEND,
            Self::MessageStream => v0_3::MESSAGE_STREAM,
            Self::TasksGet => v0_3::TASKS_GET,
            Self::TasksCancel => v0_3::TASKS_CANCEL,
            Self::TasksResubscribe => v0_3::TASKS_RESUBSCRIBE,
            Self::PushConfigSet => v0_3::PUSH_CONFIG_SET,
            Self::PushConfigGet => v0_3::PUSH_CONFIG_GET,
            Self::PushConfigList => v0_3::PUSH_CONFIG_LIST,
            Self::PushConfigDelete => v0_3::PUSH_CONFIG_DELETE,
            Self::GetAuthenticatedExtendedCard => v0_3::GET_AUTHENTICATED_EXTENDED_CARD,
        }
    }

    /// The method with this exact (case-sensitive) name.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|method| method.as_str() == name)
    }

    /// The pre-0.3 names callers still send, with the method each stands for:
    /// `tasks/send` is `message/send`, `tasks/sendSubscribe` is `message/stream`.
    pub const ALIASES: [(&'static str, Method); 2] = [
        ("tasks/send", Self::MessageSend),
        ("tasks/sendSubscribe", Self::MessageStream),
    ];

    /// As [`Method::parse`], also reading the pre-0.3 [`Method::ALIASES`]. For an agent
    /// server; a proxy forwards names as they are and uses [`Method::parse`].
    #[must_use]
    pub fn parse_or_alias(name: &str) -> Option<Self> {
        Self::parse(name).or_else(|| {
            Self::ALIASES
                .into_iter()
                .find(|(alias, _)| *alias == name)
                .map(|(_, method)| method)
        })
    }

    /// The v1.0 operation this method stands for.
    #[must_use]
    pub const fn to_v1(self) -> jsonrpc::Method {
        match self {
            Self::MessageSend => jsonrpc::Method::SendMessage,
            Self::MessageStream => jsonrpc::Method::SendStreamingMessage,
            Self::TasksGet => jsonrpc::Method::GetTask,
            Self::TasksCancel => jsonrpc::Method::CancelTask,
            Self::TasksResubscribe => jsonrpc::Method::SubscribeToTask,
            Self::PushConfigSet => jsonrpc::Method::CreateTaskPushNotificationConfig,
            Self::PushConfigGet => jsonrpc::Method::GetTaskPushNotificationConfig,
            Self::PushConfigList => jsonrpc::Method::ListTaskPushNotificationConfigs,
            Self::PushConfigDelete => jsonrpc::Method::DeleteTaskPushNotificationConfig,
            Self::GetAuthenticatedExtendedCard => jsonrpc::Method::GetExtendedAgentCard,
        }
    }

    /// The v0.3 method for a v1.0 operation; `None` for `ListTasks`, which v0.3 had not.
    #[must_use]
    pub const fn from_v1(method: jsonrpc::Method) -> Option<Self> {
        Some(match method {
            jsonrpc::Method::SendMessage => Self::MessageSend,
            jsonrpc::Method::SendStreamingMessage => Self::MessageStream,
            jsonrpc::Method::GetTask => Self::TasksGet,
            jsonrpc::Method::ListTasks => return None,
            jsonrpc::Method::CancelTask => Self::TasksCancel,
            jsonrpc::Method::SubscribeToTask => Self::TasksResubscribe,
            jsonrpc::Method::CreateTaskPushNotificationConfig => Self::PushConfigSet,
            jsonrpc::Method::GetTaskPushNotificationConfig => Self::PushConfigGet,
            jsonrpc::Method::ListTaskPushNotificationConfigs => Self::PushConfigList,
            jsonrpc::Method::DeleteTaskPushNotificationConfig => Self::PushConfigDelete,
            jsonrpc::Method::GetExtendedAgentCard => Self::GetAuthenticatedExtendedCard,
        })
    }

    /// Whether a successful answer is an SSE stream.
    #[must_use]
    pub const fn is_streaming(self) -> bool {
        self.to_v1().is_streaming()
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Method {
    type Err = UnknownMethod;

    /// Fails for a name that is not a v0.3 method (v1.0 names included).
    fn from_str(name: &str) -> Result<Self, UnknownMethod> {
        Self::parse(name).ok_or_else(|| UnknownMethod {
            name: name.chars().take(64).collect(),
        })
    }
}

/// A name that is not a v0.3 A2A method.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown v0.3 method {name:?}")]
pub struct UnknownMethod {
    name: String,
}

impl UnknownMethod {
    /// The rejected name (at most 64 characters of it).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
}
