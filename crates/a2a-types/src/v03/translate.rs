//! JSON-to-JSON translation of JSON-RPC params and results between v0.3 and v1.0, per
//! method: what a server that answers v0.3 with a v1.0 dispatcher, a client that calls a
//! v0.3 agent, or a gateway between the two needs. Each function decodes the one version's
//! type, converts it, and encodes the other's.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{
    AgentCard, DeleteTaskPushNotificationConfigParams, GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams, MessageSendParams, Method, SendMessageResult,
    StreamEvent, Task, TaskIdParams, TaskPushNotificationConfig, TaskQueryParams,
    TaskStatusUpdateEvent, list_result_to_v1,
};
use crate::{A2aError, json};

/// Who is at fault when a value does not decode or convert.
#[derive(Clone, Copy)]
enum Fault {
    /// The caller's request: invalid params.
    Request,
    /// Our own answer: internal.
    Ours,
    /// The peer's answer: invalid agent response.
    Peer,
}

impl Fault {
    fn error(self, field: &str, problem: &str) -> A2aError {
        match self {
            Self::Request if field.is_empty() => A2aError::invalid_params(problem),
            Self::Request => A2aError::invalid_field(field, problem),
            Self::Ours => A2aError::internal(),
            Self::Peer => A2aError::invalid_agent_response(if field.is_empty() {
                problem.to_owned()
            } else {
                format!("{field}: {problem}")
            }),
        }
    }
}

fn decode<T: DeserializeOwned>(value: Value, fault: Fault) -> Result<T, A2aError> {
    json::from_value(value).map_err(|err| fault.error(err.path(), err.message()))
}

fn encode<T: Serialize>(value: &T) -> Result<Value, A2aError> {
    serde_json::to_value(value).map_err(|_| A2aError::internal())
}

/// Decodes `value` as `From`, converts it with `TryFrom` and encodes the result.
fn convert<From, To>(value: Value, fault: Fault) -> Result<Value, A2aError>
where
    From: DeserializeOwned,
    To: TryFrom<From> + Serialize,
    <To as TryFrom<From>>::Error: Into<super::ConversionError>,
{
    let decoded: From = decode(value, fault)?;
    let converted = To::try_from(decoded).map_err(|err| {
        let err: super::ConversionError = err.into();
        fault.error(err.field(), err.problem())
    })?;
    encode(&converted)
}

/// Params that may be absent (`agent/getAuthenticatedExtendedCard`) read as `{}`.
fn object_or_empty(params: Value) -> Value {
    match params {
        Value::Null => Value::Object(crate::Metadata::new()),
        other => other,
    }
}

/// Fills in what hand-written v0.3 messages leave out (`{"parts": [{"text": "Hello?"}]}`,
/// as in the gateway examples many v0.3 users copy) and v1.0 requires: no `messageId` gets
/// a fresh one, no `role` (or `ROLE_UNSPECIFIED`) is the user's, since only a client sends
/// a request. `request` is a v1.0 `SendMessageRequest` tree from [`params_to_v1`]; anything
/// else in it is left for the v1.0 decoder to judge.
pub fn complete_message(request: &mut Value) {
    let Some(message) = request.get_mut("message").and_then(Value::as_object_mut) else {
        return;
    };
    let unset = |value: Option<&Value>, default: &str| {
        value.is_none_or(|value| {
            value
                .as_str()
                .is_some_and(|text| text.is_empty() || text == default)
        })
    };
    if unset(message.get("messageId"), "") {
        message.insert(
            "messageId".to_owned(),
            Value::String(crate::MessageId::generate().into_string()),
        );
    }
    if unset(message.get("role"), "ROLE_UNSPECIFIED") {
        message.insert("role".to_owned(), Value::String("ROLE_USER".to_owned()));
    }
}

