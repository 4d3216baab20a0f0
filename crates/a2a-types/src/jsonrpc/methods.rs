//! The v1.0 method names: exactly the gRPC rpc names.

/// `SendMessage`.
pub const SEND_MESSAGE: &str = "SendMessage";
/// `SendStreamingMessage` (answers with an SSE stream).
pub const SEND_STREAMING_MESSAGE: &str = "SendStreamingMessage";
/// `GetTask`.
pub const GET_TASK: &str = "GetTask";
/// `ListTasks`.
pub const LIST_TASKS: &str = "ListTasks";
/// `CancelTask`.
pub const CANCEL_TASK: &str = "CancelTask";
/// `SubscribeToTask` (answers with an SSE stream).
pub const SUBSCRIBE_TO_TASK: &str = "SubscribeToTask";
/// `CreateTaskPushNotificationConfig`.
pub const CREATE_TASK_PUSH_NOTIFICATION_CONFIG: &str = "CreateTaskPushNotificationConfig";
/// `GetTaskPushNotificationConfig`.
pub const GET_TASK_PUSH_NOTIFICATION_CONFIG: &str = "GetTaskPushNotificationConfig";
/// `ListTaskPushNotificationConfigs`.
pub const LIST_TASK_PUSH_NOTIFICATION_CONFIGS: &str = "ListTaskPushNotificationConfigs";
/// `DeleteTaskPushNotificationConfig`.
pub const DELETE_TASK_PUSH_NOTIFICATION_CONFIG: &str = "DeleteTaskPushNotificationConfig";
/// `GetExtendedAgentCard`.
pub const GET_EXTENDED_AGENT_CARD: &str = "GetExtendedAgentCard";

/// Every v1.0 method name, in the order of [`Method::ALL`](super::Method::ALL).
pub const ALL: [&str; 11] = [
    SEND_MESSAGE,
    SEND_STREAMING_MESSAGE,
    GET_TASK,
    LIST_TASKS,
    CANCEL_TASK,
    SUBSCRIBE_TO_TASK,
    CREATE_TASK_PUSH_NOTIFICATION_CONFIG,
    GET_TASK_PUSH_NOTIFICATION_CONFIG,
    LIST_TASK_PUSH_NOTIFICATION_CONFIGS,
    DELETE_TASK_PUSH_NOTIFICATION_CONFIG,
    GET_EXTENDED_AGENT_CARD,
];
