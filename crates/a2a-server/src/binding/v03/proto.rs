//! The v0.3 REST bodies: the protobuf JSON of the v0.3 `a2a.v1` messages (what the v0.3
//! SDKs' REST transports send and parse), converted to and from the v0.3 JSON-RPC shapes
//! the wire model reads. The two differ in a few places: messages carry `content` and
//! `ROLE_*` roles, parts are `{text}` / `{file: {fileWithUri|fileWithBytes}}` /
//! `{data: {data}}` without `kind`, states are `TASK_STATE_*` (with `CANCELLED`), results
//! and stream elements are wrapped (`{task}`, `{message}`, `{statusUpdate}`,
//! `{artifactUpdate}`), and a push config is named `tasks/{id}/pushNotificationConfigs/{id}`.
//! Protobuf parsers refuse unknown members, so only the v0.3 proto's members are written.

use a2a_types::A2aError;
use serde_json::{Map, Value};

/// The members of `from` named in `keys` that are set, copied into `to`.
fn copy(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(value) = from.get(*key).filter(|value| !value.is_null()) {
            to.insert((*key).to_owned(), value.clone());
        }
    }
}

fn object<'a>(value: &'a Value, field: &str) -> Result<&'a Map<String, Value>, A2aError> {
    value
        .as_object()
        .ok_or_else(|| A2aError::invalid_field(field, "must be an object"))
}

// Requests: protobuf JSON → v0.3 JSON-RPC.

/// The v0.3 JSON-RPC `MessageSendParams` for a v0.3 REST `SendMessageRequest` body.
///
/// # Errors
/// InvalidParams naming the member at fault.
pub(super) fn send_params(body: &Value) -> Result<Value, A2aError> {
    let body = object(body, "")?;
    let message = body
        .get("message")
        .or_else(|| body.get("request"))
        .ok_or_else(|| A2aError::invalid_field("message", "is required"))?;
    let mut params = Map::new();
    params.insert("message".into(), message_from(message, "message")?);
    if let Some(configuration) = body.get("configuration").filter(|value| !value.is_null()) {
        let configuration = object(configuration, "configuration")?;
        let mut out = Map::new();
        copy(
            configuration,
            &mut out,
            &["acceptedOutputModes", "historyLength"],
        );
        if let Some(push) = configuration
            .get("pushNotification")
            .or_else(|| configuration.get("pushNotificationConfig"))
        {
            out.insert("pushNotificationConfig".into(), push.clone());
        }
        // Protobuf JSON leaves out a false `blocking`: a configuration without it asks not
        // to block, as the v0.3 SDK's own REST server reads it.
        out.insert(
            "blocking".into(),
            configuration
                .get("blocking")
                .cloned()
                .unwrap_or(Value::Bool(false)),
        );
        out.entry("acceptedOutputModes")
            .or_insert_with(|| Value::Array(Vec::new()));
        params.insert("configuration".into(), Value::Object(out));
    }
    copy(body, &mut params, &["metadata"]);
    Ok(Value::Object(params))
}

