//! The protobuf JSON of A2A v0.3's REST binding, converted to and from the v0.3 JSON-RPC
//! shapes `a2a_types::v03` reads and writes. The shapes follow the official Python SDK
//! 0.3.x (`MessageToDict` of its `a2a.proto`): messages carry `content` instead of `parts`,
//! parts are `{"text"}`, `{"file": {"fileWithUri" | "fileWithBytes", "mimeType", "name"}}` or
//! `{"data": {"data": {…}}}`, roles and states are enum names (`ROLE_USER`,
//! `TASK_STATE_INPUT_REQUIRED`), push configs are `{"name": "tasks/{id}/pushNotificationConfigs/{id}",
//! "pushNotificationConfig"}`. `fileWithBytes` is a protobuf `bytes` field holding the v0.3
//! base64 text, so it is base64 twice on the wire, as the SDK writes it.
//!
//! Members the protobuf messages lack (`referenceTaskIds`, `kind`) are left out when
//! writing: the SDK's parser refuses unknown members.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

type Object = Map<String, Value>;

/// Copies the members `names` of `from` that are present (and not null) into `to`.
fn copy(from: &Object, to: &mut Object, names: &[&str]) {
    for name in names {
        if let Some(value) = from.get(*name).filter(|value| !value.is_null()) {
            to.insert((*name).to_owned(), value.clone());
        }
    }
}

fn object(value: &Value) -> Object {
    value.as_object().cloned().unwrap_or_default()
}

fn array_of(value: Option<&Value>, each: fn(&Value) -> Value) -> Option<Value> {
    value
        .and_then(Value::as_array)
        .map(|items| Value::Array(items.iter().map(each).collect()))
}

// v0.3 JSON-RPC shapes → protobuf JSON (requests).

/// A v0.3 message as a protobuf `Message`.
pub(super) fn message_to_proto(message: &Value) -> Value {
    let from = object(message);
    let mut to = Object::new();
    copy(&from, &mut to, &["messageId", "contextId", "taskId"]);
    let role = match from.get("role").and_then(Value::as_str) {
        Some("agent") => "ROLE_AGENT",
        Some(_) | None => "ROLE_USER",
    };
    to.insert("role".into(), Value::from(role));
    if let Some(parts) = array_of(from.get("parts"), part_to_proto) {
        to.insert("content".into(), parts);
    }
    copy(&from, &mut to, &["metadata", "extensions"]);
    Value::Object(to)
}

fn part_to_proto(part: &Value) -> Value {
    let from = object(part);
    let mut to = Object::new();
    match from.get("kind").and_then(Value::as_str) {
        Some("file") => {
            let file = object(from.get("file").unwrap_or(&Value::Null));
            let mut proto = Object::new();
            if let Some(bytes) = file.get("bytes").and_then(Value::as_str) {
                proto.insert(
                    "fileWithBytes".into(),
                    Value::from(STANDARD.encode(bytes.as_bytes())),
                );
            }
            if let Some(uri) = file.get("uri") {
                proto.insert("fileWithUri".into(), uri.clone());
            }
            copy(&file, &mut proto, &["mimeType", "name"]);
            to.insert("file".into(), Value::Object(proto));
        }
        Some("data") => {
            let data = from
                .get("data")
                .cloned()
                .unwrap_or(Value::Object(Object::new()));
            let mut proto = Object::new();
            proto.insert("data".into(), data);
            to.insert("data".into(), Value::Object(proto));
        }
        Some(_) | None => {
            copy(&from, &mut to, &["text"]);
        }
    }
    copy(&from, &mut to, &["metadata"]);
    Value::Object(to)
}

/// A v0.3 `PushNotificationConfig` as its protobuf form (the same members).
fn push_config_to_proto(config: &Value) -> Value {
    let from = object(config);
    let mut to = Object::new();
    copy(&from, &mut to, &["id", "url", "token", "authentication"]);
    Value::Object(to)
}

