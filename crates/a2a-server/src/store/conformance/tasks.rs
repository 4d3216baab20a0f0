//! The checks of saving and loading tasks: compare-and-swap, scopes, a full task's round
//! trip, and concurrent saves.

use std::sync::Arc;

use a2a_types::{Artifact, Message, Task, TaskState, TaskStatus};
use tokio::sync::Barrier;
use tokio::task::JoinSet;

use super::appends::{
    a_refused_append_stores_and_logs_nothing, appended_chunks_are_in_the_task_that_is_read,
};
use super::check::{Check, RACERS, ROUNDS, save_version};
use super::events::{
    a_refused_save_appends_no_event, events_after_a_sequence_returns_the_tail_in_order,
    events_of_a_task_of_another_scope_or_none_is_none, saves_append_events_numbered_on_from_one,
};
use super::fixtures::{full_task, revised, timestamp, with_metadata};
use super::list::{
    an_empty_store_lists_an_empty_page, list_filters_by_context_id,
    list_filters_by_one_or_several_states, list_never_returns_tasks_of_other_scopes,
    list_orders_by_status_timestamp_then_task_id_descending,
    list_status_timestamp_after_is_inclusive, paging_visits_every_matching_task_exactly_once,
    the_last_page_has_no_next_cursor,
};
use super::sends::{
    a_claimed_send_key_answers_later_claims_with_the_first_send,
    a_released_send_key_can_be_claimed_again,
    concurrent_claims_of_one_send_key_have_exactly_one_winner, send_keys_are_claimed_per_scope,
};
use crate::store::{Expected, StoreError, TaskQuery, TaskScope, TaskStore, Version};

