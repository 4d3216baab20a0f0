//! What each call is: its A2A method, whether it may be retried, and its parameters.

use a2a_types::ProtocolBinding;
use a2a_types::jsonrpc::Method;
use serde_json::Value;

use super::{Binding, Call};
use crate::ClientError;

impl Binding {
    /// The binding for a card's binding name; `None` for custom bindings.
    pub(crate) fn from_protocol(binding: &ProtocolBinding) -> Option<Self> {
        match binding {
            ProtocolBinding::JsonRpc => Some(Self::JsonRpc),
            ProtocolBinding::HttpJson => Some(Self::HttpJson),
            ProtocolBinding::Grpc => Some(Self::Grpc),
            ProtocolBinding::Other(_) => None,
        }
    }

    pub(crate) fn protocol(self) -> ProtocolBinding {
        match self {
            Self::JsonRpc => ProtocolBinding::JsonRpc,
            Self::HttpJson => ProtocolBinding::HttpJson,
            Self::Grpc => ProtocolBinding::Grpc,
        }
    }
}

impl Call {
    pub(crate) fn method(&self) -> Method {
        match self {
            Self::SendMessage(_) => Method::SendMessage,
            Self::SendStreamingMessage(_) => Method::SendStreamingMessage,
            Self::GetTask(_) => Method::GetTask,
            Self::ListTasks(_) => Method::ListTasks,
            Self::CancelTask(_) => Method::CancelTask,
            Self::SubscribeToTask(_) => Method::SubscribeToTask,
            Self::CreatePushConfig(_) => Method::CreateTaskPushNotificationConfig,
            Self::GetPushConfig(_) => Method::GetTaskPushNotificationConfig,
            Self::ListPushConfigs(_) => Method::ListTaskPushNotificationConfigs,
            Self::DeletePushConfig(_) => Method::DeleteTaskPushNotificationConfig,
            Self::GetExtendedAgentCard(_) => Method::GetExtendedAgentCard,
        }
    }

    /// Whether repeating the call cannot change the outcome (retries are safe). SendMessage
    /// is: a retry sends the same request, so the same `messageId`, and an agent that
    /// de-duplicates sends by it (as `a2a serve` does) answers with the task the first
    /// attempt made instead of starting another turn.
    pub(crate) fn is_idempotent(&self) -> bool {
        match self.method() {
            Method::SendMessage
            | Method::GetTask
            | Method::ListTasks
            | Method::GetTaskPushNotificationConfig
            | Method::ListTaskPushNotificationConfigs
            | Method::DeleteTaskPushNotificationConfig
            | Method::GetExtendedAgentCard => true,
            Method::SendStreamingMessage
            | Method::CancelTask
            | Method::SubscribeToTask
            | Method::CreateTaskPushNotificationConfig => false,
        }
    }

    /// The call with `tenant` in its request when the request names none.
    pub(crate) fn with_tenant(mut self, tenant: &str) -> Self {
        let field = match &mut self {
            Self::SendMessage(request) | Self::SendStreamingMessage(request) => &mut request.tenant,
            Self::GetTask(request) => &mut request.tenant,
            Self::ListTasks(request) => &mut request.tenant,
            Self::CancelTask(request) => &mut request.tenant,
            Self::SubscribeToTask(request) => &mut request.tenant,
            Self::CreatePushConfig(request) => &mut request.tenant,
            Self::GetPushConfig(request) => &mut request.tenant,
            Self::ListPushConfigs(request) => &mut request.tenant,
            Self::DeletePushConfig(request) => &mut request.tenant,
            Self::GetExtendedAgentCard(request) => &mut request.tenant,
        };
        if field.is_empty() {
            tenant.clone_into(field);
        }
        self
    }

    /// The request as ProtoJSON, with the endpoint's tenant when the request names none.
    pub(super) fn params(&self, tenant: &str) -> Result<Value, ClientError> {
        let value = match self {
            Self::SendMessage(request) | Self::SendStreamingMessage(request) => {
                serde_json::to_value(request)
            }
            Self::GetTask(request) => serde_json::to_value(request),
            Self::ListTasks(request) => serde_json::to_value(request),
            Self::CancelTask(request) => serde_json::to_value(request),
            Self::SubscribeToTask(request) => serde_json::to_value(request),
            Self::CreatePushConfig(request) => serde_json::to_value(request),
            Self::GetPushConfig(request) => serde_json::to_value(request),
            Self::ListPushConfigs(request) => serde_json::to_value(request),
            Self::DeletePushConfig(request) => serde_json::to_value(request),
            Self::GetExtendedAgentCard(request) => serde_json::to_value(request),
        };
        let mut value = value.map_err(|error| {
            ClientError::config(format!(
                "the {} request cannot be encoded: {error}",
                self.method()
            ))
        })?;
        if let Value::Object(object) = &mut value {
            let unset = object
                .get("tenant")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty);
            if unset && !tenant.is_empty() {
                object.insert("tenant".into(), Value::String(tenant.to_owned()));
            }
        }
        Ok(value)
    }
}
