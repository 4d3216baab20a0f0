//! Stream events in KubeMQ's agent shapes (requirements GW-20), read beside the A2A ones: an
//! agent behind KubeMQ's gateway may stream
//!
//! | SSE `event:` | `data` | read as |
//! |---|---|---|
//! | `task.status` | `{"type":"status_update","payload":{"status","progress","total"}}` | a `StatusUpdate` (an unknown status reads as WORKING; `progress` and `total` go to its metadata) |
//! | `task.artifact` | `{"type":"artifact","payload":{"name","data"}}` | an `ArtifactUpdate` named and identified by `name`; text `data` as a text part, other JSON as a data part |
//! | `task.done` | `{"type":"done",…}` | a `StatusUpdate` COMPLETED (or the terminal state the payload names), which ends the stream |
//! | `task.error` | `{"type":"error","payload":{"code","message"}}` | the stream's error, as a JSON-RPC error of that code under `ErrorInfo` domain `kubemq` (`executed = "false"` for KubeMQ's gateway codes -32001…-32004) |
//!
//! Newer brokers wrap each data object once more, `{"type", "payload": <the object above>}`:
//! the fields are read from `payload.payload`, else `payload`. The task and context ids,
//! which these shapes do not carry, are read from `task_id`/`taskId` and
//! `context_id`/`contextId` of the fields or the object when present, and are empty
//! otherwise.
//!
//! A `task.error` whose data is a JSON-RPC error response (how our gateway frames its own
//! errors) is not read here: the binding reads it as any other error.

use std::collections::BTreeMap;

use a2a_types::error::ErrorInfo;
use a2a_types::jsonrpc::JsonRpcError;
use a2a_types::{
    A2aError, Artifact, ContextId, Message, Metadata, Part, StreamResponse,
    TaskArtifactUpdateEvent, TaskId, TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use serde_json::{Map, Value};

use crate::ClientError;
use crate::sse::SseEvent;

/// The `ErrorInfo.domain` of a `task.error` read here.
const KUBEMQ_DOMAIN: &str = "kubemq";

/// The event kinds of KubeMQ's agent streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Status,
    Artifact,
    Done,
    Error,
}

impl Kind {
    /// The kind an SSE event name (`task.status`, …) says.
    fn of_event_name(name: &str) -> Option<Self> {
        match name {
            "task.status" => Some(Self::Status),
            "task.artifact" => Some(Self::Artifact),
            "task.done" => Some(Self::Done),
            "task.error" => Some(Self::Error),
            _ => None,
        }
    }

    /// The kind a data object's `type` says.
    fn of_type(kind: &str) -> Option<Self> {
        match kind {
            "status_update" | "status" => Some(Self::Status),
            "artifact" | "artifact_update" => Some(Self::Artifact),
            "done" => Some(Self::Done),
            "error" => Some(Self::Error),
            _ => None,
        }
    }
}

/// Whether the event's name is one of KubeMQ's, so its data should be read here first.
pub(super) fn is_named(event: &SseEvent) -> bool {
    event
        .event
        .as_deref()
        .and_then(Kind::of_event_name)
        .is_some()
}

/// The event read in KubeMQ's shapes; `None` when it is not in one (it is then the A2A
/// binding's to read, or to refuse).
pub(super) fn decode(event: &SseEvent) -> Option<Result<StreamResponse, ClientError>> {
    let Ok(Value::Object(data)) = serde_json::from_str::<Value>(&event.data) else {
        return None;
    };
    if data.contains_key("jsonrpc") || data.contains_key("result") {
        return None;
    }
    let kind = match data.get("type") {
        Some(Value::String(kind)) => Kind::of_type(kind)?,
        // An untyped object is only read by the name of its event.
        _ => event.event.as_deref().and_then(Kind::of_event_name)?,
    };
    let fields = fields_of(&data);
    Some(match kind {
        Kind::Status => Ok(status_update(&data, fields, None)),
        Kind::Done => Ok(status_update(&data, fields, Some(TaskState::Completed))),
        Kind::Artifact => Ok(artifact_update(&data, fields)),
        Kind::Error => Err(error(fields)),
    })
}

/// `payload.payload ?? payload`, as KubeMQ's own examples read it; the object itself when it
/// has no `payload` object.
fn fields_of(data: &Map<String, Value>) -> &Map<String, Value> {
    let Some(Value::Object(payload)) = data.get("payload") else {
        return data;
    };
    match payload.get("payload") {
        Some(Value::Object(inner)) => inner,
        _ => payload,
    }
}

/// A string member under any of `names`, in `fields` first, then in `data`.
fn member<'a>(
    fields: &'a Map<String, Value>,
    data: &'a Map<String, Value>,
    names: &[&str],
) -> Option<&'a str> {
    [fields, data]
        .into_iter()
        .flat_map(|object| names.iter().filter_map(|name| object.get(*name)))
        .find_map(Value::as_str)
}

fn ids(data: &Map<String, Value>, fields: &Map<String, Value>) -> (TaskId, ContextId) {
    let task_id = member(fields, data, &["task_id", "taskId"]).unwrap_or_default();
    let context_id = member(fields, data, &["context_id", "contextId"]).unwrap_or_default();
    (TaskId::new(task_id), ContextId::new(context_id))
}

