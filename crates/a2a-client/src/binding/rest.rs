//! The HTTP+JSON binding (spec §5.2): a verb and path per operation under the interface URL,
//! `/{tenant}` first when there is a tenant, GET parameters in the query, bodies without
//! their path-bound members; streams are SSE of bare `StreamResponse`s.

use a2a_types::jsonrpc::Method;
use a2a_types::{A2aError, StreamResponse};
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{APPLICATION_A2A_JSON, Call, EVENT_STREAM, Prepared, REST_ACCEPT, decode_value};
use crate::ClientError;
use crate::sse::SseEvent;

pub(super) fn prepare(
    base: &url::Url,
    call: &Call,
    params: Value,
    streaming: bool,
) -> Result<Prepared, ClientError> {
    let Value::Object(mut params) = params else {
        return Err(ClientError::config("a request is not a JSON object"));
    };
    let tenant = take_string(&mut params, "tenant");
    let (method, path, has_body) = match call {
        Call::SendMessage(_) => (http::Method::POST, "message:send".to_owned(), true),
        Call::SendStreamingMessage(_) => (http::Method::POST, "message:stream".to_owned(), true),
        Call::GetTask(_) => {
            let id = required(&mut params, "id")?;
            (http::Method::GET, format!("tasks/{}", segment(&id)), false)
        }
        Call::ListTasks(_) => (http::Method::GET, "tasks".to_owned(), false),
        Call::CancelTask(_) => {
            let id = required(&mut params, "id")?;
            (
                http::Method::POST,
                format!("tasks/{}:cancel", segment(&id)),
                true,
            )
        }
        Call::SubscribeToTask(_) => {
            let id = required(&mut params, "id")?;
            // POST, as the spec prose says (our server routes GET as well).
            (
                http::Method::POST,
                format!("tasks/{}:subscribe", segment(&id)),
                true,
            )
        }
        Call::CreatePushConfig(_) => {
            let task = required(&mut params, "taskId")?;
            let path = format!("tasks/{}/pushNotificationConfigs", segment(&task));
            (http::Method::POST, path, true)
        }
        Call::GetPushConfig(_) => (http::Method::GET, push_config_path(&mut params)?, false),
        Call::DeletePushConfig(_) => (http::Method::DELETE, push_config_path(&mut params)?, false),
        Call::ListPushConfigs(_) => {
            let task = required(&mut params, "taskId")?;
            let path = format!("tasks/{}/pushNotificationConfigs", segment(&task));
            (http::Method::GET, path, false)
        }
        Call::GetExtendedAgentCard(_) => (http::Method::GET, "extendedAgentCard".to_owned(), false),
    };
    let mut url = base.clone();
    let mut full_path = base.path().trim_end_matches('/').to_owned();
    if !tenant.is_empty() {
        full_path.push('/');
        full_path.push_str(&segment(&tenant));
    }
    full_path.push('/');
    full_path.push_str(&path);
    url.set_path(&full_path);
    url.set_query(None);
    let body = if has_body {
        Some(Bytes::from(
            serde_json::to_vec(&Value::Object(params)).map_err(|error| {
                ClientError::config(format!("a request cannot be encoded: {error}"))
            })?,
        ))
    } else {
        // GET and DELETE carry what is left of the request in the query.
        if !params.is_empty() {
            let mut query = url.query_pairs_mut();
            for (name, value) in &params {
                if let Some(text) = query_value(value) {
                    query.append_pair(name, &text);
                }
            }
        }
        None
    };
    Ok(Prepared {
        method,
        url,
        content_type: body.as_ref().map(|_| APPLICATION_A2A_JSON),
        body,
        accept: if streaming { EVENT_STREAM } else { REST_ACCEPT },
    })
}

/// A successful answer's body; an empty body reads as `{}` (DELETE may send none).
pub(super) fn decode<T: DeserializeOwned>(method: Method, body: &[u8]) -> Result<T, ClientError> {
    let value: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Map::new())
    } else {
        serde_json::from_slice(body).map_err(|_| {
            ClientError::invalid_response(format!("the {method} answer is not JSON"))
        })?
    };
    decode_value(&format!("{method} answer"), value)
}