/// v0.3 `MessageSendParams` as a protobuf `SendMessageRequest`. `blocking` is always
/// written: the protobuf default (absent) is `false`, the JSON-RPC default `true`.
pub(super) fn send_request_to_proto(params: &Value) -> Value {
    let from = object(params);
    let mut to = Object::new();
    to.insert(
        "message".into(),
        message_to_proto(from.get("message").unwrap_or(&Value::Null)),
    );
    let configuration = object(from.get("configuration").unwrap_or(&Value::Null));
    let mut proto = Object::new();
    copy(
        &configuration,
        &mut proto,
        &["acceptedOutputModes", "historyLength"],
    );
    if let Some(push) = configuration.get("pushNotificationConfig") {
        proto.insert("pushNotification".into(), push_config_to_proto(push));
    }
    let blocking = configuration
        .get("blocking")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    proto.insert("blocking".into(), Value::from(blocking));
    to.insert("configuration".into(), Value::Object(proto));
    copy(&from, &mut to, &["metadata"]);
    Value::Object(to)
}

/// A v0.3 `TaskPushNotificationConfig` as a protobuf `CreateTaskPushNotificationConfigRequest`.
pub(super) fn create_push_config_to_proto(task_id: &str, params: &Value) -> Value {
    let push = params
        .get("pushNotificationConfig")
        .cloned()
        .unwrap_or(Value::Null);
    let id = push.get("id").and_then(Value::as_str).unwrap_or_default();
    let mut config = Object::new();
    config.insert(
        "name".into(),
        Value::from(format!("tasks/{task_id}/pushNotificationConfigs/{id}")),
    );
    config.insert("pushNotificationConfig".into(), push_config_to_proto(&push));
    let mut to = Object::new();
    to.insert("parent".into(), Value::from(format!("tasks/{task_id}")));
    to.insert("configId".into(), Value::from(id));
    to.insert("config".into(), Value::Object(config));
    Value::Object(to)
}

// Protobuf JSON → v0.3 JSON-RPC shapes (answers and events).

/// A protobuf `Message` as a v0.3 message.
pub(super) fn message_from_proto(message: &Value) -> Value {
    let from = object(message);
    let mut to = Object::new();
    to.insert("kind".into(), Value::from("message"));
    copy(&from, &mut to, &["messageId", "contextId", "taskId"]);
    let role = match from.get("role").and_then(Value::as_str) {
        Some("ROLE_AGENT" | "agent") => "agent",
        Some(_) | None => "user",
    };
    to.insert("role".into(), Value::from(role));
    let parts = array_of(
        from.get("content").or_else(|| from.get("parts")),
        part_from_proto,
    )
    .unwrap_or(Value::Array(Vec::new()));
    to.insert("parts".into(), parts);
    copy(
        &from,
        &mut to,
        &["metadata", "extensions", "referenceTaskIds"],
    );
    Value::Object(to)
}

fn part_from_proto(part: &Value) -> Value {
    let from = object(part);
    let mut to = Object::new();
    if let Some(file) = from.get("file") {
        let file = object(file);
        let mut v03 = Object::new();
        if let Some(bytes) = file.get("fileWithBytes").and_then(Value::as_str) {
            // The protobuf bytes hold the v0.3 base64 text; bytes that are not text are
            // base64-encoded so the part still converts.
            let text = match STANDARD.decode(bytes) {
                Ok(raw) => String::from_utf8(raw)
                    .unwrap_or_else(|error| STANDARD.encode(error.into_bytes())),
                Err(_) => bytes.to_owned(),
            };
            v03.insert("bytes".into(), Value::from(text));
        }
        if let Some(uri) = file.get("fileWithUri") {
            v03.insert("uri".into(), uri.clone());
        }
        copy(&file, &mut v03, &["mimeType", "name"]);
        to.insert("kind".into(), Value::from("file"));
        to.insert("file".into(), Value::Object(v03));
    } else if let Some(data) = from.get("data") {
        to.insert("kind".into(), Value::from("data"));
        let inner = data
            .get("data")
            .cloned()
            .unwrap_or(Value::Object(Object::new()));
        to.insert("data".into(), inner);
    } else {
        to.insert("kind".into(), Value::from("text"));
        to.insert(
            "text".into(),
            from.get("text").cloned().unwrap_or(Value::from("")),
        );
    }
    copy(&from, &mut to, &["metadata"]);
    Value::Object(to)
}

