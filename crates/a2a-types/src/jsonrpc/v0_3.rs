//! The v0.3 method names (`a2a-v1.md` §15.1), for the compatibility layer. v0.3 had no
//! `ListTasks` on JSON-RPC.

use super::Method;

/// `message/send` → `SendMessage`.
pub const MESSAGE_SEND: &str = "message/send";
/// `message/stream` → `SendStreamingMessage`.
pub const MESSAGE_STREAM: &str = "message/stream";
/// `tasks/get` → `GetTask`.
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/cancel` → `CancelTask`.
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// `tasks/resubscribe` → `SubscribeToTask`.
pub const TASKS_RESUBSCRIBE: &str = "tasks/resubscribe";
/// `tasks/pushNotificationConfig/set` → `CreateTaskPushNotificationConfig`.
pub const PUSH_CONFIG_SET: &str = "tasks/pushNotificationConfig/set";
/// `tasks/pushNotificationConfig/get` → `GetTaskPushNotificationConfig`.
pub const PUSH_CONFIG_GET: &str = "tasks/pushNotificationConfig/get";
/// `tasks/pushNotificationConfig/list` → `ListTaskPushNotificationConfigs`.
pub const PUSH_CONFIG_LIST: &str = "tasks/pushNotificationConfig/list";
/// `tasks/pushNotificationConfig/delete` → `DeleteTaskPushNotificationConfig`.
pub const PUSH_CONFIG_DELETE: &str = "tasks/pushNotificationConfig/delete";
/// `agent/getAuthenticatedExtendedCard` → `GetExtendedAgentCard`.
pub const GET_AUTHENTICATED_EXTENDED_CARD: &str = "agent/getAuthenticatedExtendedCard";

/// Every v0.3 method name.
pub const ALL: [&str; 10] = [
    MESSAGE_SEND,
    MESSAGE_STREAM,
    TASKS_GET,
    TASKS_CANCEL,
    TASKS_RESUBSCRIBE,
    PUSH_CONFIG_SET,
    PUSH_CONFIG_GET,
    PUSH_CONFIG_LIST,
    PUSH_CONFIG_DELETE,
    GET_AUTHENTICATED_EXTENDED_CARD,
];

/// The v1.0 operation a v0.3 method name stands for.
pub fn to_method(name: &str) -> Option<Method> {
    Method::ALL
        .into_iter()
        .find(|method| method.v0_3_name() == Some(name))
}

/// The v1.0 method name for a v0.3 method name (`message/send` → `SendMessage`).
pub fn to_v1_name(name: &str) -> Option<&'static str> {
    to_method(name).map(Method::as_str)
}

impl Method {
    /// The v0.3 method name, if v0.3 had this operation on JSON-RPC.
    pub const fn v0_3_name(self) -> Option<&'static str> {
        Some(match self {
            Self::SendMessage => MESSAGE_SEND,
            Self::SendStreamingMessage => MESSAGE_STREAM,
            Self::GetTask => TASKS_GET,
            Self::ListTasks => return None,
            Self::CancelTask => TASKS_CANCEL,
            Self::SubscribeToTask => TASKS_RESUBSCRIBE,
            Self::CreateTaskPushNotificationConfig => PUSH_CONFIG_SET,
            Self::GetTaskPushNotificationConfig => PUSH_CONFIG_GET,
            Self::ListTaskPushNotificationConfigs => PUSH_CONFIG_LIST,
            Self::DeleteTaskPushNotificationConfig => PUSH_CONFIG_DELETE,
            Self::GetExtendedAgentCard => GET_AUTHENTICATED_EXTENDED_CARD,
        })
    }
}
