//! Dispatch by operation name: what the JSON-RPC binding, a gateway or an in-process caller
//! needs when it holds a method name and params, as received text or as a JSON value.

use a2a_types::jsonrpc::Method;
use a2a_types::{
    A2aError, AgentCard, Empty, ListTaskPushNotificationConfigsResponse, ListTasksResponse,
    SendMessageRequest, SendMessageResponse, Task, TaskId, TaskPushNotificationConfig,
};
use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::decode::decode;
use crate::handler::{CallContext, RequestHandler};

/// The params of a request.
#[derive(Debug)]
pub(crate) enum Params<'a> {
    /// A JSON object as received, not parsed yet: decoded straight into the request type.
    Text(&'a str),
    /// An already parsed value.
    Tree(Value),
}

impl Params<'_> {
    /// The `tenant` member of an object, empty when there is none (or it is not a string).
    pub(crate) fn tenant(&self) -> String {
        /// The one member looked for; the others are skipped without being built.
        #[derive(serde::Deserialize)]
        struct TenantOnly<'a> {
            #[serde(borrow, default)]
            tenant: Option<std::borrow::Cow<'a, str>>,
        }
        match self {
            Self::Text(text) => serde_json::from_str::<TenantOnly<'_>>(text)
                .ok()
                .and_then(|only| only.tenant)
                .map(std::borrow::Cow::into_owned)
                .unwrap_or_default(),
            Self::Tree(value) => value
                .get("tenant")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        }
    }

    /// Decodes the params as `T`. Text that is a valid `T` is read once, with no JSON tree;
    /// anything else goes through the tree, whose errors name the member at fault, so both
    /// forms answer a bad request the same way.
    ///
    /// # Errors
    /// InvalidParams naming the member at fault.
    pub(crate) fn decode<T: DeserializeOwned>(self) -> Result<T, A2aError> {
        match self {
            Self::Text(text) => match serde_json::from_str(text) {
                Ok(decoded) => Ok(decoded),
                Err(_) => decode(tree(text)?),
            },
            Self::Tree(value) => decode(value),
        }
    }

    /// [`Params::decode`] of a SendMessage request, with the server's `messageId` leniency.
    ///
    /// # Errors
    /// As [`Params::decode`].
    pub(crate) fn decode_message(
        self,
        handler: &RequestHandler,
    ) -> Result<SendMessageRequest, A2aError> {
        let value = match self {
            Self::Text(text) => match serde_json::from_str::<SendMessageRequest>(text) {
                Ok(mut request) => {
                    if handler.config().lenient_message_id && request.message.message_id.is_empty()
                    {
                        request.message.message_id = a2a_types::MessageId::generate();
                    }
                    return Ok(request);
                }
                Err(_) => tree(text)?,
            },
            Self::Tree(value) => value,
        };
        decode(handler.lenient_message_id(value))
    }
}

/// The JSON tree of params text (which the binding already found to be JSON).
fn tree(text: &str) -> Result<Value, A2aError> {
    serde_json::from_str(text).map_err(|_| A2aError::parse_error())
}

/// The result of a unary operation, encoded as its own type.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// SendMessage.
    Sent(SendMessageResponse),
    /// GetTask, CancelTask.
    Task(Task),
    /// ListTasks.
    Tasks(ListTasksResponse),
    /// Create and Get of a push config.
    PushConfig(TaskPushNotificationConfig),
    /// ListTaskPushNotificationConfigs.
    PushConfigs(ListTaskPushNotificationConfigsResponse),
    /// DeleteTaskPushNotificationConfig.
    Empty(Empty),
    /// GetExtendedAgentCard.
    Card(Box<AgentCard>),
}

impl Outcome {
    /// The task the result is about, when it names one.
    fn task_id(&self) -> Option<&TaskId> {
        match self {
            Self::Sent(SendMessageResponse::Task(task)) | Self::Task(task) => Some(&task.id),
            Self::Sent(SendMessageResponse::Message(message)) => message.task_id.as_ref(),
            Self::PushConfig(config) => config.task_id.as_ref(),
            Self::Tasks(_) | Self::PushConfigs(_) | Self::Empty(_) | Self::Card(_) => None,
        }
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Sent(response) => response.serialize(serializer),
            Self::Task(task) => task.serialize(serializer),
            Self::Tasks(page) => page.serialize(serializer),
            Self::PushConfig(config) => config.serialize(serializer),
            Self::PushConfigs(configs) => configs.serialize(serializer),
            Self::Empty(empty) => empty.serialize(serializer),
            Self::Card(card) => card.serialize(serializer),
        }
    }
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
        let outcome = self.run_unary(call, method, Params::Tree(params)).await?;
        serde_json::to_value(&outcome).map_err(|error| {
            tracing::error!(error = %error, "could not encode a response");
            A2aError::internal()
        })
    }

    /// Runs the unary operation `method` with `params`; see [`RequestHandler::dispatch`].
    pub(crate) async fn run_unary(
        &self,
        call: &CallContext,
        method: Method,
        params: Params<'_>,
    ) -> Result<Outcome, A2aError> {
        crate::trace::note_call(call);
        let outcome = self.run_unary_inner(call, method, params).await?;
        if let Some(task_id) = outcome.task_id() {
            crate::access::note_task(task_id);
        }
        Ok(outcome)
    }

    async fn run_unary_inner(
        &self,
        call: &CallContext,
        method: Method,
        params: Params<'_>,
    ) -> Result<Outcome, A2aError> {
        Ok(match method {
            // Boxed: its future is the largest of them by far (some 4 KiB), and every
            // future above this one would carry it, copied once per layer per request.
            Method::SendMessage => Outcome::Sent(
                Box::pin(self.send_message(call, params.decode_message(self)?)).await?,
            ),
            Method::GetTask => Outcome::Task(self.get_task(call, params.decode()?).await?),
            Method::ListTasks => Outcome::Tasks(self.list_tasks(call, params.decode()?).await?),
            Method::CancelTask => Outcome::Task(self.cancel_task(call, params.decode()?).await?),
            Method::CreateTaskPushNotificationConfig => Outcome::PushConfig(
                self.create_task_push_notification_config(call, params.decode()?)
                    .await?,
            ),
            Method::GetTaskPushNotificationConfig => Outcome::PushConfig(
                self.get_task_push_notification_config(call, params.decode()?)
                    .await?,
            ),
            Method::ListTaskPushNotificationConfigs => Outcome::PushConfigs(
                self.list_task_push_notification_configs(call, params.decode()?)
                    .await?,
            ),
            Method::DeleteTaskPushNotificationConfig => Outcome::Empty(
                self.delete_task_push_notification_config(call, params.decode()?)
                    .await?,
            ),
            Method::GetExtendedAgentCard => Outcome::Card(Box::new(
                self.get_extended_agent_card(call, params.decode()?).await?,
            )),
            Method::SendStreamingMessage | Method::SubscribeToTask => {
                return Err(A2aError::unsupported_operation(
                    "streaming is not available on this agent",
                ));
            }
        })
    }
}
