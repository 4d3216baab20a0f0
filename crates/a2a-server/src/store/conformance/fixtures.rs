//! The tasks the checks save, and the list order they expect.

use std::cmp::Ordering;

use a2a_types::{
    Artifact, ContextId, Message, Metadata, Part, Role, Task, TaskId, TaskState, TaskStatus,
    Timestamp,
};
use serde_json::json;

use crate::store::query::sort_millis;

/// The list order, computed independently of any store.
pub(super) fn list_order(a: &Task, b: &Task) -> Ordering {
    (sort_millis(b), &b.id).cmp(&(sort_millis(a), &a.id))
}

/// `task` in `state`.
pub(super) fn with_state(task: &Task, state: TaskState) -> Task {
    let mut task = task.clone();
    task.status.state = state;
    task
}

/// `task` with `metadata.revision` set, to tell saved copies apart.
pub(super) fn revised(task: &Task, revision: usize) -> Task {
    with_metadata(task, "revision", revision)
}

/// `task` with `metadata[key]` set to `value`.
pub(super) fn with_metadata(task: &Task, key: &str, value: usize) -> Task {
    let mut task = task.clone();
    task.metadata
        .get_or_insert_with(Metadata::new)
        .insert(key.to_owned(), json!(value));
    task
}

/// Parses a timestamp the suite itself wrote.
pub(super) fn timestamp(text: &str) -> Timestamp {
    match Timestamp::parse(text) {
        Ok(timestamp) => timestamp,
        Err(err) => panic!("task store conformance suite has a bad timestamp: {err}"),
    }
}

/// A task that uses every member of the task model.
pub(super) fn full_task(id: TaskId) -> Task {
    let context_id = ContextId::new("context-full");
    let mut question = Message::new(
        Role::User,
        vec![
            Part::text("What is the weather in Paris?"),
            Part::data(json!({"city": "Paris", "days": [1, 2], "units": null})),
        ],
    )
    .with_context_id(context_id.clone())
    .with_task_id(id.clone());
    question.extensions = vec!["https://example.com/ext/geo/v1".to_owned()];
    question.reference_task_ids = vec![TaskId::new("earlier-task")];
    question.metadata = Some(metadata(json!({"client": "conformance", "attempt": 1})));

    let mut answer = Message::agent_text("Looking it up… ☀")
        .with_context_id(context_id.clone())
        .with_task_id(id.clone());
    answer.parts.push(
        Part::raw(vec![0_u8, 1, 2, 253, 254, 255])
            .with_media_type("application/octet-stream")
            .with_filename("blob.bin"),
    );

    let mut forecast = Artifact::new(vec![
        Part::text("18 °C"),
        Part::url("https://example.com/maps/paris.png")
            .with_media_type("image/png")
            .with_filename("paris.png"),
    ])
    .with_id("forecast")
    .with_name("Forecast");
    forecast.description = "Tomorrow's forecast".to_owned();
    forecast.extensions = vec!["https://example.com/ext/geo/v1".to_owned()];
    forecast.metadata = Some(metadata(json!({"source": "model", "confidence": 0.87})));
    let mut data_part = Part::data(json!([{"hour": 9, "temperature": 15.5}]));
    data_part.metadata = Some(metadata(json!({"schema": "hourly"})));

    Task {
        id,
        context_id,
        status: TaskStatus {
            state: TaskState::InputRequired,
            message: Some(Message::agent_text("Which day?")),
            timestamp: Some(timestamp("2025-10-28T10:30:00.123Z")),
        },
        artifacts: vec![forecast, Artifact::new(vec![data_part]).with_id("hourly")],
        history: vec![question, answer],
        metadata: Some(metadata(json!({
            "priority": 3,
            "labels": ["weather", "démo"],
            "nested": {"deep": {"deeper": true}},
            "nothing": null,
        }))),
    }
}

pub(super) fn metadata(value: serde_json::Value) -> Metadata {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("task store conformance suite has bad metadata: {other}"),
    }
}
