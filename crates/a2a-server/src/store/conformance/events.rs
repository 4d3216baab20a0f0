//! The checks of the event log that `save` appends to.

use a2a_types::TaskState;

use super::check::{Check, numbered, save_version};
use super::fixtures::{revised, with_state};
use crate::store::{Expected, TaskEvent, TaskStore};

/// `save` appends its events to the task's log numbered on from the last one, the first
/// event of a task being 1; it returns the last sequence number, which `load` reports too.
/// A save without events leaves the log as it was.
///
/// # Panics
/// When the store fails the check.
pub async fn saves_append_events_numbered_on_from_one(store: &dyn TaskStore) {
    let check = Check::new("saves_append_events_numbered_on_from_one");
    let scope = check.scope("acme", Some("alice"));
    let task = check.task_in("t", TaskState::Submitted);
    let mut logged = Check::events(&task, 0..2);

    let saved = check
        .create_with(store, &scope, &task, &logged, "creating with 2 events")
        .await;
    check.ensure_eq(
        &saved.last_sequence,
        &2,
        "last sequence after creating with 2 events",
    );
    check
        .expect_last_sequence(store, &scope, &task.id, 2, "after creating")
        .await;

    let working = with_state(&task, TaskState::Working);
    let more = Check::events(&working, 2..5);
    let saved = check
        .update(
            store,
            &scope,
            &working,
            saved.version,
            &more,
            "saving 3 more",
        )
        .await;
    check.ensure_eq(
        &saved.last_sequence,
        &5,
        "last sequence after 3 more events",
    );
    logged.extend(more);

    let saved = check
        .update(store, &scope, &working, saved.version, &[], "saving none")
        .await;
    check.ensure_eq(
        &saved.last_sequence,
        &5,
        "last sequence after a save without events",
    );
    check
        .expect_last_sequence(store, &scope, &task.id, 5, "after three saves")
        .await;
    check
        .expect_log(store, &scope, &task.id, &numbered(logged), "the whole log")
        .await;
}

/// `events` returns the logged events after a sequence number, in order, at most `limit`
/// of them; nothing after the last one.
///
/// # Panics
/// When the store fails the check.
pub async fn events_after_a_sequence_returns_the_tail_in_order(store: &dyn TaskStore) {
    let check = Check::new("events_after_a_sequence_returns_the_tail_in_order");
    let scope = check.scope("acme", None);
    let task = check.working("t");
    let logged = Check::events(&task, 0..6);
    check
        .create_with(store, &scope, &task, &logged, "creating with 6 events")
        .await;
    let numbered = numbered(logged);

    let cases: [(u64, usize, &[TaskEvent], &str); 6] = [
        (3, usize::MAX, &numbered[3..], "after 3"),
        (3, 2, &numbered[3..5], "2 after 3"),
        (0, 1, &numbered[..1], "the first"),
        (5, 10, &numbered[5..], "after 5"),
        (6, 10, &[], "after the last"),
        (2, 0, &[], "none after 2"),
    ];
    for (after, limit, expected, what) in cases {
        check
            .expect_events(store, &scope, &task.id, (after, limit), expected, what)
            .await;
    }
}

/// A save that fails (stale version, creation of an existing task, another scope's task)
/// appends none of its events, and the task's last sequence number stays.
///
/// # Panics
/// When the store fails the check.
pub async fn a_refused_save_appends_no_event(store: &dyn TaskStore) {
    let check = Check::new("a_refused_save_appends_no_event");
    let scope = check.scope("acme", Some("alice"));
    let task = check.working("t");
    let logged = Check::events(&task, 0..2);
    let first = check
        .create_with(store, &scope, &task, &logged[..1], "creating")
        .await;
    let second = check
        .update(store, &scope, &task, first.version, &logged[1..], "saving")
        .await;

    let refused = Check::events(&task, 10..13);
    let result = save_version(
        store,
        &scope,
        &revised(&task, 1),
        Expected::Version(first.version),
        &refused,
    )
    .await;
    check.expect_conflict(result, &task.id, "saving with a stale version");
    let result = save_version(
        store,
        &scope,
        &revised(&task, 2),
        Expected::Absent,
        &refused,
    )
    .await;
    check.expect_conflict(result, &task.id, "creating the task again");
    let other = check.scope("acme", Some("bob"));
    let result = save_version(
        store,
        &other,
        &revised(&task, 3),
        Expected::Version(second.version),
        &refused,
    )
    .await;
    check.expect_not_found(result, &task.id, "saving under another owner");

    check
        .expect_log(
            store,
            &scope,
            &task.id,
            &numbered(logged),
            "after the refusals",
        )
        .await;
    let stored = check
        .expect_last_sequence(store, &scope, &task.id, 2, "after the refusals")
        .await;
    check.ensure_eq(
        &stored.version,
        &second.version,
        "version after the refusals",
    );
}

/// `events` returns `None` for a task that does not exist, and for a task of another
/// scope, exactly as `load` does.
///
/// # Panics
/// When the store fails the check.
pub async fn events_of_a_task_of_another_scope_or_none_is_none(store: &dyn TaskStore) {
    let check = Check::new("events_of_a_task_of_another_scope_or_none_is_none");
    let scope = check.scope("acme", Some("alice"));
    let task = check.working("t");
    let logged = Check::events(&task, 0..2);
    check
        .create_with(store, &scope, &task, &logged, "creating")
        .await;

    for other in [
        check.scope("acme", Some("bob")),
        check.scope("acme", None),
        check.scope("globex", Some("alice")),
    ] {
        check
            .expect_no_events(store, &other, &task.id, format!("under {other:?}"))
            .await;
    }
    let missing = check.id("missing");
    check
        .expect_no_events(store, &scope, &missing, "of a task that was never saved")
        .await;
}