/// A status update; `done` is the state of a `done` event (its payload may name another
/// terminal state).
fn status_update(
    data: &Map<String, Value>,
    fields: &Map<String, Value>,
    done: Option<TaskState>,
) -> StreamResponse {
    let named = match fields.get("status") {
        Some(Value::String(name)) => Some(name.as_str()),
        Some(Value::Object(status)) => status.get("state").and_then(Value::as_str),
        _ => None,
    };
    let read = named.and_then(TaskState::from_name);
    let state = match (done, read) {
        (Some(_), Some(state)) if state.is_terminal() => state,
        (Some(completed), _) => completed,
        (None, Some(state)) if state != TaskState::Unspecified => state,
        (None, _) => TaskState::Working,
    };
    let mut status = TaskStatus::new(state);
    let text = fields
        .get("message")
        .or_else(|| fields.get("result"))
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty());
    if let Some(text) = text {
        status.message = Some(Message::agent_text(text));
    }
    let mut metadata = Metadata::new();
    for name in ["progress", "total"] {
        if let Some(value) = fields.get(name).filter(|value| !value.is_null()) {
            metadata.insert(name.to_owned(), value.clone());
        }
    }
    // A status name that is no A2A state is kept, not lost.
    if let Some(name) = named
        && read.is_none()
    {
        metadata.insert("status".to_owned(), Value::from(name));
    }
    let (task_id, context_id) = ids(data, fields);
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id,
        context_id,
        status,
        metadata: (!metadata.is_empty()).then_some(metadata),
    })
}

fn artifact_update(data: &Map<String, Value>, fields: &Map<String, Value>) -> StreamResponse {
    let name = fields
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let artifact_id = member(fields, data, &["artifact_id", "artifactId"])
        .or_else(|| (!name.is_empty()).then_some(name))
        .unwrap_or("artifact");
    let part = match fields.get("data") {
        Some(Value::String(text)) => Part::text(text.clone()),
        Some(Value::Null) | None => Part::text(String::new()),
        Some(other) => Part::data(other.clone()),
    };
    let flag = |names: &[&str]| {
        names
            .iter()
            .find_map(|name| fields.get(*name).and_then(Value::as_bool))
            .unwrap_or(false)
    };
    let (task_id, context_id) = ids(data, fields);
    StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id,
        context_id,
        artifact: Artifact::new(vec![part])
            .with_id(artifact_id)
            .with_name(name),
        append: flag(&["append"]),
        last_chunk: flag(&["last_chunk", "lastChunk"]),
        metadata: None,
    })
}

/// The stream's error: `code` (-32603 when missing) and `message`.
fn error(fields: &Map<String, Value>) -> ClientError {
    let code = fields
        .get("code")
        .and_then(Value::as_i64)
        .and_then(|code| i32::try_from(code).ok())
        .unwrap_or(-32603);
    let message = fields
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("the agent's stream failed")
        .to_owned();
    // Under KubeMQ's domain, so the code is kept as its author's and not read as the A2A
    // error of that number; -32001…-32004 are its gateway's own codes (the stream's idle
    // timeout, agent not found, unavailable, invalid response): the agent did not run them.
    let mut metadata = BTreeMap::new();
    if (-32004..=-32001).contains(&code) {
        metadata.insert("executed".to_owned(), "false".to_owned());
    }
    let info = ErrorInfo {
        reason: "STREAM_ERROR".to_owned(),
        domain: KUBEMQ_DOMAIN.to_owned(),
        metadata,
    };
    ClientError::Agent(A2aError::from_jsonrpc_error(&JsonRpcError {
        code,
        message,
        data: Some(Value::Array(vec![info.to_any()])),
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn event(name: Option<&str>, data: &Value) -> SseEvent {
        SseEvent {
            event: name.map(str::to_owned),
            data: data.to_string(),
            id: None,
        }
    }

    fn decoded(name: Option<&str>, data: &Value) -> StreamResponse {
        decode(&event(name, data)).unwrap().unwrap()
    }

    #[test]
    fn both_forms_of_a_status_update_read_the_same() {
        let plain = json!({"type": "status_update", "payload": {"status": "working", "progress": 3, "total": 10}});
        let wrapped = json!({"type": "status_update", "payload": &plain});
        for data in [plain, wrapped] {
            let StreamResponse::StatusUpdate(update) = decoded(Some("task.status"), &data) else {
                panic!("not a status update: {data}");
            };
            assert_eq!(update.status.state, TaskState::Working);
            let metadata = update.metadata.unwrap();
            assert_eq!(metadata["progress"], 3);
            assert_eq!(metadata["total"], 10);
        }
    }

    #[test]
    fn artifacts_done_and_errors_are_read() {
        let data = json!({"type": "artifact", "payload": {"type": "artifact", "payload": {"name": "report", "data": "hello"}}});
        let StreamResponse::ArtifactUpdate(update) = decoded(None, &data) else {
            panic!("not an artifact");
        };
        assert_eq!(update.artifact.name, "report");
        assert_eq!(update.artifact.artifact_id.as_str(), "report");
        assert_eq!(update.artifact.text(), "hello");

        let done = decoded(Some("task.done"), &json!({"type": "done", "payload": {}}));
        let StreamResponse::StatusUpdate(update) = done else {
            panic!("not a status");
        };
        assert_eq!(update.status.state, TaskState::Completed);

        let error = decode(&event(
            Some("task.error"),
            &json!({"type": "error", "payload": {"type": "error", "payload": {"code": -32001, "message": "agent timeout: a1"}}}),
        ))
        .unwrap()
        .unwrap_err();
        let ClientError::Agent(error) = error else {
            panic!("not an agent error: {error}");
        };
        assert_eq!(error.peer_code(), Some(-32001));
        assert_eq!(error.message(), "agent timeout: a1");
        assert_eq!(error.domain(), "kubemq");
    }

    #[test]
    fn a2a_shapes_are_left_alone() {
        let jsonrpc = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "x"}});
        assert!(decode(&event(Some("task.error"), &jsonrpc)).is_none());
        let rest = json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}});
        assert!(decode(&event(None, &rest)).is_none());
        assert!(decode(&event(None, &json!({"type": "other", "payload": {}}))).is_none());
    }
}
