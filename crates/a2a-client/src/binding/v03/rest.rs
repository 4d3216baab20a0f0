//! The REST binding of A2A v0.3, as the official Python SDK 0.3.x serves and calls it:
//! `POST /v1/message:send`, `POST /v1/message:stream`, `GET /v1/tasks/{id}`,
//! `POST /v1/tasks/{id}:cancel`, `GET /v1/tasks/{id}:subscribe`,
//! `POST|GET /v1/tasks/{id}/pushNotificationConfigs`,
//! `GET|DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}` and `GET /v1/card`, under
//! the interface URL; bodies and SSE events in protobuf JSON; errors as `{"message": …}`
//! with an HTTP status.

use a2a_types::jsonrpc::Method as V1Method;
use a2a_types::v03::{self, Method, translate};
use a2a_types::{A2aError, ErrorKind, StreamResponse};
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::mapping::{answer_error, method, request_error};
use super::proto;
use crate::ClientError;
use crate::binding::rest::segment;
use crate::binding::{APPLICATION_JSON, EVENT_STREAM, Prepared, decode_value};
use crate::sse::SseEvent;

/// The request of the v1.0 operation `v1` with v1.0 `params`, under `base`.
pub(crate) fn prepare(
    base: &url::Url,
    v1: V1Method,
    params: Value,
) -> Result<Prepared, ClientError> {
    let method = method(v1)?;
    let params =
        translate::params_from_v1(method, params).map_err(|error| request_error(method, &error))?;
    let text = |name: &str| {
        params
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let task = |name: &str| segment(&text(name));
    let mut query: Vec<(&str, String)> = Vec::new();
    let (verb, path, body) = match method {
        Method::MessageSend => (
            http::Method::POST,
            "message:send".to_owned(),
            Some(proto::send_request_to_proto(&params)),
        ),
        Method::MessageStream => (
            http::Method::POST,
            "message:stream".to_owned(),
            Some(proto::send_request_to_proto(&params)),
        ),
        Method::TasksGet => {
            if let Some(length) = params.get("historyLength").and_then(Value::as_i64) {
                query.push(("historyLength", length.to_string()));
            }
            (http::Method::GET, format!("tasks/{}", task("id")), None)
        }
        Method::TasksCancel => {
            let mut body = Map::new();
            body.insert("name".into(), Value::from(format!("tasks/{}", text("id"))));
            (
                http::Method::POST,
                format!("tasks/{}:cancel", task("id")),
                Some(Value::Object(body)),
            )
        }
        // GET, as the SDK routes it.
        Method::TasksResubscribe => (
            http::Method::GET,
            format!("tasks/{}:subscribe", task("id")),
            None,
        ),
        Method::PushConfigSet => (
            http::Method::POST,
            format!("tasks/{}/pushNotificationConfigs", task("taskId")),
            Some(proto::create_push_config_to_proto(&text("taskId"), &params)),
        ),
        Method::PushConfigGet => (
            http::Method::GET,
            format!(
                "tasks/{}/pushNotificationConfigs/{}",
                task("id"),
                task("pushNotificationConfigId")
            ),
            None,
        ),
        Method::PushConfigList => (
            http::Method::GET,
            format!("tasks/{}/pushNotificationConfigs", task("id")),
            None,
        ),
        Method::PushConfigDelete => (
            http::Method::DELETE,
            format!(
                "tasks/{}/pushNotificationConfigs/{}",
                task("id"),
                task("pushNotificationConfigId")
            ),
            None,
        ),
        Method::GetAuthenticatedExtendedCard => (http::Method::GET, "card".to_owned(), None),
    };
    let mut url = base.clone();
    let full_path = format!("{}/v1/{path}", base.path().trim_end_matches('/'));
    url.set_path(&full_path);
    url.set_query(None);
    if !query.is_empty() {
        let mut pairs = url.query_pairs_mut();
        for (name, value) in &query {
            pairs.append_pair(name, value);
        }
    }
    let body = body
        .map(|body| {
            serde_json::to_vec(&body).map(Bytes::from).map_err(|error| {
                ClientError::config(format!(
                    "the {} request cannot be encoded: {error}",
                    method.as_str()
                ))
            })
        })
        .transpose()?;
    Ok(Prepared {
        method: verb,
        url,
        content_type: body.as_ref().map(|_| APPLICATION_JSON),
        body,
        accept: if v1.is_streaming() {
            EVENT_STREAM
        } else {
            APPLICATION_JSON
        },
    })
}

/// A successful answer's body as the v1.0 result; an empty body reads as `null` (a DELETE).
pub(crate) fn decode<T: DeserializeOwned>(v1: V1Method, body: &[u8]) -> Result<T, ClientError> {
    let method = method(v1)?;
    let value: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        serde_json::from_slice(body).map_err(|_| {
            ClientError::invalid_response(format!("the {} answer is not JSON", method.as_str()))
        })?
    };
    let invalid = || {
        ClientError::invalid_response(format!(
            "the {} answer is not a v0.3 REST answer",
            method.as_str()
        ))
    };
    let v03 = match method {
        Method::MessageSend | Method::MessageStream | Method::TasksResubscribe => {
            proto::response_from_proto(&value).ok_or_else(invalid)?
        }
        Method::TasksGet | Method::TasksCancel => proto::task_from_proto(&value),
        Method::PushConfigSet | Method::PushConfigGet => proto::push_config_from_proto(&value, ""),
        Method::PushConfigList => {
            let configs = value
                .get("configs")
                .or(Some(&value))
                .and_then(Value::as_array)
                .map(|configs| {
                    configs
                        .iter()
                        .map(|config| proto::push_config_from_proto(config, ""))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            Value::Array(configs)
        }
        Method::PushConfigDelete => Value::Null,
        // The SDK answers with the card as JSON, not protobuf JSON.
        Method::GetAuthenticatedExtendedCard => value,
    };
    let result =
        translate::result_to_v1(method, v03).map_err(|error| answer_error(method, &error))?;
    decode_value(&format!("{} answer", method.as_str()), result)
}

/// One SSE event: a protobuf `StreamResponse`, or an error body that ends the stream.
pub(crate) fn decode_event(event: &SseEvent) -> Result<StreamResponse, ClientError> {
    let value: Value = serde_json::from_str(&event.data)
        .map_err(|_| ClientError::invalid_response("a stream event is not JSON"))?;
    let v03 = match proto::response_from_proto(&value) {
        Some(v03) if event.event.as_deref() != Some("error") => v03,
        Some(_) | None => {
            let status = value
                .get("status")
                .or_else(|| value.pointer("/error/code"))
                .and_then(Value::as_u64)
                .and_then(|status| u16::try_from(status).ok())
                .unwrap_or(500);
            return Err(error_from_answer(status, None, event.data.as_bytes()));
        }
    };
    let result = translate::stream_event_to_v1(v03)
        .map_err(|error| answer_error(Method::MessageStream, &error))?;
    decode_value("stream event", result)
}

/// The error of a non-2xx answer: a v0.3 JSON-RPC error object by its code; the Python
/// SDK's `{"message": …}` by its status (404 TaskNotFound, 409 TaskNotCancelable, 501
/// UnsupportedOperation or PushNotificationNotSupported, …); any other body as on v1.0.
pub(crate) fn error_from_answer(status: u16, location: Option<&str>, body: &[u8]) -> ClientError {
    let value = serde_json::from_slice::<Value>(body).ok();
    // A v0.3 JSON-RPC error object as the body (`{"code", "message", "data"}`).
    if let Some(error) = value
        .as_ref()
        .filter(|value| value.get("code").is_some_and(Value::is_i64))
        .and_then(|value| serde_json::from_value::<v03::JsonRpcError>(value.clone()).ok())
    {
        return ClientError::Agent(error.to_a2a());
    }
    let message = value.and_then(|value| {
        let object = value.as_object()?;
        let only_message = object.len() == 1;
        object
            .get("message")
            .and_then(Value::as_str)
            .filter(|_| only_message)
            .map(str::to_owned)
    });
    let Some(message) = message else {
        return crate::binding::error_from_answer(status, location, body);
    };
    let kind = match status {
        400 => ErrorKind::InvalidRequest,
        404 => ErrorKind::TaskNotFound,
        409 => ErrorKind::TaskNotCancelable,
        415 => ErrorKind::ContentTypeNotSupported,
        422 => ErrorKind::InvalidParams,
        501 if message.to_ascii_lowercase().contains("push") => {
            ErrorKind::PushNotificationNotSupported
        }
        501 => ErrorKind::UnsupportedOperation,
        502 => ErrorKind::InvalidAgentResponse,
        401 => ErrorKind::Authentication,
        403 => ErrorKind::Authorization,
        _ => return crate::binding::error_from_answer(status, location, body),
    };
    ClientError::Agent(A2aError::new(kind, message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::{GetTaskPushNotificationConfigRequest, GetTaskRequest, Task, TaskState};

    fn base() -> url::Url {
        url::Url::parse("http://agent.example/rest/").unwrap()
    }

    #[test]
    fn paths_follow_the_sdk_routes() {
        let get = GetTaskRequest {
            tenant: String::new(),
            id: "a/b".into(),
            history_length: Some(2),
        };
        let prepared = prepare(
            &base(),
            V1Method::GetTask,
            serde_json::to_value(&get).unwrap(),
        )
        .unwrap();
        assert_eq!(prepared.method, http::Method::GET);
        assert_eq!(
            prepared.url.as_str(),
            "http://agent.example/rest/v1/tasks/a%2Fb?historyLength=2"
        );
        let push = GetTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: "t".into(),
            id: "p".into(),
        };
        let prepared = prepare(
            &base(),
            V1Method::GetTaskPushNotificationConfig,
            serde_json::to_value(&push).unwrap(),
        )
        .unwrap();
        assert_eq!(
            prepared.url.as_str(),
            "http://agent.example/rest/v1/tasks/t/pushNotificationConfigs/p"
        );
        let cancel = prepare(
            &base(),
            V1Method::CancelTask,
            serde_json::json!({"id": "t"}),
        )
        .unwrap();
        assert_eq!(cancel.url.path(), "/rest/v1/tasks/t:cancel");
        assert_eq!(cancel.body.as_deref(), Some(&br#"{"name":"tasks/t"}"#[..]));
    }

    #[test]
    fn answers_and_errors_read_as_v1() {
        let body = br#"{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}"#;
        let task: Task = decode(V1Method::GetTask, body).unwrap();
        assert_eq!(task.status.state, TaskState::Working);
        let error = error_from_answer(404, None, br#"{"message":"Task not found"}"#);
        assert_eq!(error.kind(), Some(ErrorKind::TaskNotFound));
        let error = error_from_answer(
            501,
            None,
            br#"{"message":"Push notifications are not supported by the agent"}"#,
        );
        assert_eq!(error.kind(), Some(ErrorKind::PushNotificationNotSupported));
        let error = error_from_answer(
            400,
            None,
            br#"{"code":-32002,"message":"Task cannot be canceled"}"#,
        );
        assert_eq!(error.kind(), Some(ErrorKind::TaskNotCancelable));
        let _: a2a_types::Empty = decode(V1Method::DeleteTaskPushNotificationConfig, b"").unwrap();
    }
}