/// A protobuf `TaskState` name as the v0.3 spelling.
fn state_from_proto(state: Option<&Value>) -> &'static str {
    match state.and_then(Value::as_str) {
        Some("TASK_STATE_SUBMITTED") => "submitted",
        Some("TASK_STATE_WORKING") => "working",
        Some("TASK_STATE_INPUT_REQUIRED") => "input-required",
        Some("TASK_STATE_COMPLETED") => "completed",
        Some("TASK_STATE_CANCELLED") => "canceled",
        Some("TASK_STATE_FAILED") => "failed",
        Some("TASK_STATE_REJECTED") => "rejected",
        Some("TASK_STATE_AUTH_REQUIRED") => "auth-required",
        Some(_) | None => "unknown",
    }
}

fn status_from_proto(status: &Value) -> Value {
    let from = object(status);
    let mut to = Object::new();
    to.insert(
        "state".into(),
        Value::from(state_from_proto(from.get("state"))),
    );
    if let Some(message) = from.get("message").or_else(|| from.get("update")) {
        to.insert("message".into(), message_from_proto(message));
    }
    copy(&from, &mut to, &["timestamp"]);
    Value::Object(to)
}

fn artifact_from_proto(artifact: &Value) -> Value {
    let from = object(artifact);
    let mut to = Object::new();
    copy(&from, &mut to, &["artifactId", "name", "description"]);
    let parts = array_of(from.get("parts"), part_from_proto).unwrap_or(Value::Array(Vec::new()));
    to.insert("parts".into(), parts);
    copy(&from, &mut to, &["metadata", "extensions"]);
    Value::Object(to)
}

/// A protobuf `Task` as a v0.3 task.
pub(super) fn task_from_proto(task: &Value) -> Value {
    let from = object(task);
    let mut to = Object::new();
    to.insert("kind".into(), Value::from("task"));
    copy(&from, &mut to, &["id", "contextId"]);
    to.insert(
        "status".into(),
        status_from_proto(from.get("status").unwrap_or(&Value::Null)),
    );
    if let Some(artifacts) = array_of(from.get("artifacts"), artifact_from_proto) {
        to.insert("artifacts".into(), artifacts);
    }
    if let Some(history) = array_of(from.get("history"), message_from_proto) {
        to.insert("history".into(), history);
    }
    copy(&from, &mut to, &["metadata"]);
    Value::Object(to)
}

/// A protobuf `SendMessageResponse` or `StreamResponse` (`task`, `message`, `statusUpdate`,
/// `artifactUpdate`) as the v0.3 object; `None` when it holds none of them.
pub(super) fn response_from_proto(response: &Value) -> Option<Value> {
    if let Some(task) = response.get("task") {
        return Some(task_from_proto(task));
    }
    let message = response.get("message").or_else(|| response.get("msg"));
    if let Some(message) = message.filter(|message| message.is_object()) {
        return Some(message_from_proto(message));
    }
    if let Some(update) = response.get("statusUpdate") {
        let from = object(update);
        let mut to = Object::new();
        to.insert("kind".into(), Value::from("status-update"));
        copy(&from, &mut to, &["taskId", "contextId"]);
        to.insert(
            "status".into(),
            status_from_proto(from.get("status").unwrap_or(&Value::Null)),
        );
        let is_final = from.get("final").and_then(Value::as_bool).unwrap_or(false);
        to.insert("final".into(), Value::from(is_final));
        copy(&from, &mut to, &["metadata"]);
        return Some(Value::Object(to));
    }
    if let Some(update) = response.get("artifactUpdate") {
        let from = object(update);
        let mut to = Object::new();
        to.insert("kind".into(), Value::from("artifact-update"));
        copy(&from, &mut to, &["taskId", "contextId"]);
        to.insert(
            "artifact".into(),
            artifact_from_proto(from.get("artifact").unwrap_or(&Value::Null)),
        );
        copy(&from, &mut to, &["append", "lastChunk", "metadata"]);
        return Some(Value::Object(to));
    }
    None
}

