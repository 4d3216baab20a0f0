//! The checks of `append`: a change that only added artifact chunks, which a store may keep
//! as events and fold into the task when it is read.

use a2a_types::{Artifact, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState};

use super::check::{Check, numbered};
use super::fixtures::with_state;
use crate::store::{TaskQuery, TaskStore, fold_artifact_update};

/// The artifact-update event of `text` for the artifact `id`, and `task` with it folded in.
fn chunk(task: &Task, id: &str, text: &str, append: bool) -> (Task, StreamResponse) {
    let event = TaskArtifactUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        artifact: Artifact::from_text(text).with_id(id),
        append,
        last_chunk: false,
        metadata: None,
    };
    let mut next = task.clone();
    fold_artifact_update(&mut next, &event);
    (next, StreamResponse::ArtifactUpdate(event))
}

/// Chunks saved with `append` (appended to an artifact, replacing one, starting another)
/// are in the task that `load` and `list` return, numbered on in the log, each append
/// returning a greater version; a whole save afterwards stores the task as given, the log
/// intact.
///
/// # Panics
/// When the store fails the check.
pub async fn appended_chunks_are_in_the_task_that_is_read(store: &dyn TaskStore) {
    let check = Check::new("appended_chunks_are_in_the_task_that_is_read");
    let scope = check.scope("acme", Some("alice"));
    let task = check.working("t");
    let (mut task, first) = chunk(&task, "out", "one ", false);
    let mut logged = vec![first.clone()];
    let saved = check
        .create_with(
            store,
            &scope,
            &task,
            &[first],
            "creating with the first chunk",
        )
        .await;
    let mut version = saved.version;
    let steps = [
        ("out", "two ", true),
        ("out", "three", true),
        ("notes", "n1", false),
        ("notes", "n2", false),
        ("out", "four", true),
    ];
    for (round, (id, text, append)) in steps.into_iter().enumerate() {
        let (next, event) = chunk(&task, id, text, append);
        let saved = check.ok(
            store
                .append(&scope, &next, version, std::slice::from_ref(&event))
                .await,
            format_args!("appending chunk {round}"),
        );
        check.ensure(
            saved.version > version,
            format_args!("the version after appending chunk {round} is greater"),
        );
        check.ensure_eq(
            &saved.last_sequence,
            &(round as u64 + 2),
            format_args!("the last sequence after appending chunk {round}"),
        );
        version = saved.version;
        task = next;
        logged.push(event);
        check
            .expect_stored(
                store,
                &scope,
                &task,
                version,
                format_args!("after chunk {round}"),
            )
            .await;
    }
    let page = check.list(store, &scope, &TaskQuery::default()).await;
    check.ensure_eq(
        &page
            .tasks
            .iter()
            .map(|listed| check.json(listed))
            .collect::<Vec<_>>(),
        &vec![check.json(&task)],
        "the listed task after the appends",
    );
    check
        .expect_log(
            store,
            &scope,
            &task.id,
            &numbered(logged.clone()),
            "after the appends",
        )
        .await;

    let done = with_state(&task, TaskState::Completed);
    let saved = check
        .update(
            store,
            &scope,
            &done,
            version,
            &[],
            "the whole save that completes it",
        )
        .await;
    check
        .expect_stored(store, &scope, &done, saved.version, "after the whole save")
        .await;
    check.ensure_eq(
        &saved.last_sequence,
        &(logged.len() as u64),
        "the last sequence after the whole save",
    );
}

/// `append` is a compare-and-swap like `save`: a stale version conflicts, an unknown task or
/// one of another scope is not found, and nothing is stored or logged either way.
///
/// # Panics
/// When the store fails the check.
pub async fn a_refused_append_stores_and_logs_nothing(store: &dyn TaskStore) {
    let check = Check::new("a_refused_append_stores_and_logs_nothing");
    let scope = check.scope("acme", Some("alice"));
    let task = check.working("t");
    let saved = check
        .create_with(store, &scope, &task, &[], "creating without events")
        .await;
    let (next, event) = chunk(&task, "out", "x", false);
    let moved = check
        .update(store, &scope, &task, saved.version, &[], "saving it again")
        .await;
    check.expect_conflict(
        store
            .append(&scope, &next, saved.version, std::slice::from_ref(&event))
            .await
            .map(|saved| saved.version),
        &task.id,
        "appending over a stale version",
    );
    let other = check.scope("acme", Some("bob"));
    check.expect_not_found(
        store
            .append(&other, &next, moved.version, std::slice::from_ref(&event))
            .await
            .map(|saved| saved.version),
        &task.id,
        "appending under another owner",
    );
    let never = check.working("never");
    let (never_next, never_event) = chunk(&never, "out", "x", false);
    check.expect_not_found(
        store
            .append(&scope, &never_next, moved.version, &[never_event])
            .await
            .map(|saved| saved.version),
        &never.id,
        "appending to a task never stored",
    );
    check
        .expect_stored(store, &scope, &task, moved.version, "after the refusals")
        .await;
    check
        .expect_log(store, &scope, &task.id, &[], "after the refusals")
        .await;
}
