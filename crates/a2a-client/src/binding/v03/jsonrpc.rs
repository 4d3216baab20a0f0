//! JSON-RPC 2.0 in A2A v0.3: the v0.3 method names and params, answers whose `result` is a
//! v0.3 object, and SSE events that are complete v0.3 JSON-RPC responses.

use a2a_types::StreamResponse;
use a2a_types::jsonrpc::Method as V1Method;
use a2a_types::v03::{self, Method, translate};
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::mapping::{answer_error, method, request_error};
use crate::ClientError;
use crate::binding::{APPLICATION_JSON, EVENT_STREAM, Prepared, decode_value};
use crate::sse::SseEvent;

/// The POST of a v0.3 JSON-RPC request for the v1.0 operation `v1` with v1.0 `params`.
pub(crate) fn prepare(
    url: &url::Url,
    v1: V1Method,
    params: Value,
    request_id: u64,
) -> Result<Prepared, ClientError> {
    let method = method(v1)?;
    let params =
        translate::params_from_v1(method, params).map_err(|error| request_error(method, &error))?;
    let mut request = Map::new();
    request.insert("jsonrpc".into(), Value::from("2.0"));
    request.insert("id".into(), Value::from(request_id));
    request.insert("method".into(), Value::from(method.as_str()));
    if !params.is_null() {
        request.insert("params".into(), params);
    }
    let body = serde_json::to_vec(&Value::Object(request)).map_err(|error| {
        ClientError::config(format!(
            "the {} request cannot be encoded: {error}",
            method.as_str()
        ))
    })?;
    Ok(Prepared {
        method: http::Method::POST,
        url: url.clone(),
        body: Some(Bytes::from(body)),
        content_type: Some(APPLICATION_JSON),
        accept: if v1.is_streaming() {
            EVENT_STREAM
        } else {
            APPLICATION_JSON
        },
    })
}

/// The v1.0 result of a v0.3 JSON-RPC answer, or the agent's error.
pub(crate) fn decode<T: DeserializeOwned>(v1: V1Method, body: &[u8]) -> Result<T, ClientError> {
    let method = method(v1)?;
    let value: Value = serde_json::from_slice(body).map_err(|_| {
        ClientError::invalid_response(format!("the {} answer is not JSON", method.as_str()))
    })?;
    let result = result_of(method, value)?;
    let result =
        translate::result_to_v1(method, result).map_err(|error| answer_error(method, &error))?;
    decode_value(&format!("{} result", method.as_str()), result)
}

/// One SSE event: a v0.3 JSON-RPC response whose result is a stream element, or an error
/// that ends the stream.
pub(crate) fn decode_event(event: &SseEvent) -> Result<StreamResponse, ClientError> {
    let value: Value = serde_json::from_str(&event.data)
        .map_err(|_| ClientError::invalid_response("a stream event is not JSON"))?;
    let result = result_of(Method::MessageStream, value)?;
    let result = translate::stream_event_to_v1(result)
        .map_err(|error| answer_error(Method::MessageStream, &error))?;
    decode_value("stream event", result)
}

/// The `result` of a response, or its `error` as the agent's error. The Python SDK's
/// `tasks/pushNotificationConfig/delete` answer has neither (its `result: null` is dropped):
/// that reads as a `null` result.
fn result_of(method: Method, value: Value) -> Result<Value, ClientError> {
    let Value::Object(mut response) = value else {
        return Err(ClientError::invalid_response(format!(
            "the {} answer is not a JSON-RPC response",
            method.as_str()
        )));
    };
    match response.remove("error") {
        Some(Value::Null) | None => {}
        Some(error) => {
            let error: v03::JsonRpcError = serde_json::from_value(error).map_err(|_| {
                ClientError::invalid_response(format!(
                    "the {} answer holds an error that is not a JSON-RPC error",
                    method.as_str()
                ))
            })?;
            return Err(ClientError::Agent(error.to_a2a()));
        }
    }
    match (response.remove("result"), method) {
        (Some(result), _) => Ok(result),
        (None, Method::PushConfigDelete) => Ok(Value::Null),
        (None, _) => Err(ClientError::invalid_response(format!(
            "the {} answer has neither result nor error",
            method.as_str()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::{ErrorKind, Task, TaskState};

    #[test]
    fn requests_use_the_v03_method_and_params() {
        let url = url::Url::parse("http://agent.example/rpc").unwrap();
        let request = a2a_types::GetTaskRequest {
            tenant: "acme".into(),
            id: "t-1".into(),
            history_length: Some(2),
        };
        let params = serde_json::to_value(&request).unwrap();
        let prepared = prepare(&url, V1Method::GetTask, params, 7).unwrap();
        let body: Value = serde_json::from_slice(prepared.body.as_deref().unwrap()).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tasks/get",
                "params": {"id": "t-1", "historyLength": 2}})
        );
        assert!(matches!(
            prepare(&url, V1Method::ListTasks, serde_json::json!({}), 1),
            Err(ClientError::Agent(error)) if error.kind() == ErrorKind::UnsupportedOperation
        ));
    }

    #[test]
    fn answers_and_errors_read_as_v1() {
        let body = br#"{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"input-required"}}}"#;
        let task: Task = decode(V1Method::GetTask, body).unwrap();
        assert_eq!(task.status.state, TaskState::InputRequired);
        let body =
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}"#;
        let error = decode::<Task>(V1Method::GetTask, body).unwrap_err();
        assert_eq!(error.kind(), Some(ErrorKind::TaskNotFound));
    }

    #[test]
    fn a_delete_answer_without_result_is_success() {
        // As the Python SDK 0.3 server writes it: `result: null` dropped.
        let body = br#"{"jsonrpc":"2.0","id":"1"}"#;
        let _: a2a_types::Empty = decode(V1Method::DeleteTaskPushNotificationConfig, body).unwrap();
        assert!(decode::<Task>(V1Method::GetTask, body).is_err());
    }
}