/// A protobuf `TaskPushNotificationConfig` as the v0.3 one; the task id comes from its
/// `name` (`tasks/{taskId}/pushNotificationConfigs/{id}`), else `task_id`.
pub(super) fn push_config_from_proto(config: &Value, task_id: &str) -> Value {
    let from = object(config);
    let named = from
        .get("name")
        .and_then(Value::as_str)
        .and_then(|name| name.strip_prefix("tasks/"))
        .and_then(|rest| rest.split('/').next())
        .filter(|id| !id.is_empty());
    let mut to = Object::new();
    to.insert(
        "taskId".into(),
        Value::from(named.unwrap_or(task_id).to_owned()),
    );
    let push = from
        .get("pushNotificationConfig")
        .map_or_else(|| Value::Object(Object::new()), push_config_to_proto);
    to.insert("pushNotificationConfig".into(), push);
    Value::Object(to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_round_trip_through_the_sdk_shape() {
        let message = json!({"kind": "message", "messageId": "m1", "role": "user", "contextId": "c1",
        "parts": [
            {"kind": "text", "text": "hi", "metadata": {"a": 1}},
            {"kind": "file", "file": {"bytes": "aGk=", "mimeType": "text/plain", "name": "f.txt"}},
            {"kind": "file", "file": {"uri": "http://x/y", "mimeType": "image/png"}},
            {"kind": "data", "data": {"k": [1, 2]}}
        ]});
        let proto = message_to_proto(&message);
        // As the Python SDK 0.3.26 writes the same message.
        assert_eq!(
            proto,
            json!({"messageId": "m1", "contextId": "c1", "role": "ROLE_USER", "content": [
                {"text": "hi", "metadata": {"a": 1}},
                {"file": {"fileWithBytes": "YUdrPQ==", "mimeType": "text/plain", "name": "f.txt"}},
                {"file": {"fileWithUri": "http://x/y", "mimeType": "image/png"}},
                {"data": {"data": {"k": [1, 2]}}}
            ]})
        );
        assert_eq!(message_from_proto(&proto), message);
    }

    #[test]
    fn stream_responses_read_as_v03_events() {
        let status = json!({"statusUpdate": {"taskId": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_CANCELLED"}, "final": true}});
        assert_eq!(
            response_from_proto(&status).unwrap(),
            json!({"kind": "status-update", "taskId": "t1", "contextId": "c1",
                "status": {"state": "canceled"}, "final": true})
        );
        let artifact = json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1",
            "artifact": {"artifactId": "a1", "parts": [{"text": "x"}]}, "append": true}});
        assert_eq!(
            response_from_proto(&artifact).unwrap()["artifact"]["parts"][0],
            json!({"kind": "text", "text": "x"})
        );
        // The SDK's REST error body is `{"message": "…"}`: not a message.
        assert!(response_from_proto(&json!({"message": "boom"})).is_none());
        assert!(response_from_proto(&json!({"other": 1})).is_none());
    }

    #[test]
    fn send_requests_always_say_whether_to_block() {
        let params =
            json!({"message": {"kind": "message", "messageId": "m", "role": "user", "parts": []}});
        let proto = send_request_to_proto(&params);
        assert_eq!(proto["configuration"], json!({"blocking": true}));
        let push = create_push_config_to_proto(
            "t1",
            &json!({"taskId": "t1", "pushNotificationConfig": {"id": "p1", "url": "http://h/w"}}),
        );
        assert_eq!(
            push,
            json!({"parent": "tasks/t1", "configId": "p1", "config": {
                "name": "tasks/t1/pushNotificationConfigs/p1",
                "pushNotificationConfig": {"id": "p1", "url": "http://h/w"}}})
        );
        assert_eq!(
            push_config_from_proto(&push["config"], "x")["taskId"],
            json!("t1")
        );
    }
}