/// Runs every check of the suite, each on a store fresh from `make_store`.
///
/// `make_store` should return an empty store. Each check uses task ids and tenants of its
/// own, so stores over one shared database also work, as long as nothing else writes to it
/// meanwhile. The concurrency checks spawn tokio tasks: call this from a tokio runtime, a
/// multi-threaded one to exercise real parallelism.
///
/// # Panics
/// When the store fails a check; the message names the check.
pub async fn run<S, F, Fut>(make_store: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = S>,
    S: TaskStore,
{
    create_then_load_returns_the_task_and_its_version(&make_store().await).await;
    creating_an_existing_task_conflicts_and_stores_nothing(&make_store().await).await;
    creating_a_task_id_used_in_another_scope_conflicts(&make_store().await).await;
    saving_with_the_current_version_returns_a_greater_version(&make_store().await).await;
    saving_with_a_stale_version_conflicts_and_stores_nothing(&make_store().await).await;
    saving_a_task_that_was_never_stored_is_not_found(&make_store().await).await;
    saving_a_task_of_another_scope_is_not_found(&make_store().await).await;
    load_under_another_tenant_or_owner_returns_none(&make_store().await).await;
    list_never_returns_tasks_of_other_scopes(&make_store().await).await;
    list_orders_by_status_timestamp_then_task_id_descending(&make_store().await).await;
    list_filters_by_context_id(&make_store().await).await;
    list_filters_by_one_or_several_states(&make_store().await).await;
    list_status_timestamp_after_is_inclusive(&make_store().await).await;
    paging_visits_every_matching_task_exactly_once(&make_store().await).await;
    the_last_page_has_no_next_cursor(&make_store().await).await;
    an_empty_store_lists_an_empty_page(&make_store().await).await;
    a_full_task_survives_a_round_trip_unchanged(&make_store().await).await;
    concurrent_saves_on_one_version_have_exactly_one_winner(Arc::new(make_store().await)).await;
    concurrent_creates_of_one_task_have_exactly_one_winner(Arc::new(make_store().await)).await;
    saves_append_events_numbered_on_from_one(&make_store().await).await;
    events_after_a_sequence_returns_the_tail_in_order(&make_store().await).await;
    a_refused_save_appends_no_event(&make_store().await).await;
    events_of_a_task_of_another_scope_or_none_is_none(&make_store().await).await;
    appended_chunks_are_in_the_task_that_is_read(&make_store().await).await;
    a_refused_append_stores_and_logs_nothing(&make_store().await).await;
    a_claimed_send_key_answers_later_claims_with_the_first_send(&make_store().await).await;
    send_keys_are_claimed_per_scope(&make_store().await).await;
    a_released_send_key_can_be_claimed_again(&make_store().await).await;
    concurrent_claims_of_one_send_key_have_exactly_one_winner(Arc::new(make_store().await)).await;
}

/// `load` of an unknown id returns `None`; after `save` with [`Expected::Absent`], `load`
/// returns the task as saved with the version that `save` returned.
///
/// # Panics
/// When the store fails the check.
pub async fn create_then_load_returns_the_task_and_its_version(store: &dyn TaskStore) {
    let check = Check::new("create_then_load_returns_the_task_and_its_version");
    let scope = check.scope("acme", Some("alice"));
    let task = check.task_in("t", TaskState::Submitted);

    check
        .expect_absent(store, &scope, &task.id, "before it was saved")
        .await;
    let version = check.create(store, &scope, &task).await;
    check
        .expect_stored(store, &scope, &task, version, "after creation")
        .await;
}

/// `save` with [`Expected::Absent`] of a task that exists in the same scope fails with
/// [`StoreError::Conflict`] and leaves the stored copy as it was.
///
/// # Panics
/// When the store fails the check.
pub async fn creating_an_existing_task_conflicts_and_stores_nothing(store: &dyn TaskStore) {
    let check = Check::new("creating_an_existing_task_conflicts_and_stores_nothing");
    let scope = check.scope("acme", Some("alice"));
    let task = check.working("t");
    let version = check.create(store, &scope, &task).await;

    let again = revised(&task, 1);
    let result = save_version(store, &scope, &again, Expected::Absent, &[]).await;
    check.expect_conflict(result, &task.id, "creating the task a second time");
    check
        .expect_stored(store, &scope, &task, version, "after the refused creation")
        .await;
}

/// Task ids are globally unique: `save` with [`Expected::Absent`] of an id that exists under
/// another owner, another tenant or no owner fails with [`StoreError::Conflict`], and the
/// task stays where it was, invisible elsewhere.
///
/// # Panics
/// When the store fails the check.
pub async fn creating_a_task_id_used_in_another_scope_conflicts(store: &dyn TaskStore) {
    let check = Check::new("creating_a_task_id_used_in_another_scope_conflicts");
    let home = check.scope("acme", Some("alice"));
    let task = check.working("t");
    let version = check.create(store, &home, &task).await;

    let others = [
        check.scope("acme", Some("bob")),
        check.scope("acme", None),
        check.scope("globex", Some("alice")),
    ];
    let stored = (&home, &task, version);
    refused_elsewhere(&check, store, stored, &others, Expected::Absent, "Conflict").await;
}

/// `save` with the current version succeeds and returns a greater version, every time; the
/// new copy is what `load` returns.
///
/// # Panics
/// When the store fails the check.
pub async fn saving_with_the_current_version_returns_a_greater_version(store: &dyn TaskStore) {
    let check = Check::new("saving_with_the_current_version_returns_a_greater_version");
    let scope = check.scope("acme", Some("alice"));
    let task = check.task_in("t", TaskState::Submitted);
    let mut version = check.create(store, &scope, &task).await;

    for revision in 1..=3 {
        let next = revised(&task, revision);
        let saved = check.ok(
            save_version(store, &scope, &next, Expected::Version(version), &[]).await,
            format!("saving revision {revision} with the current version {version:?}"),
        );
        check.ensure(
            saved > version,
            format!("revision {revision} was saved as {saved:?}, not after {version:?}"),
        );
        version = saved;
        check
            .expect_stored(
                store,
                &scope,
                &next,
                version,
                format!("after revision {revision}"),
            )
            .await;
    }
}

/// `save` with a version that is no longer current fails with [`StoreError::Conflict`] and
/// stores nothing.
///
/// # Panics
/// When the store fails the check.
pub async fn saving_with_a_stale_version_conflicts_and_stores_nothing(store: &dyn TaskStore) {
    let check = Check::new("saving_with_a_stale_version_conflicts_and_stores_nothing");
    let scope = check.scope("acme", Some("alice"));
    let task = check.working("t");
    let first = check.create(store, &scope, &task).await;
    let current = revised(&task, 1);
    let second = check.ok(
        save_version(store, &scope, &current, Expected::Version(first), &[]).await,
        "saving revision 1 with the current version",
    );

    let result = save_version(
        store,
        &scope,
        &revised(&task, 2),
        Expected::Version(first),
        &[],
    )
    .await;
    check.expect_conflict(result, &task.id, "saving revision 2 with the stale version");
    check
        .expect_stored(store, &scope, &current, second, "after the refused save")
        .await;
}

/// `save` with [`Expected::Version`] of a task that was never stored fails with
/// [`StoreError::NotFound`] (not `Conflict`: there is nothing to conflict with) and does not
/// create it.
///
/// # Panics
/// When the store fails the check.
pub async fn saving_a_task_that_was_never_stored_is_not_found(store: &dyn TaskStore) {
    let check = Check::new("saving_a_task_that_was_never_stored_is_not_found");
    let scope = check.scope("acme", Some("alice"));
    // A version the store really handed out, so that only the task id is wrong.
    let other = check.working("other");
    let version = check.create(store, &scope, &other).await;

    let task = check.working("t");
    let result = save_version(store, &scope, &task, Expected::Version(version), &[]).await;
    check.expect_not_found(result, &task.id, "saving a task that was never created");
    check
        .expect_absent(store, &scope, &task.id, "after the refused save")
        .await;
}

/// `save` with [`Expected::Version`] under a scope other than the task's fails with
/// [`StoreError::NotFound`], even with the right version: another scope's task is
/// indistinguishable from a missing one. The task is neither changed nor moved.
///
/// # Panics
/// When the store fails the check.
pub async fn saving_a_task_of_another_scope_is_not_found(store: &dyn TaskStore) {
    let check = Check::new("saving_a_task_of_another_scope_is_not_found");
    let home = check.scope("acme", None);
    let task = check.working("t");
    let version = check.create(store, &home, &task).await;

    let others = [
        check.scope("acme", Some("bob")),
        check.scope("globex", None),
    ];
    let (stored, expected) = ((&home, &task, version), Expected::Version(version));
    refused_elsewhere(&check, store, stored, &others, expected, "NotFound").await;
}

/// Saves revision 1 of the task `stored` names with `expected` under each of `others` and
/// expects the `refusal` (`Conflict` or `NotFound`) and the task still invisible there; then
/// expects the task unchanged where it was stored.
async fn refused_elsewhere(
    check: &Check,
    store: &dyn TaskStore,
    (home, task, version): (&TaskScope, &Task, Version),
    others: &[TaskScope],
    expected: Expected,
    refusal: &str,
) {
    let doing = match expected {
        Expected::Absent => "creating",
        Expected::Version(_) => "saving",
    };
    for other in others {
        let result = save_version(store, other, &revised(task, 1), expected, &[]).await;
        let what = format!("{doing} the task under {other:?}");
        check.expect_refusal(result, &task.id, what, refusal);
        check
            .expect_absent(store, other, &task.id, format!("under {other:?}"))
            .await;
    }
    check
        .expect_stored(store, home, task, version, "in its own scope")
        .await;
}

/// `load` returns `None` under any scope but the task's: another owner, another tenant, no
/// owner where the task has one, and an owner where the task has none.
///
/// # Panics
/// When the store fails the check.
pub async fn load_under_another_tenant_or_owner_returns_none(store: &dyn TaskStore) {
    let check = Check::new("load_under_another_tenant_or_owner_returns_none");
    let owned_scope = check.scope("acme", Some("alice"));
    let owned = check.working("owned");
    let owned_version = check.create(store, &owned_scope, &owned).await;
    let shared_scope = check.scope("acme", None);
    let shared = check.working("shared");
    let shared_version = check.create(store, &shared_scope, &shared).await;

    for other in [
        check.scope("acme", Some("bob")),
        check.scope("acme", None),
        check.scope("globex", Some("alice")),
    ] {
        check
            .expect_absent(store, &other, &owned.id, format!("{other:?}"))
            .await;
    }
    for other in [
        check.scope("acme", Some("alice")),
        check.scope("globex", None),
    ] {
        check
            .expect_absent(store, &other, &shared.id, format!("{other:?}"))
            .await;
    }
    check
        .expect_stored(store, &owned_scope, &owned, owned_version, "its scope")
        .await;
    check
        .expect_stored(store, &shared_scope, &shared, shared_version, "its scope")
        .await;
}

/// A task with a status message, history, artifacts of every part kind, and metadata comes
/// back from `load` and `list` equal to what was saved, down to its JSON form, on creation
/// and on update.
///
/// # Panics
/// When the store fails the check.
pub async fn a_full_task_survives_a_round_trip_unchanged(store: &dyn TaskStore) {
    let check = Check::new("a_full_task_survives_a_round_trip_unchanged");
    let scope = check.scope("acme", Some("alice"));
    let task = full_task(check.id("full"));
    let version = check.create(store, &scope, &task).await;
    check
        .expect_stored(store, &scope, &task, version, "after creation")
        .await;

    let mut updated = task.clone();
    updated.status = TaskStatus {
        state: TaskState::Completed,
        message: Some(Message::agent_text("Done: 18 °C and sunny.")),
        timestamp: Some(timestamp("2025-10-28T10:31:00.456Z")),
    };
    updated
        .artifacts
        .push(Artifact::from_text("a second artifact").with_id("second"));
    updated
        .history
        .push(Message::user_text("And tomorrow?").with_task_id(task.id.clone()));
    let version = check.ok(
        save_version(store, &scope, &updated, Expected::Version(version), &[]).await,
        "saving the updated task",
    );
    check
        .expect_stored(store, &scope, &updated, version, "after the update")
        .await;

    let page = check.list(store, &scope, &TaskQuery::default()).await;
    check.ensure_eq(&page.tasks.len(), &1, "number of listed tasks");
    for listed in &page.tasks {
        check.ensure_eq(listed, &updated, "the listed task");
        check.ensure_eq(
            &check.json(listed),
            &check.json(&updated),
            "the listed task's JSON",
        );
    }
}

/// Many tokio tasks save the same task with the same current version at once: exactly one
/// succeeds, every other fails with [`StoreError::Conflict`], and the store holds the
/// winner's copy at the winner's version. The race is run [`ROUNDS`] times, since one round
/// can miss a race window.
///
/// Takes an [`Arc`] rather than a reference, unlike the other checks, because the saves run
/// on spawned tokio tasks.
///
/// # Panics
/// When the store fails the check.
pub async fn concurrent_saves_on_one_version_have_exactly_one_winner(store: Arc<dyn TaskStore>) {
    let check = Check::new("concurrent_saves_on_one_version_have_exactly_one_winner");
    let scope = check.scope("acme", Some("alice"));
    let task = check.working("t");
    let mut version = check.create(store.as_ref(), &scope, &task).await;

    for round in 1..=ROUNDS {
        let base = with_metadata(&task, "round", round);
        let results = race(&check, &store, &scope, &base, Expected::Version(version)).await;
        let what = format!("saving in round {round}");
        let (revision, winning_version) = check.single_winner(results, &task.id, &what);
        check.ensure(
            winning_version > version,
            format!("{what}: the winner saved as {winning_version:?}, not after {version:?}"),
        );
        version = winning_version;
        let winner = revised(&base, revision);
        check
            .expect_stored(
                store.as_ref(),
                &scope,
                &winner,
                version,
                format!("after {what}"),
            )
            .await;
    }
}

/// Many tokio tasks create the same task at once: exactly one succeeds, every other fails
/// with [`StoreError::Conflict`], and the store holds the winner's copy. The race is run
/// [`ROUNDS`] times, on a new task id each time.
///
/// Takes an [`Arc`] rather than a reference, unlike the other checks, because the saves run
/// on spawned tokio tasks.
///
/// # Panics
/// When the store fails the check.
pub async fn concurrent_creates_of_one_task_have_exactly_one_winner(store: Arc<dyn TaskStore>) {
    let check = Check::new("concurrent_creates_of_one_task_have_exactly_one_winner");
    let scope = check.scope("acme", Some("alice"));

    for round in 1..=ROUNDS {
        let name = format!("t{round:02}");
        let task = check.task_in(&name, TaskState::Submitted);
        let results = race(&check, &store, &scope, &task, Expected::Absent).await;
        let what = format!("creating in round {round}");
        let (revision, version) = check.single_winner(results, &task.id, &what);
        let winner = revised(&task, revision);
        check
            .expect_stored(
                store.as_ref(),
                &scope,
                &winner,
                version,
                format!("after {what}"),
            )
            .await;
    }
}

/// Saves revision `n` of `task`, for `n` in `1..=RACERS`, each from its own tokio task, all
/// released together; returns each revision's result.
async fn race(
    check: &Check,
    store: &Arc<dyn TaskStore>,
    scope: &TaskScope,
    task: &Task,
    expected: Expected,
) -> Vec<(usize, Result<Version, StoreError>)> {
    let start = Arc::new(Barrier::new(RACERS));
    let mut racers = JoinSet::new();
    for revision in 1..=RACERS {
        let (store, scope, start) = (Arc::clone(store), scope.clone(), Arc::clone(&start));
        let task = revised(task, revision);
        racers.spawn(async move {
            start.wait().await;
            (
                revision,
                save_version(&*store, &scope, &task, expected, &[]).await,
            )
        });
    }
    let mut results = Vec::new();
    while let Some(joined) = racers.join_next().await {
        match joined {
            Ok(result) => results.push(result),
            Err(err) => check.fail(format!("a racing save panicked or was cancelled: {err}")),
        }
    }
    results
}