/// The v1.0 params for the params of a v0.3 request (server side). Push-config `set`
/// gives the flat config `CreateTaskPushNotificationConfig` takes.
///
/// # Errors
/// Invalid params, naming the member, when `params` is not a valid v0.3 request or has no
/// v1.0 form (such as `…/get` without `pushNotificationConfigId`).
pub fn params_to_v1(method: Method, params: Value) -> Result<Value, A2aError> {
    let fault = Fault::Request;
    match method {
        Method::MessageSend | Method::MessageStream => {
            convert::<MessageSendParams, crate::SendMessageRequest>(params, fault)
        }
        Method::TasksGet => convert::<TaskQueryParams, crate::GetTaskRequest>(params, fault),
        Method::TasksCancel => convert::<TaskIdParams, crate::CancelTaskRequest>(params, fault),
        Method::TasksResubscribe => {
            convert::<TaskIdParams, crate::SubscribeToTaskRequest>(params, fault)
        }
        Method::PushConfigSet => {
            convert::<TaskPushNotificationConfig, crate::TaskPushNotificationConfig>(params, fault)
        }
        Method::PushConfigGet => convert::<
            GetTaskPushNotificationConfigParams,
            crate::GetTaskPushNotificationConfigRequest,
        >(params, fault),
        Method::PushConfigList => convert::<
            ListTaskPushNotificationConfigParams,
            crate::ListTaskPushNotificationConfigsRequest,
        >(params, fault),
        Method::PushConfigDelete => convert::<
            DeleteTaskPushNotificationConfigParams,
            crate::DeleteTaskPushNotificationConfigRequest,
        >(params, fault),
        Method::GetAuthenticatedExtendedCard => {
            let _: crate::GetExtendedAgentCardRequest = decode(object_or_empty(params), fault)?;
            Ok(Value::Object(crate::Metadata::new()))
        }
    }
}

/// The v0.3 params for the params of the v1.0 request `method` stands for (client side).
///
/// # Errors
/// Invalid params when `params` is not a valid v1.0 request.
pub fn params_from_v1(method: Method, params: Value) -> Result<Value, A2aError> {
    let fault = Fault::Request;
    match method {
        Method::MessageSend | Method::MessageStream => {
            convert::<crate::SendMessageRequest, MessageSendParams>(params, fault)
        }
        Method::TasksGet => convert::<crate::GetTaskRequest, TaskQueryParams>(params, fault),
        Method::TasksCancel => convert::<crate::CancelTaskRequest, TaskIdParams>(params, fault),
        Method::TasksResubscribe => {
            convert::<crate::SubscribeToTaskRequest, TaskIdParams>(params, fault)
        }
        Method::PushConfigSet => {
            convert::<crate::TaskPushNotificationConfig, TaskPushNotificationConfig>(params, fault)
        }
        Method::PushConfigGet => convert::<
            crate::GetTaskPushNotificationConfigRequest,
            GetTaskPushNotificationConfigParams,
        >(params, fault),
        Method::PushConfigList => convert::<
            crate::ListTaskPushNotificationConfigsRequest,
            ListTaskPushNotificationConfigParams,
        >(params, fault),
        Method::PushConfigDelete => convert::<
            crate::DeleteTaskPushNotificationConfigRequest,
            DeleteTaskPushNotificationConfigParams,
        >(params, fault),
        // v0.3 sends no params; a v1.0 tenant has nowhere to go.
        Method::GetAuthenticatedExtendedCard => Ok(Value::Null),
    }
}

/// The v0.3 result for the v1.0 result of a unary method (server side): a bare task or
/// message, a nested push config, an array of them for `…/list` (one page: follow
/// `nextPageToken` first), `null` for `…/delete`, the v0.3 card. For the two streaming
/// methods, `result` is one stream element: see [`stream_event_from_v1`].
///
/// # Errors
/// Internal when `result` is not the v1.0 result of `method`.
pub fn result_from_v1(method: Method, result: Value) -> Result<Value, A2aError> {
    let fault = Fault::Ours;
    match method {
        Method::MessageSend => {
            let response: crate::SendMessageResponse = decode(result, fault)?;
            encode(&SendMessageResult::from(response))
        }
        Method::MessageStream | Method::TasksResubscribe => stream_event_from_v1(result, None),
        Method::TasksGet | Method::TasksCancel => {
            let task: crate::Task = decode(result, fault)?;
            encode(&Task::from(task))
        }
        Method::PushConfigSet | Method::PushConfigGet => {
            let config: crate::TaskPushNotificationConfig = decode(result, fault)?;
            encode(&TaskPushNotificationConfig::from(config))
        }
        Method::PushConfigList => {
            let page: crate::ListTaskPushNotificationConfigsResponse = decode(result, fault)?;
            encode(&Vec::<TaskPushNotificationConfig>::from(page))
        }
        Method::PushConfigDelete => Ok(Value::Null),
        Method::GetAuthenticatedExtendedCard => {
            let card: crate::AgentCard = decode(result, fault)?;
            encode(&AgentCard::from(&card))
        }
    }
}

