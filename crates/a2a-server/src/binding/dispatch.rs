//! Dispatch by operation name on JSON values: what the JSON-RPC binding, a gateway or an
//! in-process caller needs when it holds a method name and raw params.

use a2a_types::A2aError;
use a2a_types::jsonrpc::Method;
use serde::Serialize;
use serde_json::Value;

use super::decode::decode;
use crate::handler::{CallContext, RequestHandler};

fn encode<T: Serialize>(value: &T) -> Result<Value, A2aError> {
    serde_json::to_value(value).map_err(|error| {
        tracing::error!(error = %error, "could not encode a response");
        A2aError::internal()
    })
}

impl RequestHandler {
    /// Under `lenient_message_id`, gives a message without `messageId` a fresh one
    /// before decoding, where the proto would otherwise refuse it.
    pub(crate) fn lenient_message_id(&self, mut params: Value) -> Value {
        if self.config().lenient_message_id
            && let Some(message) = params.get_mut("message").and_then(Value::as_object_mut)
            && message
                .get("messageId")
                .is_none_or(|id| id.as_str().is_none_or(str::is_empty))
        {
            message.insert(
                "messageId".to_owned(),
                Value::String(a2a_types::MessageId::generate().into_string()),
            );
        }
        params
    }

    /// Runs the unary operation `method` with JSON `params` and returns its JSON result.
    /// The streaming operations answer UnsupportedOperation here; they have their own entry
    /// points.
    ///
    /// # Errors
    /// InvalidParams when `params` do not decode; otherwise the operation's own errors.
    pub async fn dispatch(
        &self,
        call: &CallContext,
        method: Method,
        params: Value,
    ) -> Result<Value, A2aError> {
        match method {
            Method::SendMessage => {
                let params = self.lenient_message_id(params);
                encode(&self.send_message(call, decode(params)?).await?)
            }
            Method::GetTask => encode(&self.get_task(call, decode(params)?).await?),
            Method::ListTasks => encode(&self.list_tasks(call, decode(params)?).await?),
            Method::CancelTask => encode(&self.cancel_task(call, decode(params)?).await?),
            Method::CreateTaskPushNotificationConfig => encode(
                &self
                    .create_task_push_notification_config(call, decode(params)?)
                    .await?,
            ),
            Method::GetTaskPushNotificationConfig => encode(
                &self
                    .get_task_push_notification_config(call, decode(params)?)
                    .await?,
            ),
            Method::ListTaskPushNotificationConfigs => encode(
                &self
                    .list_task_push_notification_configs(call, decode(params)?)
                    .await?,
            ),
            Method::DeleteTaskPushNotificationConfig => encode(
                &self
                    .delete_task_push_notification_config(call, decode(params)?)
                    .await?,
            ),
            Method::GetExtendedAgentCard => {
                encode(&self.get_extended_agent_card(call, decode(params)?).await?)
            }
            Method::SendStreamingMessage | Method::SubscribeToTask => Err(
                A2aError::unsupported_operation("streaming is not available on this agent"),
            ),
        }
    }
}