/// One SSE event: a bare `StreamResponse`, or an error body (an `event: error` frame, or a
/// document in one of the error formats) that ends the stream.
pub(super) fn decode_event(event: &SseEvent) -> Result<StreamResponse, ClientError> {
    let value: Value = serde_json::from_str(&event.data)
        .map_err(|_| ClientError::invalid_response("a stream event is not JSON"))?;
    let is_stream_response = value.as_object().is_some_and(|object| {
        StreamResponse::MEMBERS
            .iter()
            .any(|member| object.contains_key(*member))
    });
    if event.event.as_deref() == Some("error") || !is_stream_response && is_error(&value) {
        let status = value
            .pointer("/error/code")
            .or_else(|| value.get("status"))
            .and_then(Value::as_u64)
            .and_then(|status| u16::try_from(status).ok())
            .unwrap_or(500);
        return Err(ClientError::Agent(A2aError::from_http_body(
            status,
            event.data.as_bytes(),
        )));
    }
    decode_value("stream event", value)
}

fn is_error(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|object| object.contains_key("error") || object.contains_key("type"))
}

/// `tasks/{taskId}/pushNotificationConfigs/{id}`.
fn push_config_path(params: &mut Map<String, Value>) -> Result<String, ClientError> {
    let task = required(params, "taskId")?;
    let id = required(params, "id")?;
    Ok(format!(
        "tasks/{}/pushNotificationConfigs/{}",
        segment(&task),
        segment(&id)
    ))
}

fn take_string(params: &mut Map<String, Value>, name: &str) -> String {
    match params.remove(name) {
        Some(Value::String(text)) => text,
        Some(_) | None => String::new(),
    }
}

fn required(params: &mut Map<String, Value>, name: &str) -> Result<String, ClientError> {
    let value = take_string(params, name);
    if value.is_empty() {
        Err(ClientError::config(format!("the request needs `{name}`")))
    } else {
        Ok(value)
    }
}

/// A query parameter's text: strings raw, numbers decimal, booleans `true`/`false`
/// (spec §5.2). Objects and arrays cannot go in a query and are left out.
fn query_value(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// One path segment, percent-encoded: everything but RFC 3986 unreserved characters, so an
/// id holding `/` or `:` cannot be read as another route (`tasks/{id}:cancel`).
pub(super) fn segment(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::{Binding, Endpoint};
    use a2a_types::{GetTaskRequest, ListTasksRequest, TaskState};

    fn endpoint(tenant: &str) -> Endpoint {
        Endpoint {
            binding: Binding::HttpJson,
            url: url::Url::parse("http://agent.example/rest/").unwrap(),
            tenant: tenant.into(),
            version: crate::ProtocolVersion::V1_0,
        }
    }

    #[test]
    fn ids_are_escaped_and_tenants_prefix_the_path() {
        let call = Call::GetTask(GetTaskRequest {
            tenant: String::new(),
            id: "a/b:cancel".into(),
            history_length: Some(2),
        });
        let prepared = endpoint("acme corp").prepare(&call, 1).unwrap();
        assert_eq!(prepared.method, http::Method::GET);
        assert_eq!(
            prepared.url.as_str(),
            "http://agent.example/rest/acme%20corp/tasks/a%2Fb%3Acancel?historyLength=2"
        );
        assert!(prepared.body.is_none());
    }

    #[test]
    fn list_filters_go_in_the_query() {
        let call = Call::ListTasks(ListTasksRequest {
            status: TaskState::Working,
            page_size: Some(10),
            include_artifacts: Some(false),
            ..ListTasksRequest::default()
        });
        let prepared = endpoint("").prepare(&call, 1).unwrap();
        assert_eq!(
            prepared.url.as_str(),
            "http://agent.example/rest/tasks?status=TASK_STATE_WORKING&pageSize=10&includeArtifacts=false"
        );
    }
}