fn message_from(value: &Value, field: &str) -> Result<Value, A2aError> {
    let message = object(value, field)?;
    let mut out = Map::new();
    out.insert("kind".into(), Value::String("message".into()));
    copy(
        message,
        &mut out,
        &["messageId", "contextId", "taskId", "metadata", "extensions"],
    );
    let role = match message.get("role").and_then(Value::as_str) {
        Some("ROLE_USER" | "user") => "user",
        Some("ROLE_AGENT" | "agent") => "agent",
        _ => {
            return Err(A2aError::invalid_field(
                format!("{field}.role"),
                "must be ROLE_USER or ROLE_AGENT",
            ));
        }
    };
    out.insert("role".into(), Value::String(role.into()));
    let parts = message
        .get("content")
        .or_else(|| message.get("parts"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let parts = parts
        .iter()
        .enumerate()
        .map(|(index, part)| part_from(part, &format!("{field}.content[{index}]")))
        .collect::<Result<Vec<_>, _>>()?;
    out.insert("parts".into(), Value::Array(parts));
    Ok(Value::Object(out))
}

fn part_from(value: &Value, field: &str) -> Result<Value, A2aError> {
    let part = object(value, field)?;
    let mut out = Map::new();
    if let Some(text) = part.get("text") {
        out.insert("kind".into(), Value::String("text".into()));
        out.insert("text".into(), text.clone());
    } else if let Some(file) = part.get("file") {
        let file = object(file, &format!("{field}.file"))?;
        let mut content = Map::new();
        if let Some(uri) = file.get("fileWithUri") {
            content.insert("uri".into(), uri.clone());
        } else if let Some(bytes) = file.get("fileWithBytes") {
            content.insert("bytes".into(), bytes.clone());
        } else {
            return Err(A2aError::invalid_field(
                format!("{field}.file"),
                "needs fileWithUri or fileWithBytes",
            ));
        }
        copy(file, &mut content, &["mimeType", "name"]);
        out.insert("kind".into(), Value::String("file".into()));
        out.insert("file".into(), Value::Object(content));
    } else if let Some(data) = part.get("data") {
        let inner = data.get("data").cloned().unwrap_or(Value::Null);
        out.insert("kind".into(), Value::String("data".into()));
        out.insert("data".into(), inner);
    } else {
        return Err(A2aError::invalid_field(field, "needs text, file or data"));
    }
    copy(part, &mut out, &["metadata"]);
    Ok(Value::Object(out))
}

/// The v0.3 JSON-RPC `TaskPushNotificationConfig` for a v0.3 REST create body: the SDKs
/// send either a `CreateTaskPushNotificationConfigRequest` (`{parent, configId, config}`)
/// or the `TaskPushNotificationConfig` itself (`{name, pushNotificationConfig}`).
///
/// # Errors
/// InvalidParams when no push config is found in it.
pub(super) fn push_config_from(body: &Value, task_id: &str) -> Result<Value, A2aError> {
    let body = object(body, "")?;
    let config = body
        .get("config")
        .and_then(Value::as_object)
        .unwrap_or(body);
    let push = config
        .get("pushNotificationConfig")
        .filter(|push| push.is_object())
        .cloned()
        .or_else(|| {
            config
                .contains_key("url")
                .then(|| Value::Object(config.clone()))
        })
        .ok_or_else(|| A2aError::invalid_field("pushNotificationConfig", "is required"))?;
    let mut push = match push {
        Value::Object(push) => push,
        _ => Map::new(),
    };
    push.remove("name");
    if let Some(id) = body
        .get("configId")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        && push
            .get("id")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
    {
        push.insert("id".into(), Value::String(id.to_owned()));
    }
    let mut out = Map::new();
    out.insert("taskId".into(), Value::String(task_id.to_owned()));
    out.insert("pushNotificationConfig".into(), Value::Object(push));
    Ok(Value::Object(out))
}

// Results: v0.3 JSON-RPC → protobuf JSON.

/// The protobuf JSON of a v0.3 `message/send` result: `{task}` or `{message}`.
pub(super) fn send_result(result: &Value) -> Value {
    match result.get("kind").and_then(Value::as_str) {
        Some("message") => wrap("message", message_to(result)),
        _ => wrap("task", task(result)),
    }
}

/// The protobuf JSON `StreamResponse` of a v0.3 stream element.
///
/// # Errors
/// Internal for an element without a known `kind` (never written by the wire model).
pub(super) fn stream_event(event: &Value) -> Result<Value, A2aError> {
    let Some(object) = event.as_object() else {
        return Err(A2aError::internal());
    };
    Ok(match object.get("kind").and_then(Value::as_str) {
        Some("task") => wrap("task", task(event)),
        Some("message") => wrap("message", message_to(event)),
        Some("status-update") => {
            let mut out = Map::new();
            copy(object, &mut out, &["taskId", "contextId", "metadata"]);
            if let Some(status) = object.get("status") {
                out.insert("status".into(), status_to(status));
            }
            if object.get("final").and_then(Value::as_bool) == Some(true) {
                out.insert("final".into(), Value::Bool(true));
            }
            wrap("statusUpdate", Value::Object(out))
        }
        Some("artifact-update") => {
            let mut out = Map::new();
            copy(object, &mut out, &["taskId", "contextId", "metadata"]);
            if let Some(artifact) = object.get("artifact") {
                out.insert("artifact".into(), artifact_to(artifact));
            }
            for flag in ["append", "lastChunk"] {
                if object.get(flag).and_then(Value::as_bool) == Some(true) {
                    out.insert(flag.into(), Value::Bool(true));
                }
            }
            wrap("artifactUpdate", Value::Object(out))
        }
        _ => return Err(A2aError::internal()),
    })
}

fn wrap(key: &str, value: Value) -> Value {
    let mut out = Map::new();
    out.insert(key.to_owned(), value);
    Value::Object(out)
}

/// The protobuf JSON `Task` of a v0.3 task.
pub(super) fn task(value: &Value) -> Value {
    let Some(task) = value.as_object() else {
        return Value::Null;
    };
    let mut out = Map::new();
    copy(task, &mut out, &["id", "contextId"]);
    if let Some(status) = task.get("status") {
        out.insert("status".into(), status_to(status));
    }
    for (key, convert) in [
        ("artifacts", artifact_to as fn(&Value) -> Value),
        ("history", message_to),
    ] {
        if let Some(items) = task.get(key).and_then(Value::as_array)
            && !items.is_empty()
        {
            out.insert(key.into(), items.iter().map(convert).collect());
        }
    }
    copy(task, &mut out, &["metadata"]);
    Value::Object(out)
}

fn status_to(value: &Value) -> Value {
    let mut out = Map::new();
    let state = match value
        .get("state")
        .and_then(Value::as_str)
        .unwrap_or_default()
    {
        "submitted" => "TASK_STATE_SUBMITTED",
        "working" => "TASK_STATE_WORKING",
        "input-required" => "TASK_STATE_INPUT_REQUIRED",
        "completed" => "TASK_STATE_COMPLETED",
        "canceled" => "TASK_STATE_CANCELLED",
        "failed" => "TASK_STATE_FAILED",
        "rejected" => "TASK_STATE_REJECTED",
        "auth-required" => "TASK_STATE_AUTH_REQUIRED",
        _ => "TASK_STATE_UNSPECIFIED",
    };
    out.insert("state".into(), Value::String(state.into()));
    if let Some(message) = value.get("message").filter(|message| message.is_object()) {
        out.insert("message".into(), message_to(message));
    }
    if let Some(object) = value.as_object() {
        copy(object, &mut out, &["timestamp"]);
    }
    Value::Object(out)
}

fn message_to(value: &Value) -> Value {
    let Some(message) = value.as_object() else {
        return Value::Null;
    };
    let mut out = Map::new();
    copy(message, &mut out, &["messageId", "contextId", "taskId"]);
    let role = match message.get("role").and_then(Value::as_str) {
        Some("agent") => "ROLE_AGENT",
        _ => "ROLE_USER",
    };
    out.insert("role".into(), Value::String(role.into()));
    if let Some(parts) = message.get("parts").and_then(Value::as_array) {
        out.insert("content".into(), parts.iter().map(part_to).collect());
    }
    copy(message, &mut out, &["metadata", "extensions"]);
    Value::Object(out)
}

fn artifact_to(value: &Value) -> Value {
    let Some(artifact) = value.as_object() else {
        return Value::Null;
    };
    let mut out = Map::new();
    copy(artifact, &mut out, &["artifactId", "name", "description"]);
    if let Some(parts) = artifact.get("parts").and_then(Value::as_array) {
        out.insert("parts".into(), parts.iter().map(part_to).collect());
    }
    copy(artifact, &mut out, &["metadata", "extensions"]);
    Value::Object(out)
}

fn part_to(value: &Value) -> Value {
    let Some(part) = value.as_object() else {
        return Value::Null;
    };
    let mut out = Map::new();
    match part.get("kind").and_then(Value::as_str) {
        Some("file") => {
            let mut file = Map::new();
            if let Some(content) = part.get("file").and_then(Value::as_object) {
                if let Some(uri) = content.get("uri") {
                    file.insert("fileWithUri".into(), uri.clone());
                } else if let Some(bytes) = content.get("bytes") {
                    file.insert("fileWithBytes".into(), bytes.clone());
                }
                copy(content, &mut file, &["mimeType", "name"]);
            }
            out.insert("file".into(), Value::Object(file));
        }
        Some("data") => {
            let data = part.get("data").cloned().unwrap_or(Value::Null);
            out.insert("data".into(), wrap("data", data));
        }
        _ => {
            let text = part
                .get("text")
                .cloned()
                .unwrap_or(Value::String(String::new()));
            out.insert("text".into(), text);
        }
    }
    copy(part, &mut out, &["metadata"]);
    Value::Object(out)
}

/// The protobuf JSON `TaskPushNotificationConfig` of a v0.3 one: named by its task and id.
pub(super) fn push_config_to(value: &Value) -> Value {
    let task_id = value
        .get("taskId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let push = value
        .get("pushNotificationConfig")
        .cloned()
        .unwrap_or(Value::Null);
    let config_id = push.get("id").and_then(Value::as_str).unwrap_or_default();
    let mut out = Map::new();
    out.insert(
        "name".into(),
        Value::String(format!(
            "tasks/{task_id}/pushNotificationConfigs/{config_id}"
        )),
    );
    out.insert("pushNotificationConfig".into(), push);
    Value::Object(out)
}

/// The protobuf JSON `ListTaskPushNotificationConfigResponse` of a v0.3 list result.
pub(super) fn push_configs_to(value: &Value) -> Value {
    let configs: Vec<Value> = value
        .as_array()
        .map(|items| items.iter().map(push_config_to).collect())
        .unwrap_or_default();
    wrap("configs", Value::Array(configs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_rest_send_body_reads_as_message_send_params() {
        // As the v0.3 Python SDK's REST transport writes it.
        let body = json!({"message": {"messageId": "m1", "role": "ROLE_USER", "content": [
            {"text": "hi"},
            {"file": {"fileWithUri": "http://x/f", "mimeType": "text/plain", "name": "f"}},
            {"data": {"data": {"a": 1.0}}}
        ]}, "configuration": {"acceptedOutputModes": ["text/plain"], "historyLength": 2}});
        let params = send_params(&body).unwrap();
        assert_eq!(
            params,
            json!({"message": {"kind": "message", "messageId": "m1", "role": "user", "parts": [
                {"kind": "text", "text": "hi"},
                {"kind": "file", "file": {"uri": "http://x/f", "mimeType": "text/plain", "name": "f"}},
                {"kind": "data", "data": {"a": 1.0}}
            ]}, "configuration": {"acceptedOutputModes": ["text/plain"], "historyLength": 2, "blocking": false}})
        );
        let error = send_params(&json!({"message": {"role": "ROLE_X"}})).unwrap_err();
        assert_eq!(error.kind(), a2a_types::ErrorKind::InvalidParams);
    }

    #[test]
    fn results_are_written_as_v03_protobuf_json() {
        let task_value = json!({"kind": "task", "id": "t1", "contextId": "c1",
            "status": {"state": "canceled", "timestamp": "2025-01-01T00:00:00Z"},
            "history": [{"kind": "message", "messageId": "m1", "role": "agent",
                "parts": [{"kind": "data", "data": {"a": 1}}], "referenceTaskIds": ["x"]}]});
        assert_eq!(
            send_result(&task_value),
            json!({"task": {"id": "t1", "contextId": "c1",
                "status": {"state": "TASK_STATE_CANCELLED", "timestamp": "2025-01-01T00:00:00Z"},
                "history": [{"messageId": "m1", "role": "ROLE_AGENT",
                    "content": [{"data": {"data": {"a": 1}}}]}]}})
        );
        let update = json!({"kind": "status-update", "taskId": "t1", "contextId": "c1",
            "status": {"state": "input-required"}, "final": true});
        assert_eq!(
            stream_event(&update).unwrap(),
            json!({"statusUpdate": {"taskId": "t1", "contextId": "c1",
                "status": {"state": "TASK_STATE_INPUT_REQUIRED"}, "final": true}})
        );
        let config =
            json!({"taskId": "t1", "pushNotificationConfig": {"id": "p1", "url": "https://h/w"}});
        assert_eq!(
            push_config_to(&config)["name"],
            "tasks/t1/pushNotificationConfigs/p1"
        );
        let python = json!({"parent": "tasks/t1", "configId": "p1",
            "config": {"name": "tasks/t1/pushNotificationConfigs/p1",
                "pushNotificationConfig": {"url": "https://h/w", "token": "tok"}}});
        assert_eq!(
            push_config_from(&python, "t1").unwrap(),
            json!({"taskId": "t1", "pushNotificationConfig": {"id": "p1", "url": "https://h/w", "token": "tok"}})
        );
    }
}
