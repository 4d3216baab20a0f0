//! [`Operation`]: one A2A call as the gateway sends it to a gRPC agent, read from a
//! JSON-RPC method and its `params` or from an HTTP+JSON route's path, query and body.

use a2a_types::jsonrpc::Method;
use a2a_types::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTasksRequest, SendMessageRequest, SubscribeToTaskRequest, TaskPushNotificationConfig,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::super::error::GatewayError;

/// An A2A v1.0 call with its request, one variant per rpc of `A2AService`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Operation {
    SendMessage(SendMessageRequest),
    SendStreamingMessage(SendMessageRequest),
    GetTask(GetTaskRequest),
    ListTasks(ListTasksRequest),
    CancelTask(CancelTaskRequest),
    SubscribeToTask(SubscribeToTaskRequest),
    CreateTaskPushNotificationConfig(TaskPushNotificationConfig),
    GetTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest),
    ListTaskPushNotificationConfigs(ListTaskPushNotificationConfigsRequest),
    DeleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest),
    GetExtendedAgentCard(GetExtendedAgentCardRequest),
}

impl Operation {
    /// The call `method` makes with `params` (ProtoJSON of the request message; absent
    /// reads as `{}`).
    ///
    /// # Errors
    /// [`GatewayError::InvalidParams`] when `params` is not the method's request.
    pub(crate) fn from_params(
        method: Method,
        params: Option<&Value>,
    ) -> Result<Self, GatewayError> {
        let params = params.cloned().unwrap_or_else(|| Value::Object(Map::new()));
        Ok(match method {
            Method::SendMessage => Self::SendMessage(decode(params)?),
            Method::SendStreamingMessage => Self::SendStreamingMessage(decode(params)?),
            Method::GetTask => Self::GetTask(decode(params)?),
            Method::ListTasks => Self::ListTasks(decode(params)?),
            Method::CancelTask => Self::CancelTask(decode(params)?),
            Method::SubscribeToTask => Self::SubscribeToTask(decode(params)?),
            Method::CreateTaskPushNotificationConfig => {
                Self::CreateTaskPushNotificationConfig(decode(params)?)
            }
            Method::GetTaskPushNotificationConfig => {
                Self::GetTaskPushNotificationConfig(decode(params)?)
            }
            Method::ListTaskPushNotificationConfigs => {
                Self::ListTaskPushNotificationConfigs(decode(params)?)
            }
            Method::DeleteTaskPushNotificationConfig => {
                Self::DeleteTaskPushNotificationConfig(decode(params)?)
            }
            Method::GetExtendedAgentCard => Self::GetExtendedAgentCard(decode(params)?),
        })
    }

    /// Whether the agent answers with a stream of `StreamResponse`s.
    pub(crate) const fn is_streaming(&self) -> bool {
        self.method().is_streaming()
    }

    /// The A2A method of the call.
    pub(crate) const fn method(&self) -> Method {
        match self {
            Self::SendMessage(_) => Method::SendMessage,
            Self::SendStreamingMessage(_) => Method::SendStreamingMessage,
            Self::GetTask(_) => Method::GetTask,
            Self::ListTasks(_) => Method::ListTasks,
            Self::CancelTask(_) => Method::CancelTask,
            Self::SubscribeToTask(_) => Method::SubscribeToTask,
            Self::CreateTaskPushNotificationConfig(_) => Method::CreateTaskPushNotificationConfig,
            Self::GetTaskPushNotificationConfig(_) => Method::GetTaskPushNotificationConfig,
            Self::ListTaskPushNotificationConfigs(_) => Method::ListTaskPushNotificationConfigs,
            Self::DeleteTaskPushNotificationConfig(_) => Method::DeleteTaskPushNotificationConfig,
            Self::GetExtendedAgentCard(_) => Method::GetExtendedAgentCard,
        }
    }
}

/// `value` read as `T`; the error names where it went wrong.
pub(crate) fn decode<T: DeserializeOwned>(value: Value) -> Result<T, GatewayError> {
    serde_json::from_value(value).map_err(|error| GatewayError::InvalidParams {
        reason: format!("invalid params: {error}"),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn params_become_the_methods_request() {
        let send =
            json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}});
        let operation = Operation::from_params(Method::SendStreamingMessage, Some(&send)).unwrap();
        assert!(operation.is_streaming());
        assert_eq!(operation.method(), Method::SendStreamingMessage);
        let get = Operation::from_params(Method::GetTask, Some(&json!({"id": "t-1"}))).unwrap();
        let Operation::GetTask(request) = get else {
            panic!("{get:?}");
        };
        assert_eq!(request.id.as_str(), "t-1");
        assert!(
            !Operation::from_params(Method::GetExtendedAgentCard, None)
                .unwrap()
                .is_streaming()
        );
    }

    #[test]
    fn params_that_are_not_the_request_are_invalid() {
        let error = Operation::from_params(Method::GetTask, Some(&json!({"id": 7}))).unwrap_err();
        assert!(
            matches!(error, GatewayError::InvalidParams { .. }),
            "{error:?}"
        );
        assert_eq!(error.code(), -32602);
    }
}