/// The v1.0 result for the v0.3 result of a unary method (client side); streaming methods
/// take one stream element ([`stream_event_to_v1`]).
///
/// # Errors
/// Invalid agent response when `result` is not a valid v0.3 result of `method`.
pub fn result_to_v1(method: Method, result: Value) -> Result<Value, A2aError> {
    let fault = Fault::Peer;
    match method {
        Method::MessageSend => {
            convert::<SendMessageResult, crate::SendMessageResponse>(result, fault)
        }
        Method::MessageStream | Method::TasksResubscribe => stream_event_to_v1(result),
        Method::TasksGet | Method::TasksCancel => convert::<Task, crate::Task>(result, fault),
        Method::PushConfigSet | Method::PushConfigGet => {
            convert::<TaskPushNotificationConfig, crate::TaskPushNotificationConfig>(result, fault)
        }
        Method::PushConfigList => {
            let configs: Vec<TaskPushNotificationConfig> = decode(result, fault)?;
            let page = list_result_to_v1(configs)
                .map_err(|err| fault.error(err.field(), err.problem()))?;
            encode(&page)
        }
        // v1.0 answers `{}`; v0.3 peers answer `null` or nothing.
        Method::PushConfigDelete => Ok(Value::Object(crate::Metadata::new())),
        Method::GetAuthenticatedExtendedCard => {
            convert::<AgentCard, crate::AgentCard>(result, fault)
        }
    }
}

/// One v0.3 stream element for a v1.0 `StreamResponse` (server side). `is_final` sets a
/// status update's `final`; `None` derives it from the state (terminal).
///
/// # Errors
/// Internal when `event` is not a v1.0 `StreamResponse`.
pub fn stream_event_from_v1(event: Value, is_final: Option<bool>) -> Result<Value, A2aError> {
    let response: crate::StreamResponse = decode(event, Fault::Ours)?;
    let event = match (response, is_final) {
        (crate::StreamResponse::StatusUpdate(update), Some(is_final)) => {
            StreamEvent::StatusUpdate(TaskStatusUpdateEvent::from_v1(update, is_final))
        }
        (response, _) => StreamEvent::from(response),
    };
    encode(&event)
}

/// One v1.0 `StreamResponse` for a v0.3 stream element (client side).
///
/// # Errors
/// Invalid agent response when `event` is not a valid v0.3 stream element.
pub fn stream_event_to_v1(event: Value) -> Result<Value, A2aError> {
    convert::<StreamEvent, crate::StreamResponse>(event, Fault::Peer)
}

/// A fetched agent card as v1.0 sees it, whichever generation wrote it (client side): a
/// card with `supportedInterfaces` is read as v1.0 (the v0.3 members of a card that serves
/// both stay in its `extra`); a card without them is read as v0.3 and converted, so its
/// `url` and `additionalInterfaces` become v0.3 interfaces.
///
/// # Errors
/// Invalid agent response when the card is valid in neither version.
pub fn card_to_v1(card: Value) -> Result<crate::AgentCard, A2aError> {
    let has_interfaces = card
        .get("supportedInterfaces")
        .and_then(Value::as_array)
        .is_some_and(|interfaces| !interfaces.is_empty());
    if has_interfaces {
        return decode(card, Fault::Peer);
    }
    let legacy: AgentCard = decode(card, Fault::Peer)?;
    crate::AgentCard::try_from(legacy).map_err(|err| Fault::Peer.error(err.field(), err.problem()))
}
