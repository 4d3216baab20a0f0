//! The task store conformance suite: the behaviour every [`TaskStore`] must show,
//! as checks that each backend runs from its own tests.
//!
//! [`run`] runs every check of a [`TaskStore`] (compare-and-swap, scopes, list order and
//! paging, the event log), each on a fresh store; [`run_expiry`] checks the expiry of
//! terminal tasks on stores built with a short TTL, in real time; [`run_push`]
//! checks a [`PushConfigStore`], and [`run_delivery`] its delivery state beside a
//! [`TaskStore`]: claims, progress and their exclusivity across instances. Each
//! check is also a function of its own, so a backend can run one in isolation while it is
//! being fixed. A failing check panics with a message that names it.
//!
//! ```
//! use std::time::Duration;
//! use a2a_server::store::{
//!     InMemoryPushConfigStore, InMemoryTaskStore, InMemoryTaskStoreConfig, conformance,
//! };
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // In a backend's tests, under `#[tokio::test]`:
//! conformance::run(|| async { InMemoryTaskStore::new() }).await;
//! conformance::run_expiry(|ttl: Duration| async move {
//!     InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
//!         completed_task_ttl: ttl,
//!         ..InMemoryTaskStoreConfig::default()
//!     })
//! })
//! .await;
//! conformance::run_push(|| async { InMemoryPushConfigStore::new() }).await;
//! conformance::run_delivery(|| async {
//!     (InMemoryTaskStore::new(), InMemoryPushConfigStore::new())
//! })
//! .await;
//! # }
//! ```

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::error::Error;
use std::fmt::{self, Debug, Display};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_types::{
    Artifact, ContextId, Message, Metadata, Part, PushConfigId, Role, StreamResponse, Task,
    TaskArtifactUpdateEvent, TaskId, TaskPushNotificationConfig, TaskState, TaskStatus,
    TaskStatusUpdateEvent, Timestamp,
};
use serde_json::json;
use tokio::sync::Barrier;
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until};

use super::query::sort_millis;
use super::{
    ClaimedWebhook, DeliveryProgress, Expected, PushConfigStore, Saved, StoreError, StoredTask,
    TaskEvent, TaskPage, TaskQuery, TaskScope, TaskStore, Version,
};

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
}

/// `load` of an unknown id returns `None`; after `save` with [`Expected::Absent`], `load`
/// returns the task as saved with the version that `save` returned.
///
/// # Panics
/// When the store fails the check.
pub async fn create_then_load_returns_the_task_and_its_version(store: &dyn TaskStore) {
    let check = Check::new("create_then_load_returns_the_task_and_its_version");
    let scope = check.scope("acme", Some("alice"));
    let task = check.task("t", TaskState::Submitted, Some("2025-01-01T10:00:00.000Z"));

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
    let task = check.task("t", TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
    let version = check.create(store, &scope, &task).await;

    let again = revised(&task, 1);
    let result = store
        .save(&scope, &again, Expected::Absent, &[])
        .await
        .map(|saved| saved.version);
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
    let task = check.task("t", TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
    let version = check.create(store, &home, &task).await;

    for other in [
        check.scope("acme", Some("bob")),
        check.scope("acme", None),
        check.scope("globex", Some("alice")),
    ] {
        let result = store
            .save(&other, &revised(&task, 1), Expected::Absent, &[])
            .await
            .map(|saved| saved.version);
        check.expect_conflict(
            result,
            &task.id,
            format!("creating the task under {other:?}"),
        );
        check
            .expect_absent(store, &other, &task.id, format!("under {other:?}"))
            .await;
    }
    check
        .expect_stored(store, &home, &task, version, "in its own scope")
        .await;
}

/// `save` with the current version succeeds and returns a greater version, every time; the
/// new copy is what `load` returns.
///
/// # Panics
/// When the store fails the check.
pub async fn saving_with_the_current_version_returns_a_greater_version(store: &dyn TaskStore) {
    let check = Check::new("saving_with_the_current_version_returns_a_greater_version");
    let scope = check.scope("acme", Some("alice"));
    let task = check.task("t", TaskState::Submitted, Some("2025-01-01T10:00:00.000Z"));
    let mut version = check.create(store, &scope, &task).await;

    for revision in 1..=3 {
        let next = revised(&task, revision);
        let saved = check.ok(
            store
                .save(&scope, &next, Expected::Version(version), &[])
                .await
                .map(|saved| saved.version),
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
    let task = check.task("t", TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
    let first = check.create(store, &scope, &task).await;
    let current = revised(&task, 1);
    let second = check.ok(
        store
            .save(&scope, &current, Expected::Version(first), &[])
            .await
            .map(|saved| saved.version),
        "saving revision 1 with the current version",
    );

    let result = store
        .save(&scope, &revised(&task, 2), Expected::Version(first), &[])
        .await
        .map(|saved| saved.version);
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
    let other = check.task(
        "other",
        TaskState::Working,
        Some("2025-01-01T10:00:00.000Z"),
    );
    let version = check.create(store, &scope, &other).await;

    let task = check.task("t", TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
    let result = store
        .save(&scope, &task, Expected::Version(version), &[])
        .await
        .map(|saved| saved.version);
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
    let task = check.task("t", TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
    let version = check.create(store, &home, &task).await;

    for other in [
        check.scope("acme", Some("bob")),
        check.scope("globex", None),
    ] {
        let result = store
            .save(&other, &revised(&task, 1), Expected::Version(version), &[])
            .await
            .map(|saved| saved.version);
        check.expect_not_found(result, &task.id, format!("saving the task under {other:?}"));
        check
            .expect_absent(store, &other, &task.id, format!("under {other:?}"))
            .await;
    }
    check
        .expect_stored(store, &home, &task, version, "in its own scope")
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
    let owned = check.task(
        "owned",
        TaskState::Working,
        Some("2025-01-01T10:00:00.000Z"),
    );
    let owned_version = check.create(store, &owned_scope, &owned).await;
    let shared_scope = check.scope("acme", None);
    let shared = check.task(
        "shared",
        TaskState::Working,
        Some("2025-01-01T10:00:00.000Z"),
    );
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

/// `list` returns exactly the tasks of the scope it is asked for, and counts only those.
///
/// # Panics
/// When the store fails the check.
pub async fn list_never_returns_tasks_of_other_scopes(store: &dyn TaskStore) {
    let check = Check::new("list_never_returns_tasks_of_other_scopes");
    let scopes = [
        check.scope("acme", Some("alice")),
        check.scope("acme", Some("bob")),
        check.scope("acme", None),
        check.scope("globex", Some("alice")),
    ];
    let mut expected: Vec<Vec<TaskId>> = vec![Vec::new(); scopes.len()];
    for n in 0..12 {
        let index = n % scopes.len();
        let task = check.task(
            &format!("t{n:02}"),
            TaskState::Working,
            Some("2025-01-01T10:00:00.000Z"),
        );
        check.create(store, &scopes[index], &task).await;
        expected[index].push(task.id);
    }

    for (scope, mut ids) in scopes.iter().zip(expected) {
        ids.sort_by(|a, b| b.cmp(a));
        let page = check.list(store, scope, &TaskQuery::default()).await;
        check.expect_ids(&page, &ids, format!("listing {scope:?}"));
        check.ensure_eq(
            &page.total_size,
            &ids.len(),
            format!("total_size of {scope:?}"),
        );
    }
    let empty = check.scope("initech", Some("alice"));
    let page = check.list(store, &empty, &TaskQuery::default()).await;
    check.expect_ids(&page, &[], "listing a tenant without tasks");
}

/// `list` orders by status timestamp, newest first, then by task id, descending; a task
/// without a timestamp sorts as the Unix epoch, so last.
///
/// # Panics
/// When the store fails the check.
pub async fn list_orders_by_status_timestamp_then_task_id_descending(store: &dyn TaskStore) {
    let check = Check::new("list_orders_by_status_timestamp_then_task_id_descending");
    let scope = check.scope("acme", Some("alice"));
    // Saved out of order, with ties on the timestamp that only the id breaks.
    let tasks = [
        ("c", Some("2025-01-01T10:00:02.000Z")),
        ("a", Some("2025-01-01T10:00:01.000Z")),
        ("e", None),
        ("b", Some("2025-01-01T10:00:03.000Z")),
        ("d", Some("2025-01-01T10:00:02.000Z")),
        ("f", Some("2025-01-01T10:00:03.000Z")),
        ("g", Some("2025-01-01T09:59:59.999Z")),
    ];
    for (name, timestamp) in tasks {
        check
            .create(
                store,
                &scope,
                &check.task(name, TaskState::Working, timestamp),
            )
            .await;
    }

    let expected = check.ids(&["f", "b", "d", "c", "a", "g", "e"]);
    let page = check.list(store, &scope, &TaskQuery::default()).await;
    check.expect_ids(&page, &expected, "listing every task");
}

/// `list` with a context id returns only that context's tasks, and counts only those.
///
/// # Panics
/// When the store fails the check.
pub async fn list_filters_by_context_id(store: &dyn TaskStore) {
    let check = Check::new("list_filters_by_context_id");
    let scope = check.scope("acme", Some("alice"));
    for (name, context) in [("a", "red"), ("b", "blue"), ("c", "red"), ("d", "green")] {
        let mut task = check.task(name, TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
        task.context_id = ContextId::new(context);
        check.create(store, &scope, &task).await;
    }

    let query = TaskQuery {
        context_id: Some(ContextId::new("red")),
        ..TaskQuery::default()
    };
    let page = check.list(store, &scope, &query).await;
    check.expect_ids(&page, &check.ids(&["c", "a"]), "listing context red");
    check.ensure_eq(&page.total_size, &2, "total_size of context red");

    let query = TaskQuery {
        context_id: Some(ContextId::new("yellow")),
        ..TaskQuery::default()
    };
    let page = check.list(store, &scope, &query).await;
    check.expect_ids(&page, &[], "listing a context without tasks");
    check.ensure_eq(
        &page.total_size,
        &0,
        "total_size of a context without tasks",
    );
}

/// `list` with one state, or several, returns only tasks in one of them; with none it
/// returns every task.
///
/// # Panics
/// When the store fails the check.
pub async fn list_filters_by_one_or_several_states(store: &dyn TaskStore) {
    let check = Check::new("list_filters_by_one_or_several_states");
    let scope = check.scope("acme", Some("alice"));
    for (name, state) in [
        ("a", TaskState::Submitted),
        ("b", TaskState::Working),
        ("c", TaskState::Completed),
        ("d", TaskState::InputRequired),
        ("e", TaskState::Failed),
        ("f", TaskState::Completed),
        ("g", TaskState::Canceled),
    ] {
        let task = check.task(name, state, Some("2025-01-01T10:00:00.000Z"));
        check.create(store, &scope, &task).await;
    }

    let cases: [(&[TaskState], &[&str]); 4] = [
        (&[TaskState::Completed], &["f", "c"]),
        (&[TaskState::Working, TaskState::InputRequired], &["d", "b"]),
        (&[TaskState::Rejected], &[]),
        (&[], &["g", "f", "e", "d", "c", "b", "a"]),
    ];
    for (states, names) in cases {
        let query = TaskQuery {
            states: states.to_vec(),
            ..TaskQuery::default()
        };
        let page = check.list(store, &scope, &query).await;
        let expected = check.ids(names);
        check.expect_ids(&page, &expected, format!("listing states {states:?}"));
        check.ensure_eq(
            &page.total_size,
            &expected.len(),
            format!("total_size of {states:?}"),
        );
    }
}

/// `list` with `status_timestamp_after` returns tasks stamped at or after that instant
/// (inclusive, as the proto defines it despite the name), and no task without a timestamp.
///
/// # Panics
/// When the store fails the check.
pub async fn list_status_timestamp_after_is_inclusive(store: &dyn TaskStore) {
    let check = Check::new("list_status_timestamp_after_is_inclusive");
    let scope = check.scope("acme", Some("alice"));
    for (name, timestamp) in [
        ("a", Some("2025-01-01T10:00:00.000Z")),
        ("b", Some("2025-01-01T10:00:00.001Z")),
        ("c", Some("2025-01-01T10:00:01.000Z")),
        ("d", None),
        ("e", Some("2025-01-01T09:00:00.000Z")),
    ] {
        check
            .create(
                store,
                &scope,
                &check.task(name, TaskState::Working, timestamp),
            )
            .await;
    }

    let query = TaskQuery {
        status_timestamp_after: Some(timestamp("2025-01-01T10:00:00.001Z")),
        ..TaskQuery::default()
    };
    let page = check.list(store, &scope, &query).await;
    check.expect_ids(&page, &check.ids(&["c", "b"]), "listing after 10:00:00.001");
    check.ensure_eq(&page.total_size, &2, "total_size after 10:00:00.001");
}

/// Following `next` cursors from the first page visits every matching task exactly once, in
/// list order, for page sizes from 1 to more than the number of matches; every page holds
/// `page_size` tasks but the last, carries the same `total_size`, and only the last has no
/// `next`. Ties on the timestamp fall on page boundaries, and non-matching tasks are
/// interleaved.
///
/// # Panics
/// When the store fails the check.
pub async fn paging_visits_every_matching_task_exactly_once(store: &dyn TaskStore) {
    let check = Check::new("paging_visits_every_matching_task_exactly_once");
    let scope = check.scope("acme", Some("alice"));
    let mut matching = Vec::new();
    for n in 0..35_u32 {
        let stamp = (n % 3 != 2).then(|| format!("2025-01-01T10:00:{:02}.000Z", n % 5));
        let mut task = check.task(&format!("t{n:02}"), TaskState::Working, stamp.as_deref());
        if n % 4 == 3 {
            task.context_id = ContextId::new("elsewhere");
        } else {
            matching.push(task.clone());
        }
        check.create(store, &scope, &task).await;
    }
    matching.sort_by(list_order);
    let expected: Vec<TaskId> = matching.into_iter().map(|task| task.id).collect();
    let total = expected.len();

    for page_size in [1, 2, 3, 5, total - 1, total, total + 1, 100] {
        let mut query = TaskQuery {
            context_id: Some(ContextId::new("context")),
            page_size,
            ..TaskQuery::default()
        };
        let mut seen: Vec<TaskId> = Vec::new();
        for page_number in 1.. {
            let what = format!("page {page_number} of size {page_size}");
            if page_number > total + 1 {
                check.fail(format!("{what}: paging does not end"));
            }
            let page = check.list(store, &scope, &query).await;
            check.ensure_eq(&page.total_size, &total, format!("total_size on {what}"));
            seen.extend(page.tasks.iter().map(|task| task.id.clone()));
            match page.next {
                Some(cursor) => {
                    check.ensure_eq(&page.tasks.len(), &page_size, format!("length of {what}"));
                    query.after = Some(cursor);
                }
                None => {
                    check.ensure(
                        !page.tasks.is_empty() && page.tasks.len() <= page_size,
                        format!("{what} is the last, with {} tasks", page.tasks.len()),
                    );
                    break;
                }
            }
        }
        check.ensure_eq(
            &seen,
            &expected,
            format!("tasks visited with pages of {page_size}"),
        );
    }
}

/// A page that ends exactly at the last matching task has no `next`, so a client does not
/// fetch an empty page.
///
/// # Panics
/// When the store fails the check.
pub async fn the_last_page_has_no_next_cursor(store: &dyn TaskStore) {
    let check = Check::new("the_last_page_has_no_next_cursor");
    let scope = check.scope("acme", Some("alice"));
    for name in ["a", "b", "c", "d"] {
        let task = check.task(name, TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
        check.create(store, &scope, &task).await;
    }

    let query = TaskQuery {
        page_size: 4,
        ..TaskQuery::default()
    };
    let page = check.list(store, &scope, &query).await;
    check.expect_ids(
        &page,
        &check.ids(&["d", "c", "b", "a"]),
        "a page of exactly all tasks",
    );
    check.ensure_eq(&page.next, &None, "next of a page of exactly all tasks");

    let query = TaskQuery {
        page_size: 2,
        ..TaskQuery::default()
    };
    let first = check.list(store, &scope, &query).await;
    check.expect_ids(&first, &check.ids(&["d", "c"]), "first page of two");
    let Some(cursor) = first.next else {
        check.fail("the first of two full pages has no next cursor");
    };
    let query = TaskQuery {
        after: Some(cursor),
        ..query
    };
    let second = check.list(store, &scope, &query).await;
    check.expect_ids(&second, &check.ids(&["b", "a"]), "second page of two");
    check.ensure_eq(&second.next, &None, "next of the second of two full pages");
    check.ensure_eq(&second.total_size, &4, "total_size on the second page");
}

/// `list` on an empty store returns no tasks, a `total_size` of 0 and no `next`, with or
/// without filters.
///
/// # Panics
/// When the store fails the check.
pub async fn an_empty_store_lists_an_empty_page(store: &dyn TaskStore) {
    let check = Check::new("an_empty_store_lists_an_empty_page");
    let scope = check.scope("acme", Some("alice"));
    let filtered = TaskQuery {
        context_id: Some(ContextId::new("context")),
        states: vec![TaskState::Working],
        status_timestamp_after: Some(timestamp("2025-01-01T10:00:00.000Z")),
        page_size: 1,
        after: None,
    };
    for (query, what) in [(TaskQuery::default(), "no filter"), (filtered, "filters")] {
        let page = check.list(store, &scope, &query).await;
        check.ensure_eq(&page, &TaskPage::default(), format!("listing with {what}"));
    }
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
        store
            .save(&scope, &updated, Expected::Version(version), &[])
            .await
            .map(|saved| saved.version),
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
    let task = check.task("t", TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
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
        let task = check.task(
            &name,
            TaskState::Submitted,
            Some("2025-01-01T10:00:00.000Z"),
        );
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

/// `save` appends its events to the task's log numbered on from the last one, the first
/// event of a task being 1; it returns the last sequence number, which `load` reports too.
/// A save without events leaves the log as it was.
///
/// # Panics
/// When the store fails the check.
pub async fn saves_append_events_numbered_on_from_one(store: &dyn TaskStore) {
    let check = Check::new("saves_append_events_numbered_on_from_one");
    let scope = check.scope("acme", Some("alice"));
    let task = check.task("t", TaskState::Submitted, Some("2025-01-01T10:00:00.000Z"));
    let mut logged = Check::events(&task, 0..2);

    let saved = check
        .save(
            store,
            &scope,
            &task,
            Expected::Absent,
            &logged,
            "creating with 2 events",
        )
        .await;
    check.ensure_eq(
        &saved.last_sequence,
        &2,
        "last sequence after creating with 2 events",
    );
    let stored = check.load(store, &scope, &task.id, "after creating").await;
    check.ensure_eq(
        &stored.last_sequence,
        &2,
        "last sequence loaded after creating",
    );

    let working = with_state(&task, TaskState::Working);
    let more = Check::events(&working, 2..5);
    let saved = check
        .save(
            store,
            &scope,
            &working,
            Expected::Version(saved.version),
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
        .save(
            store,
            &scope,
            &working,
            Expected::Version(saved.version),
            &[],
            "saving none",
        )
        .await;
    check.ensure_eq(
        &saved.last_sequence,
        &5,
        "last sequence after a save without events",
    );
    let stored = check
        .load(store, &scope, &task.id, "after three saves")
        .await;
    check.ensure_eq(
        &stored.last_sequence,
        &5,
        "last sequence loaded after three saves",
    );

    let expected: Vec<TaskEvent> = (1..)
        .zip(logged)
        .map(|(sequence, response)| TaskEvent { sequence, response })
        .collect();
    check
        .expect_events(
            store,
            &scope,
            &task.id,
            (0, usize::MAX),
            &expected,
            "the whole log",
        )
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
    let task = check.task("t", TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
    let logged = Check::events(&task, 0..6);
    check
        .save(
            store,
            &scope,
            &task,
            Expected::Absent,
            &logged,
            "creating with 6 events",
        )
        .await;
    let numbered: Vec<TaskEvent> = (1..)
        .zip(logged)
        .map(|(sequence, response)| TaskEvent { sequence, response })
        .collect();

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
    let task = check.task("t", TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
    let logged = Check::events(&task, 0..2);
    let first = check
        .save(
            store,
            &scope,
            &task,
            Expected::Absent,
            &logged[..1],
            "creating",
        )
        .await;
    let second = check
        .save(
            store,
            &scope,
            &task,
            Expected::Version(first.version),
            &logged[1..],
            "saving",
        )
        .await;

    let refused = Check::events(&task, 10..13);
    let result = store
        .save(
            &scope,
            &revised(&task, 1),
            Expected::Version(first.version),
            &refused,
        )
        .await
        .map(|saved| saved.version);
    check.expect_conflict(result, &task.id, "saving with a stale version");
    let result = store
        .save(&scope, &revised(&task, 2), Expected::Absent, &refused)
        .await
        .map(|saved| saved.version);
    check.expect_conflict(result, &task.id, "creating the task again");
    let other = check.scope("acme", Some("bob"));
    let result = store
        .save(
            &other,
            &revised(&task, 3),
            Expected::Version(second.version),
            &refused,
        )
        .await
        .map(|saved| saved.version);
    check.expect_not_found(result, &task.id, "saving under another owner");

    let expected: Vec<TaskEvent> = (1..)
        .zip(logged)
        .map(|(sequence, response)| TaskEvent { sequence, response })
        .collect();
    check
        .expect_events(
            store,
            &scope,
            &task.id,
            (0, usize::MAX),
            &expected,
            "after the refusals",
        )
        .await;
    let stored = check
        .load(store, &scope, &task.id, "after the refusals")
        .await;
    check.ensure_eq(
        &stored.last_sequence,
        &2,
        "last sequence after the refusals",
    );
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
    let task = check.task("t", TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
    let logged = Check::events(&task, 0..2);
    check
        .save(store, &scope, &task, Expected::Absent, &logged, "creating")
        .await;

    for other in [
        check.scope("acme", Some("bob")),
        check.scope("acme", None),
        check.scope("globex", Some("alice")),
    ] {
        let found = check.ok(
            store.events(&other, &task.id, 0, 10).await,
            format!("reading the events under {other:?}"),
        );
        check.ensure_eq(&found, &None, format!("the events under {other:?}"));
    }
    let missing = check.id("missing");
    let found = check.ok(
        store.events(&scope, &missing, 0, 10).await,
        "reading the events of a task that was never saved",
    );
    check.ensure_eq(&found, &None, "the events of a task that was never saved");
}

/// The TTL of the stores [`run_expiry`] makes: long enough that a loaded machine does not
/// blur "before" and "after", short enough to keep the checks near 2 s in all.
pub const EXPIRY_TTL: Duration = Duration::from_millis(1000);

/// How long past an expiry the expiry checks wait before they expect a task gone.
const EXPIRY_MARGIN: Duration = Duration::from_millis(250);

/// Runs the expiry checks, each on a store fresh from `make_store`, which gets the
/// completed-task TTL to build it with ([`EXPIRY_TTL`], or zero for "never"). The checks run
/// together and wait in real time (about 2 s in all), so stores must use a real clock: no
/// paused tokio time.
///
/// # Panics
/// When the store fails a check; the message names the check.
pub async fn run_expiry<S, F, Fut>(make_store: F)
where
    F: Fn(Duration) -> Fut,
    Fut: Future<Output = S>,
    S: TaskStore,
{
    let (vanish, no_extension, from_terminal, zero) = (
        make_store(EXPIRY_TTL).await,
        make_store(EXPIRY_TTL).await,
        make_store(EXPIRY_TTL).await,
        make_store(Duration::ZERO).await,
    );
    tokio::join!(
        terminal_tasks_vanish_after_the_ttl_and_others_stay(&vanish),
        saving_a_terminal_task_again_does_not_extend_its_life(&no_extension),
        the_ttl_runs_from_the_save_that_made_the_task_terminal(&from_terminal),
        a_zero_ttl_keeps_terminal_tasks(&zero),
    );
}

/// One [`EXPIRY_TTL`] after they were saved, tasks in every terminal state are gone from
/// `load`, `list`, `events` and versioned `save` (NotFound), while tasks in every other state
/// stay; the id of an expired task can be created again, with a greater version and a new
/// event log.
///
/// # Panics
/// When the store fails the check.
pub async fn terminal_tasks_vanish_after_the_ttl_and_others_stay(store: &dyn TaskStore) {
    let check = Check::new("terminal_tasks_vanish_after_the_ttl_and_others_stay");
    let scope = check.scope("acme", Some("alice"));
    let terminal = [
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::Rejected,
    ];
    let running = [
        TaskState::Submitted,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::AuthRequired,
    ];
    let started = Instant::now();
    let mut saved = Vec::new();
    for state in terminal.into_iter().chain(running) {
        let task = check.task(
            &format!("{state:?}"),
            state,
            Some("2025-01-01T10:00:00.000Z"),
        );
        let events = Check::events(&task, 0..1);
        let version = check
            .save(
                store,
                &scope,
                &task,
                Expected::Absent,
                &events,
                format!("creating {state:?}"),
            )
            .await;
        saved.push((task, version));
    }
    let page = check.list(store, &scope, &TaskQuery::default()).await;
    check.ensure_eq(&page.total_size, &8, "tasks listed before the TTL");

    sleep_until(started + EXPIRY_TTL + EXPIRY_MARGIN).await;
    for (task, saved) in &saved {
        let state = task.status.state;
        if state.is_terminal() {
            check
                .expect_absent(store, &scope, &task.id, format!("{state:?} after the TTL"))
                .await;
            let events = check.ok(
                store.events(&scope, &task.id, 0, 10).await,
                format!("reading the events of {state:?} after the TTL"),
            );
            check.ensure_eq(
                &events,
                &None,
                format!("the events of {state:?} after the TTL"),
            );
            let result = store
                .save(&scope, task, Expected::Version(saved.version), &[])
                .await
                .map(|saved| saved.version);
            check.expect_not_found(result, &task.id, format!("saving {state:?} after the TTL"));
        } else {
            check
                .load(store, &scope, &task.id, format!("{state:?} after the TTL"))
                .await;
        }
    }
    let page = check.list(store, &scope, &TaskQuery::default()).await;
    let mut expected: Vec<Task> = saved
        .iter()
        .map(|(task, _)| task.clone())
        .filter(|task| !task.status.state.is_terminal())
        .collect();
    expected.sort_by(list_order);
    let expected: Vec<TaskId> = expected.into_iter().map(|task| task.id).collect();
    check.expect_ids(&page, &expected, "listing after the TTL");
    check.ensure_eq(&page.total_size, &4, "tasks counted after the TTL");

    let (old, old_saved) = &saved[0];
    let again = with_state(old, TaskState::Working);
    let events = Check::events(&again, 5..6);
    let created = check
        .save(
            store,
            &scope,
            &again,
            Expected::Absent,
            &events,
            "creating an expired id again",
        )
        .await;
    check.ensure(
        created.version > old_saved.version,
        format!(
            "the new task's version {:?} is not greater than the expired one's {:?}",
            created.version, old_saved.version
        ),
    );
    let expected = [TaskEvent {
        sequence: 1,
        response: events[0].clone(),
    }];
    check
        .expect_events(
            store,
            &scope,
            &again.id,
            (0, 10),
            &expected,
            "the new task's log",
        )
        .await;
}

/// A terminal task saved again (still terminal) expires one TTL after the save that made it
/// terminal, not after the latest save.
///
/// # Panics
/// When the store fails the check.
pub async fn saving_a_terminal_task_again_does_not_extend_its_life(store: &dyn TaskStore) {
    let check = Check::new("saving_a_terminal_task_again_does_not_extend_its_life");
    let scope = check.scope("acme", None);
    let started = Instant::now();
    let task = check.task("t", TaskState::Completed, Some("2025-01-01T10:00:00.000Z"));
    let saved = check
        .save(
            store,
            &scope,
            &task,
            Expected::Absent,
            &[],
            "creating it completed",
        )
        .await;
    sleep_until(started + EXPIRY_TTL / 2).await;
    let canceled = with_state(&task, TaskState::Canceled);
    check
        .save(
            store,
            &scope,
            &canceled,
            Expected::Version(saved.version),
            &[],
            "saving it again",
        )
        .await;
    sleep_until(started + EXPIRY_TTL + EXPIRY_MARGIN).await;
    check
        .expect_absent(store, &scope, &task.id, "one TTL after it became terminal")
        .await;
}

/// A task created running and made terminal later expires one TTL after it became
/// terminal: it is still there one TTL after its creation.
///
/// # Panics
/// When the store fails the check.
pub async fn the_ttl_runs_from_the_save_that_made_the_task_terminal(store: &dyn TaskStore) {
    let check = Check::new("the_ttl_runs_from_the_save_that_made_the_task_terminal");
    let scope = check.scope("acme", Some("alice"));
    let started = Instant::now();
    let task = check.task("t", TaskState::Working, Some("2025-01-01T10:00:00.000Z"));
    let saved = check
        .save(
            store,
            &scope,
            &task,
            Expected::Absent,
            &[],
            "creating it working",
        )
        .await;
    sleep_until(started + EXPIRY_TTL / 2).await;
    let terminal_at = Instant::now();
    let completed = with_state(&task, TaskState::Completed);
    check
        .save(
            store,
            &scope,
            &completed,
            Expected::Version(saved.version),
            &[],
            "completing it",
        )
        .await;
    sleep_until(started + EXPIRY_TTL + EXPIRY_MARGIN).await;
    if terminal_at.elapsed() + EXPIRY_MARGIN < EXPIRY_TTL {
        check
            .load(store, &scope, &task.id, "one TTL after its creation")
            .await;
    }
    sleep_until(terminal_at + EXPIRY_TTL + EXPIRY_MARGIN).await;
    check
        .expect_absent(store, &scope, &task.id, "one TTL after it became terminal")
        .await;
}

/// With a zero TTL, terminal tasks stay (expiry is off).
///
/// # Panics
/// When the store fails the check.
pub async fn a_zero_ttl_keeps_terminal_tasks(store: &dyn TaskStore) {
    let check = Check::new("a_zero_ttl_keeps_terminal_tasks");
    let scope = check.scope("acme", None);
    let started = Instant::now();
    let task = check.task("t", TaskState::Completed, Some("2025-01-01T10:00:00.000Z"));
    check
        .save(
            store,
            &scope,
            &task,
            Expected::Absent,
            &[],
            "creating it completed",
        )
        .await;
    sleep_until(started + EXPIRY_TTL + EXPIRY_MARGIN).await;
    check
        .load(store, &scope, &task.id, "well after it became terminal")
        .await;
}

/// Runs every push-config check, each on a store fresh from `make_store`.
///
/// # Panics
/// When the store fails a check; the message names the check.
pub async fn run_push<S, F, Fut>(make_store: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = S>,
    S: PushConfigStore,
{
    push_configs_are_created_read_replaced_and_deleted(&make_store().await).await;
    push_configs_are_listed_by_id(&make_store().await).await;
    a_task_holds_at_most_the_limit_and_replacing_does_not_count(&make_store().await).await;
    push_configs_are_invisible_to_other_scopes_and_tasks(&make_store().await).await;
}

/// A saved config comes back from `get` and `list` as saved; saving its id again replaces
/// it; `delete` removes it (true) and then finds nothing (false).
///
/// # Panics
/// When the store fails the check.
pub async fn push_configs_are_created_read_replaced_and_deleted(store: &dyn PushConfigStore) {
    let check = Check::new("push_configs_are_created_read_replaced_and_deleted");
    let scope = check.scope("acme", Some("alice"));
    let task_id = check.id("t");
    let config = Check::push_config(&task_id, "hook", "https://example.com/a");
    check
        .save_config(store, &scope, &config, 10, "creating")
        .await;
    check
        .expect_configs(store, &scope, &task_id, &[&config], "after creating")
        .await;
    check
        .expect_config(
            store,
            &scope,
            &task_id,
            "hook",
            Some(&config),
            "after creating",
        )
        .await;

    let mut replacement = Check::push_config(&task_id, "hook", "https://example.com/b");
    replacement.token = Some("secret-token".to_owned());
    check
        .save_config(store, &scope, &replacement, 10, "replacing")
        .await;
    check
        .expect_configs(store, &scope, &task_id, &[&replacement], "after replacing")
        .await;
    check
        .expect_config(
            store,
            &scope,
            &task_id,
            "hook",
            Some(&replacement),
            "after replacing",
        )
        .await;

    let id = PushConfigId::new("hook");
    let deleted = check.ok(
        store.delete_push_config(&scope, &task_id, &id).await,
        "deleting the config",
    );
    check.ensure(deleted, "deleting a stored config returned false");
    check
        .expect_config(store, &scope, &task_id, "hook", None, "after deleting")
        .await;
    check
        .expect_configs(store, &scope, &task_id, &[], "after deleting")
        .await;
    let deleted = check.ok(
        store.delete_push_config(&scope, &task_id, &id).await,
        "deleting the config again",
    );
    check.ensure(!deleted, "deleting a config that is gone returned true");
}

/// `list` returns a task's configs ordered by id (byte order), whatever the order they were
/// saved in.
///
/// # Panics
/// When the store fails the check.
pub async fn push_configs_are_listed_by_id(store: &dyn PushConfigStore) {
    let check = Check::new("push_configs_are_listed_by_id");
    let scope = check.scope("acme", None);
    let task_id = check.id("t");
    let configs: Vec<TaskPushNotificationConfig> = ["b", "c", "a", "aa", "B", "a-1"]
        .iter()
        .map(|id| Check::push_config(&task_id, id, &format!("https://example.com/{id}")))
        .collect();
    for config in &configs {
        check.save_config(store, &scope, config, 10, "saving").await;
    }
    let mut expected: Vec<&TaskPushNotificationConfig> = configs.iter().collect();
    expected.sort_by(|a, b| a.id.cmp(&b.id));
    check
        .expect_configs(store, &scope, &task_id, &expected, "all six")
        .await;
}

/// Saving a new config for a task that holds `max_per_task` fails with
/// [`StoreError::Limit`] and stores nothing; replacing one of them is not a new one; after a
/// delete there is room again.
///
/// # Panics
/// When the store fails the check.
pub async fn a_task_holds_at_most_the_limit_and_replacing_does_not_count(
    store: &dyn PushConfigStore,
) {
    let check = Check::new("a_task_holds_at_most_the_limit_and_replacing_does_not_count");
    let scope = check.scope("acme", Some("alice"));
    let task_id = check.id("t");
    let (a, b, c) = (
        Check::push_config(&task_id, "a", "https://example.com/a"),
        Check::push_config(&task_id, "b", "https://example.com/b"),
        Check::push_config(&task_id, "c", "https://example.com/c"),
    );
    check
        .save_config(store, &scope, &a, 2, "saving the first")
        .await;
    check
        .save_config(store, &scope, &b, 2, "saving the second")
        .await;
    let a2 = Check::push_config(&task_id, "a", "https://example.com/a2");
    check
        .save_config(store, &scope, &a2, 2, "replacing one at the limit")
        .await;

    match store.save_push_config(&scope, &task_id, &c, 2, 0).await {
        Err(StoreError::Limit { .. }) => {}
        Ok(()) => check.fail("a third config was stored with a limit of 2"),
        Err(err) => check.fail(format!("a third config: {}, expected Limit", Chain(&err))),
    }
    check
        .expect_configs(store, &scope, &task_id, &[&a2, &b], "after the refusal")
        .await;

    let deleted = check.ok(
        store
            .delete_push_config(&scope, &task_id, &PushConfigId::new("b"))
            .await,
        "deleting one",
    );
    check.ensure(deleted, "deleting a stored config returned false");
    check
        .save_config(store, &scope, &c, 2, "saving after a delete")
        .await;
    check
        .expect_configs(store, &scope, &task_id, &[&a2, &c], "after the delete")
        .await;
}

/// A config is only visible under the scope and task it was saved for: `get`, `list` and
/// `delete` under another owner, tenant, no owner, or another task find nothing, and
/// another scope's configs do not count toward the limit.
///
/// # Panics
/// When the store fails the check.
pub async fn push_configs_are_invisible_to_other_scopes_and_tasks(store: &dyn PushConfigStore) {
    let check = Check::new("push_configs_are_invisible_to_other_scopes_and_tasks");
    let scope = check.scope("acme", Some("alice"));
    let task_id = check.id("t");
    let config = Check::push_config(&task_id, "hook", "https://example.com/a");
    check.save_config(store, &scope, &config, 1, "saving").await;

    let id = PushConfigId::new("hook");
    for other in [
        check.scope("acme", Some("bob")),
        check.scope("acme", None),
        check.scope("globex", Some("alice")),
    ] {
        check
            .expect_config(store, &other, &task_id, "hook", None, format!("{other:?}"))
            .await;
        check
            .expect_configs(store, &other, &task_id, &[], format!("{other:?}"))
            .await;
        let deleted = check.ok(
            store.delete_push_config(&other, &task_id, &id).await,
            format!("deleting under {other:?}"),
        );
        check.ensure(
            !deleted,
            format!("deleting under {other:?} found the config"),
        );
        let theirs = Check::push_config(&task_id, "theirs", "https://example.com/theirs");
        check
            .save_config(
                store,
                &other,
                &theirs,
                1,
                format!("saving one under {other:?}"),
            )
            .await;
    }
    let other_task = check.id("other");
    check
        .expect_configs(store, &scope, &other_task, &[], "another task")
        .await;
    check
        .expect_config(store, &scope, &other_task, "hook", None, "another task")
        .await;
    check
        .expect_configs(store, &scope, &task_id, &[&config], "its own scope")
        .await;
}

/// Runs the push-delivery checks, each on stores fresh from `make_stores`, which
/// returns a task store and the push-config store beside it (one value twice for a store
/// that is both, such as a SQL store). The checks work as the delivery engine does: they
/// register configs with `deliver_after` at the task's log end (0 before the task exists),
/// and log events through [`TaskStore::save`], then [`PushConfigStore::events_logged`] with
/// the log's new end.
///
/// A claim is not scoped: it takes any due webhook of the store. So the stores must hold no
/// due webhook but the checks' own while they run (fresh stores, or a database that only
/// these checks write to meanwhile); each check deletes its configs when it ends. Times are
/// Unix milliseconds from the system clock, moved forward by the checks themselves to pass
/// claims and backoffs: nothing waits. The concurrency check spawns tokio tasks: call this
/// from a tokio runtime, a multi-threaded one to exercise real parallelism.
///
/// # Panics
/// When the store fails a check; the message names the check.
pub async fn run_delivery<T, P, F, Fut>(make_stores: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = (T, P)>,
    T: TaskStore,
    P: PushConfigStore,
{
    let (tasks, push) = make_stores().await;
    a_new_config_is_claimed_once_its_task_logs_past_deliver_after(&tasks, &push).await;
    let (tasks, push) = make_stores().await;
    a_claimed_webhook_is_not_claimed_again_until_its_claim_passes(&tasks, &push).await;
    let (tasks, push) = make_stores().await;
    only_the_claim_holder_records_progress(&tasks, &push).await;
    let (tasks, push) = make_stores().await;
    released_progress_is_what_the_next_claim_sees(&tasks, &push).await;
    let (tasks, push) = make_stores().await;
    a_future_next_attempt_defers_the_claim(&tasks, &push).await;
    let (tasks, push) = make_stores().await;
    replacing_a_config_keeps_its_progress_and_claim(&tasks, &push).await;
    let (tasks, push) = make_stores().await;
    deleting_a_config_stops_its_deliveries(&tasks, &push).await;
    let (tasks, push) = make_stores().await;
    claims_honour_the_limit(&tasks, &push).await;
    let (tasks, push) = make_stores().await;
    concurrent_claims_never_hand_one_webhook_to_two_instances(Arc::new(tasks), Arc::new(push))
        .await;
}

/// A config registered with `deliver_after = n` is not claimed while its task's log ends at
/// `n`, and is claimed (with `delivered = n`, no attempts, its scope, task and config as
/// registered) once the task logs event `n + 1`. A config registered with 0 before its task
/// exists is claimed once the task logs its first event.
///
/// # Panics
/// When the store fails the check.
pub async fn a_new_config_is_claimed_once_its_task_logs_past_deliver_after(
    tasks: &dyn TaskStore,
    push: &dyn PushConfigStore,
) {
    let d = Deliveries::new(
        "a_new_config_is_claimed_once_its_task_logs_past_deliver_after",
        tasks,
        push,
    );
    let t0 = wall_clock_ms();
    let mut log = d.task(d.check.scope("acme", Some("alice")), "t");
    d.log(&mut log, 2, "creating the task with 2 events").await;
    let hook = d.register(&log, "hook", "https://example.com/a", 2).await;
    d.expect_claims(("a", t0, t0 + 1000, 10), &[], "before event 3")
        .await;
    d.log(&mut log, 1, "logging event 3").await;
    d.expect_claims(
        ("a", t0, t0 + 1000, 10),
        &[Deliveries::claimed(&log, &hook, 2, 0)],
        "after event 3",
    )
    .await;

    let mut later = d.task(d.check.scope("acme", None), "later");
    let early = d
        .register(&later, "early", "https://example.com/b", 0)
        .await;
    d.expect_claims(
        ("a", t0, t0 + 1000, 10),
        &[],
        "a config of a task not created yet",
    )
    .await;
    d.log(&mut later, 1, "creating the task with 1 event").await;
    d.expect_claims(
        ("a", t0, t0 + 1000, 10),
        &[Deliveries::claimed(&later, &early, 0, 0)],
        "after the task's first event",
    )
    .await;
    d.finish().await;
}

/// While a claim is live, no instance claims the webhook, the holder included; once the
/// time passes `claim_until_ms` another instance does, with the same progress.
///
/// # Panics
/// When the store fails the check.
pub async fn a_claimed_webhook_is_not_claimed_again_until_its_claim_passes(
    tasks: &dyn TaskStore,
    push: &dyn PushConfigStore,
) {
    let d = Deliveries::new(
        "a_claimed_webhook_is_not_claimed_again_until_its_claim_passes",
        tasks,
        push,
    );
    let t0 = wall_clock_ms();
    let mut log = d.task(d.check.scope("acme", Some("alice")), "t");
    let hook = d.register(&log, "hook", "https://example.com/a", 0).await;
    d.log(&mut log, 1, "creating the task with 1 event").await;
    let due = [Deliveries::claimed(&log, &hook, 0, 0)];

    d.expect_claims(("a", t0, t0 + 1000, 10), &due, "the first claim")
        .await;
    for (instance, now) in [("b", t0), ("b", t0 + 999), ("a", t0 + 500)] {
        d.expect_claims(
            (instance, now, now + 1000, 10),
            &[],
            format_args!("{instance} claiming {} ms into the claim", now - t0),
        )
        .await;
    }
    d.expect_claims(
        ("b", t0 + 1000, t0 + 2000, 10),
        &due,
        "b claiming when the claim passed",
    )
    .await;
    d.expect_claims(
        ("a", t0 + 1500, t0 + 2500, 10),
        &[],
        "a claiming during b's claim",
    )
    .await;
    d.finish().await;
}

/// `record_delivery` succeeds only for the instance named by the claim, even after the
/// claim passed as long as nobody took it over; an instance that does not hold it, a
/// config id or a scope that does not match, is refused with `false` and changes nothing.
/// Once another instance took the claim over, or the holder released it, the former holder
/// is refused too.
///
/// # Panics
/// When the store fails the check.
pub async fn only_the_claim_holder_records_progress(
    tasks: &dyn TaskStore,
    push: &dyn PushConfigStore,
) {
    let d = Deliveries::new("only_the_claim_holder_records_progress", tasks, push);
    let t0 = wall_clock_ms();
    let mut log = d.task(d.check.scope("acme", Some("alice")), "t");
    let hook = d.register(&log, "hook", "https://example.com/a", 0).await;
    d.log(&mut log, 3, "creating the task with 3 events").await;
    d.expect_claims(
        ("a", t0, t0 + 1000, 10),
        &[Deliveries::claimed(&log, &hook, 0, 0)],
        "a's claim",
    )
    .await;

    let done = DeliveryProgress::new(3, 0, 0, None);
    d.expect_record(&log, "hook", "b", done, false, "b, which never claimed it")
        .await;
    d.expect_record(
        &log,
        "other",
        "a",
        done,
        false,
        "a, for a config id not stored",
    )
    .await;
    let elsewhere = Logged {
        scope: d.check.scope("acme", Some("bob")),
        ..log.clone()
    };
    d.expect_record(
        &elsewhere,
        "hook",
        "a",
        done,
        false,
        "a, under another owner",
    )
    .await;

    let renewed = DeliveryProgress::new(1, 1, 0, Some(t0 + 3000));
    d.expect_record(
        &log,
        "hook",
        "a",
        renewed,
        true,
        "a, after its claim passed but before anyone took it over",
    )
    .await;
    d.expect_claims(
        ("b", t0 + 2000, t0 + 4000, 10),
        &[],
        "b claiming before a's renewed claim passes",
    )
    .await;
    d.expect_claims(
        ("b", t0 + 3000, t0 + 4000, 10),
        &[Deliveries::claimed(&log, &hook, 1, 1)],
        "b claiming when a's renewed claim passed (the refused records changed nothing)",
    )
    .await;
    let stale = DeliveryProgress::new(2, 0, 0, None);
    d.expect_record(
        &log,
        "hook",
        "a",
        stale,
        false,
        "a, after b took the claim over",
    )
    .await;
    d.expect_record(&log, "hook", "b", done, true, "b, releasing it")
        .await;
    d.expect_record(&log, "hook", "b", done, false, "b, after releasing it")
        .await;
    d.expect_claims(
        ("a", t0 + 5000, t0 + 6000, 10),
        &[],
        "claiming when every event was delivered",
    )
    .await;
    d.finish().await;
}

/// Progress recorded with `claimed_until_ms: None` releases the claim at once: another
/// instance claims the webhook before the released claim would have passed, and sees the
/// recorded `delivered` and `attempts`. Once `delivered` reaches the log's end nothing is
/// due, until the task logs another event.
///
/// # Panics
/// When the store fails the check.
pub async fn released_progress_is_what_the_next_claim_sees(
    tasks: &dyn TaskStore,
    push: &dyn PushConfigStore,
) {
    let d = Deliveries::new("released_progress_is_what_the_next_claim_sees", tasks, push);
    let t0 = wall_clock_ms();
    let mut log = d.task(d.check.scope("acme", None), "t");
    let hook = d.register(&log, "hook", "https://example.com/a", 0).await;
    d.log(&mut log, 3, "creating the task with 3 events").await;
    d.expect_claims(
        ("a", t0, t0 + 60_000, 10),
        &[Deliveries::claimed(&log, &hook, 0, 0)],
        "a's claim",
    )
    .await;
    let failed_once = DeliveryProgress::new(1, 2, t0, None);
    d.expect_record(&log, "hook", "a", failed_once, true, "a, releasing")
        .await;
    d.expect_claims(
        ("b", t0, t0 + 1000, 10),
        &[Deliveries::claimed(&log, &hook, 1, 2)],
        "b claiming at once after the release",
    )
    .await;
    let done = DeliveryProgress::new(3, 0, 0, None);
    d.expect_record(&log, "hook", "b", done, true, "b, delivering the rest")
        .await;
    d.expect_claims(
        ("a", t0 + 10_000, t0 + 11_000, 10),
        &[],
        "claiming when every event was delivered",
    )
    .await;
    d.log(&mut log, 1, "logging event 4").await;
    d.expect_claims(
        ("a", t0 + 10_000, t0 + 11_000, 10),
        &[Deliveries::claimed(&log, &hook, 3, 0)],
        "claiming after event 4",
    )
    .await;
    d.finish().await;
}

/// A webhook whose recorded `next_attempt_at_ms` is ahead is not claimed before that
/// instant, and is from that instant on.
///
/// # Panics
/// When the store fails the check.
pub async fn a_future_next_attempt_defers_the_claim(
    tasks: &dyn TaskStore,
    push: &dyn PushConfigStore,
) {
    let d = Deliveries::new("a_future_next_attempt_defers_the_claim", tasks, push);
    let t0 = wall_clock_ms();
    let mut log = d.task(d.check.scope("acme", Some("alice")), "t");
    let hook = d.register(&log, "hook", "https://example.com/a", 0).await;
    d.log(&mut log, 1, "creating the task with 1 event").await;
    d.expect_claims(
        ("a", t0, t0 + 1000, 10),
        &[Deliveries::claimed(&log, &hook, 0, 0)],
        "a's claim",
    )
    .await;
    let backoff = DeliveryProgress::new(0, 1, t0 + 5000, None);
    d.expect_record(&log, "hook", "a", backoff, true, "a, backing off")
        .await;
    for now in [t0, t0 + 4999] {
        d.expect_claims(
            ("b", now, now + 1000, 10),
            &[],
            format_args!("claiming {} ms before the next attempt", t0 + 5000 - now),
        )
        .await;
    }
    d.expect_claims(
        ("b", t0 + 5000, t0 + 6000, 10),
        &[Deliveries::claimed(&log, &hook, 0, 1)],
        "claiming at the next attempt",
    )
    .await;
    d.finish().await;
}

/// Saving a config under an id the task holds replaces the config but keeps its progress
/// and its claim: `deliver_after` applies to new configs only.
///
/// # Panics
/// When the store fails the check.
pub async fn replacing_a_config_keeps_its_progress_and_claim(
    tasks: &dyn TaskStore,
    push: &dyn PushConfigStore,
) {
    let d = Deliveries::new(
        "replacing_a_config_keeps_its_progress_and_claim",
        tasks,
        push,
    );
    let t0 = wall_clock_ms();
    let mut log = d.task(d.check.scope("acme", Some("alice")), "t");
    let hook = d.register(&log, "hook", "https://example.com/a", 0).await;
    d.log(&mut log, 4, "creating the task with 4 events").await;
    d.expect_claims(
        ("a", t0, t0 + 1000, 10),
        &[Deliveries::claimed(&log, &hook, 0, 0)],
        "a's claim",
    )
    .await;
    let halfway = DeliveryProgress::new(2, 1, 0, Some(t0 + 1000));
    d.expect_record(&log, "hook", "a", halfway, true, "a, halfway")
        .await;

    let replacement = d.register(&log, "hook", "https://example.com/b", 4).await;
    d.check
        .expect_config(
            push,
            &log.scope,
            &log.task.id,
            "hook",
            Some(&replacement),
            "after replacing it",
        )
        .await;
    d.expect_claims(
        ("b", t0, t0 + 1000, 10),
        &[],
        "b claiming the replaced config during a's claim",
    )
    .await;
    let released = DeliveryProgress::new(2, 1, 0, None);
    d.expect_record(
        &log,
        "hook",
        "a",
        released,
        true,
        "a, still the holder after the replacement",
    )
    .await;
    d.expect_claims(
        ("b", t0, t0 + 1000, 10),
        &[Deliveries::claimed(&log, &replacement, 2, 1)],
        "b claiming the replaced config after the release",
    )
    .await;
    d.finish().await;
}

/// A deleted config is never claimed again, and its holder's `record_delivery` is refused;
/// the task's other configs go on. A config saved again under the deleted id is a new one,
/// sent events after its own `deliver_after`.
///
/// # Panics
/// When the store fails the check.
pub async fn deleting_a_config_stops_its_deliveries(
    tasks: &dyn TaskStore,
    push: &dyn PushConfigStore,
) {
    let d = Deliveries::new("deleting_a_config_stops_its_deliveries", tasks, push);
    let t0 = wall_clock_ms();
    let mut log = d.task(d.check.scope("acme", Some("alice")), "t");
    let gone = d.register(&log, "gone", "https://example.com/a", 0).await;
    let kept = d.register(&log, "kept", "https://example.com/b", 0).await;
    d.log(&mut log, 2, "creating the task with 2 events").await;
    d.expect_claims(
        ("a", t0, t0 + 1000, 10),
        &[
            Deliveries::claimed(&log, &gone, 0, 0),
            Deliveries::claimed(&log, &kept, 0, 0),
        ],
        "a's claim",
    )
    .await;
    let deleted = d.check.ok(
        push.delete_push_config(&log.scope, &log.task.id, &PushConfigId::new("gone"))
            .await,
        "deleting a claimed config",
    );
    d.check
        .ensure(deleted, "deleting a claimed config returned false");
    let done = DeliveryProgress::new(2, 0, 0, None);
    d.expect_record(&log, "gone", "a", done, false, "a, for the deleted config")
        .await;
    let partly = DeliveryProgress::new(1, 0, 0, None);
    d.expect_record(&log, "kept", "a", partly, true, "a, for the other config")
        .await;
    d.expect_claims(
        ("b", t0 + 2000, t0 + 3000, 10),
        &[Deliveries::claimed(&log, &kept, 1, 0)],
        "claiming after the delete",
    )
    .await;

    let again = d.register(&log, "gone", "https://example.com/c", 2).await;
    d.expect_claims(
        ("b", t0 + 4000, t0 + 5000, 10),
        &[Deliveries::claimed(&log, &kept, 1, 0)],
        "claiming after saving the id again, at the log's end",
    )
    .await;
    d.log(&mut log, 1, "logging event 3").await;
    d.expect_claims(
        ("b", t0 + 6000, t0 + 7000, 10),
        &[
            Deliveries::claimed(&log, &again, 2, 0),
            Deliveries::claimed(&log, &kept, 1, 0),
        ],
        "claiming after event 3",
    )
    .await;
    d.finish().await;
}

/// A claim takes at most `limit` webhooks (none for 0); successive claims share the due
/// webhooks out, each to one of them, until none is left.
///
/// # Panics
/// When the store fails the check.
pub async fn claims_honour_the_limit(tasks: &dyn TaskStore, push: &dyn PushConfigStore) {
    let d = Deliveries::new("claims_honour_the_limit", tasks, push);
    let t0 = wall_clock_ms();
    let mut due = Vec::new();
    for (name, hooks) in [("t1", 3), ("t2", 2)] {
        let mut log = d.task(d.check.scope("acme", Some("alice")), name);
        for n in 0..hooks {
            let hook = d
                .register(&log, &format!("h{n}"), "https://example.com/a", 0)
                .await;
            due.push(Deliveries::claimed(&log, &hook, 0, 0));
        }
        d.log(&mut log, 1, "creating a task with 1 event").await;
    }

    let none = d
        .claim(("a", t0, t0 + 1000, 0), "claiming with a limit of 0")
        .await;
    d.check
        .ensure_eq(&none, &Vec::new(), "a claim with a limit of 0");
    let mut claimed = Vec::new();
    for (instance, expected) in [("a", 2), ("b", 2), ("c", 1), ("d", 0)] {
        let got = d
            .claim(
                (instance, t0, t0 + 1000, 2),
                format_args!("{instance} claiming 2"),
            )
            .await;
        d.check.ensure_eq(
            &got.len(),
            &expected,
            format_args!("webhooks {instance} claimed with a limit of 2: {got:?}"),
        );
        claimed.extend(got);
    }
    d.expect_each_once(claimed, &due, "the webhooks of the four claims");
    d.finish().await;
}

/// How many instances claim at once in each round of
/// [`concurrent_claims_never_hand_one_webhook_to_two_instances`].
pub const CLAIMERS: usize = 4;

/// Several instances claim the same due webhooks at once, each from its own tokio task, in
/// [`ROUNDS`] rounds (each after the previous round's claims passed): no webhook goes to two
/// of them, and what they left is what one more claim at the same instant takes, so that
/// together every due webhook was claimed exactly once.
///
/// Takes [`Arc`]s, unlike the other checks, because the claims run on spawned tokio tasks.
///
/// # Panics
/// When the store fails the check.
pub async fn concurrent_claims_never_hand_one_webhook_to_two_instances(
    tasks: Arc<dyn TaskStore>,
    push: Arc<dyn PushConfigStore>,
) {
    let d = Deliveries::new(
        "concurrent_claims_never_hand_one_webhook_to_two_instances",
        tasks.as_ref(),
        push.as_ref(),
    );
    let t0 = wall_clock_ms();
    let mut due = Vec::new();
    for name in ["t1", "t2", "t3", "t4"] {
        let mut log = d.task(d.check.scope("acme", None), name);
        for n in 0..3 {
            let hook = d
                .register(&log, &format!("h{n}"), "https://example.com/a", 0)
                .await;
            due.push(Deliveries::claimed(&log, &hook, 0, 0));
        }
        d.log(&mut log, 1, "creating a task with 1 event").await;
    }

    let mut now = t0;
    for round in 1..=ROUNDS {
        // Past the previous round's claims: every webhook is free again.
        now += 10_000;
        let start = Arc::new(Barrier::new(CLAIMERS));
        let mut claimers = JoinSet::new();
        for claimer in 0..CLAIMERS {
            let (push, start) = (Arc::clone(&push), Arc::clone(&start));
            claimers.spawn(async move {
                start.wait().await;
                // Each may take a third of the webhooks, so the claims overlap.
                push.claim_deliveries(&format!("instance-{claimer}"), now, now + 5000, 4)
                    .await
            });
        }
        let mut claimed = Vec::new();
        while let Some(joined) = claimers.join_next().await {
            match joined {
                Ok(result) => claimed.extend(
                    d.check
                        .ok(result, format_args!("a concurrent claim in round {round}")),
                ),
                Err(err) => d.check.fail(format!(
                    "a concurrent claim in round {round} panicked or was cancelled: {err}"
                )),
            }
        }
        let claimed = d.own(claimed, &format!("the concurrent claims of round {round}"));
        let mut seen = BTreeSet::new();
        for webhook in &claimed {
            let key = webhook_key(webhook);
            d.check.ensure(
                seen.insert(key.clone()),
                format!("round {round}: webhook {key:?} went to two instances at once"),
            );
        }
        let rest = d
            .claim(
                ("sweeper", now, now + 5000, usize::MAX),
                format_args!("claiming what round {round} left"),
            )
            .await;
        d.expect_each_once(
            claimed.into_iter().chain(rest).collect(),
            &due,
            format_args!("the webhooks claimed in round {round}"),
        );
    }
    d.finish().await;
}

/// How many tokio tasks race in each round of the concurrency checks.
pub const RACERS: usize = 16;

/// How many rounds the concurrency checks race.
pub const ROUNDS: usize = 20;

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
                store
                    .save(&scope, &task, expected, &[])
                    .await
                    .map(|saved| saved.version),
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

/// The list order, computed independently of any store.
fn list_order(a: &Task, b: &Task) -> Ordering {
    (sort_millis(b), &b.id).cmp(&(sort_millis(a), &a.id))
}

/// `task` in `state`.
fn with_state(task: &Task, state: TaskState) -> Task {
    let mut task = task.clone();
    task.status.state = state;
    task
}

/// `task` with `metadata.revision` set, to tell saved copies apart.
fn revised(task: &Task, revision: usize) -> Task {
    with_metadata(task, "revision", revision)
}

/// `task` with `metadata[key]` set to `value`.
fn with_metadata(task: &Task, key: &str, value: usize) -> Task {
    let mut task = task.clone();
    task.metadata
        .get_or_insert_with(Metadata::new)
        .insert(key.to_owned(), json!(value));
    task
}

/// Parses a timestamp the suite itself wrote.
fn timestamp(text: &str) -> Timestamp {
    match Timestamp::parse(text) {
        Ok(timestamp) => timestamp,
        Err(err) => panic!("task store conformance suite has a bad timestamp: {err}"),
    }
}

/// A task that uses every member of the task model.
fn full_task(id: TaskId) -> Task {
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

fn metadata(value: serde_json::Value) -> Metadata {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("task store conformance suite has bad metadata: {other}"),
    }
}

/// One running check: names it in every failure, and gives it task ids and tenants of its
/// own so that checks cannot see each other's tasks even in a shared database.
struct Check {
    name: &'static str,
    prefix: String,
}

impl Check {
    fn new(name: &'static str) -> Self {
        Self {
            name,
            prefix: uuid::Uuid::new_v4().simple().to_string(),
        }
    }

    #[track_caller]
    fn fail(&self, what: impl Display) -> ! {
        panic!(
            "task store conformance check `{}` failed: {what}",
            self.name
        )
    }

    #[track_caller]
    fn ensure(&self, condition: bool, what: impl Display) {
        if !condition {
            self.fail(what);
        }
    }

    #[track_caller]
    fn ensure_eq<T: PartialEq + Debug>(&self, actual: &T, expected: &T, what: impl Display) {
        if actual != expected {
            self.fail(format!(
                "{what}\n  expected: {expected:?}\n    actual: {actual:?}"
            ));
        }
    }

    #[track_caller]
    fn ok<T>(&self, result: Result<T, StoreError>, what: impl Display) -> T {
        match result {
            Ok(value) => value,
            Err(err) => self.fail(format!("{what}: unexpected error: {}", Chain(&err))),
        }
    }

    #[track_caller]
    fn expect_conflict(
        &self,
        result: Result<Version, StoreError>,
        id: &TaskId,
        what: impl Display,
    ) {
        self.expect_refusal(result, id, what, "Conflict");
    }

    #[track_caller]
    fn expect_not_found(
        &self,
        result: Result<Version, StoreError>,
        id: &TaskId,
        what: impl Display,
    ) {
        self.expect_refusal(result, id, what, "NotFound");
    }

    /// Checks that a save failed with the `expected` variant naming task `id`.
    #[track_caller]
    fn expect_refusal(
        &self,
        result: Result<Version, StoreError>,
        id: &TaskId,
        what: impl Display,
        expected: &str,
    ) {
        match result {
            Err(StoreError::Conflict { task_id }) if expected == "Conflict" => {
                self.ensure_eq(&task_id, id, format!("{what}: the task {expected} names"));
            }
            Err(StoreError::NotFound { task_id }) if expected == "NotFound" => {
                self.ensure_eq(&task_id, id, format!("{what}: the task {expected} names"));
            }
            Ok(version) => self.fail(format!("{what}: saved as {version:?}, expected {expected}")),
            Err(err) => self.fail(format!("{what}: {}, expected {expected}", Chain(&err))),
        }
    }

    /// Checks that exactly one racer won and every other one conflicted; returns the
    /// winner's revision and version.
    #[track_caller]
    fn single_winner(
        &self,
        results: Vec<(usize, Result<Version, StoreError>)>,
        id: &TaskId,
        what: &str,
    ) -> (usize, Version) {
        let mut winners = Vec::new();
        for (revision, result) in results {
            match result {
                Ok(version) => winners.push((revision, version)),
                Err(StoreError::Conflict { task_id }) => {
                    self.ensure_eq(&task_id, id, "the task a racing conflict names");
                }
                Err(err) => self.fail(format!(
                    "{what} revision {revision}: {}, expected success or Conflict",
                    Chain(&err)
                )),
            }
        }
        match winners.as_slice() {
            [winner] => *winner,
            _ => self.fail(format!(
                "{RACERS} racers {what} on one version: {} won {winners:?}, expected exactly one",
                winners.len()
            )),
        }
    }

    /// Saves and expects success.
    async fn save(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        task: &Task,
        expected: Expected,
        events: &[StreamResponse],
        what: impl Display,
    ) -> Saved {
        self.ok(
            store.save(scope, task, expected, events).await,
            format_args!("{what} (task {})", task.id),
        )
    }

    /// Loads and expects the task to be there.
    async fn load(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        id: &TaskId,
        what: impl Display,
    ) -> StoredTask {
        let loaded = self.ok(
            store.load(scope, id).await,
            format_args!("loading task {id} {what}"),
        );
        match loaded {
            Some(stored) => stored,
            None => self.fail(format!("loading task {id} {what}: not found")),
        }
    }

    /// Events of `task` numbered `range`: status and artifact updates alternating, told
    /// apart by their text.
    fn events(task: &Task, range: std::ops::Range<usize>) -> Vec<StreamResponse> {
        range
            .map(|n| {
                if n % 2 == 0 {
                    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                        task_id: task.id.clone(),
                        context_id: task.context_id.clone(),
                        status: TaskStatus {
                            state: TaskState::Working,
                            message: Some(Message::agent_text(format!("step {n}"))),
                            timestamp: Some(timestamp("2025-01-01T10:00:00.123Z")),
                        },
                        metadata: None,
                    })
                } else {
                    StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                        task_id: task.id.clone(),
                        context_id: task.context_id.clone(),
                        artifact: Artifact::from_text(format!("chunk {n}")).with_id("out"),
                        append: n > 1,
                        last_chunk: false,
                        metadata: None,
                    })
                }
            })
            .collect()
    }

    /// Checks `events(after, limit)` for `window` = `(after, limit)`.
    async fn expect_events(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        id: &TaskId,
        (after, limit): (u64, usize),
        expected: &[TaskEvent],
        what: impl Display,
    ) {
        let found = self.ok(
            store.events(scope, id, after, limit).await,
            format_args!("reading the events of task {id}: {what}"),
        );
        let Some(found) = found else {
            self.fail(format!("reading the events of task {id}: {what}: no task"));
        };
        let sequences: Vec<u64> = found.iter().map(|event| event.sequence).collect();
        let expected_sequences: Vec<u64> = expected.iter().map(|event| event.sequence).collect();
        self.ensure_eq(
            &sequences,
            &expected_sequences,
            format_args!("the sequence numbers of {what}"),
        );
        self.ensure_eq(
            &found.as_slice(),
            &expected,
            format_args!("the events of {what}"),
        );
    }

    fn push_config(task_id: &TaskId, id: &str, url: &str) -> TaskPushNotificationConfig {
        let mut config = TaskPushNotificationConfig::new(url);
        config.id = Some(PushConfigId::new(id));
        config.task_id = Some(task_id.clone());
        config
    }

    async fn save_config(
        &self,
        store: &dyn PushConfigStore,
        scope: &TaskScope,
        config: &TaskPushNotificationConfig,
        max_per_task: usize,
        what: impl Display,
    ) {
        let Some(task_id) = &config.task_id else {
            self.fail("the suite made a push config without a task id");
        };
        self.ok(
            store
                .save_push_config(scope, task_id, config, max_per_task, 0)
                .await,
            format_args!("{what}: saving push config {:?}", config.id),
        );
    }

    async fn expect_config(
        &self,
        store: &dyn PushConfigStore,
        scope: &TaskScope,
        task_id: &TaskId,
        id: &str,
        expected: Option<&TaskPushNotificationConfig>,
        what: impl Display,
    ) {
        let found = self.ok(
            store
                .get_push_config(scope, task_id, &PushConfigId::new(id))
                .await,
            format_args!("getting push config {id}: {what}"),
        );
        self.ensure_eq(
            &found.as_ref(),
            &expected,
            format_args!("push config {id} of task {task_id}: {what}"),
        );
    }

    async fn expect_configs(
        &self,
        store: &dyn PushConfigStore,
        scope: &TaskScope,
        task_id: &TaskId,
        expected: &[&TaskPushNotificationConfig],
        what: impl Display,
    ) {
        let found = self.ok(
            store.list_push_configs(scope, task_id).await,
            format_args!("listing the push configs of task {task_id}: {what}"),
        );
        let found: Vec<&TaskPushNotificationConfig> = found.iter().collect();
        self.ensure_eq(
            &found.as_slice(),
            &expected,
            format_args!("the push configs of task {task_id}: {what}"),
        );
    }

    async fn create(&self, store: &dyn TaskStore, scope: &TaskScope, task: &Task) -> Version {
        self.ok(
            store
                .save(scope, task, Expected::Absent, &[])
                .await
                .map(|saved| saved.version),
            format!("creating task {}", task.id),
        )
    }

    async fn list(&self, store: &dyn TaskStore, scope: &TaskScope, query: &TaskQuery) -> TaskPage {
        self.ok(
            store.list(scope, query).await,
            format!("listing {scope:?} with {query:?}"),
        )
    }

    async fn expect_stored(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        task: &Task,
        version: Version,
        what: impl Display,
    ) {
        let loaded = self.ok(
            store.load(scope, &task.id).await,
            format_args!("loading task {} {what}", task.id),
        );
        let Some(loaded) = loaded else {
            self.fail(format!("loading task {} {what}: not found", task.id));
        };
        let expected = StoredTask {
            task: task.clone(),
            version,
            // No check here saves events; the event-log checks look at sequences.
            last_sequence: loaded.last_sequence,
        };
        self.ensure_eq(
            &loaded,
            &expected,
            format_args!("loading task {} {what}", task.id),
        );
        self.ensure_eq(
            &self.json(&loaded.task),
            &self.json(task),
            format_args!("the JSON of task {} {what}", task.id),
        );
    }

    async fn expect_absent(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        id: &TaskId,
        what: impl Display,
    ) {
        let loaded = self.ok(
            store.load(scope, id).await,
            format_args!("loading task {id} {what}"),
        );
        if let Some(found) = loaded {
            self.fail(format!(
                "loading task {id} {what}: found {found:?}, expected None"
            ));
        }
    }

    #[track_caller]
    fn expect_ids(&self, page: &TaskPage, expected: &[TaskId], what: impl Display) {
        let ids: Vec<&TaskId> = page.tasks.iter().map(|task| &task.id).collect();
        let expected: Vec<&TaskId> = expected.iter().collect();
        self.ensure_eq(&ids, &expected, format_args!("the tasks of {what}"));
    }

    #[track_caller]
    fn json(&self, task: &Task) -> serde_json::Value {
        match serde_json::to_value(task) {
            Ok(value) => value,
            Err(err) => self.fail(format!("encoding task {}: {err}", task.id)),
        }
    }

    fn id(&self, name: &str) -> TaskId {
        TaskId::new(format!("{}-{name}", self.prefix))
    }

    fn ids(&self, names: &[&str]) -> Vec<TaskId> {
        names.iter().map(|name| self.id(name)).collect()
    }

    fn scope(&self, tenant: &str, owner: Option<&str>) -> TaskScope {
        let scope = TaskScope::tenant(format!("{}-{tenant}", self.prefix));
        match owner {
            Some(owner) => scope.with_owner(owner),
            None => scope,
        }
    }

    /// A task of context `context` with no artifacts, history or metadata.
    fn task(&self, name: &str, state: TaskState, stamp: Option<&str>) -> Task {
        Task {
            id: self.id(name),
            context_id: ContextId::new("context"),
            status: TaskStatus {
                state,
                message: None,
                timestamp: stamp.map(timestamp),
            },
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
        }
    }
}

/// Formats an error with its chain of sources, which is where a backend's cause sits.
struct Chain<'a>(&'a StoreError);

impl Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

/// The system clock in Unix milliseconds: the base of the delivery checks' times, so that a
/// store comparing them with task expiry times sees plausible instants.
fn wall_clock_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// What tells claimed webhooks apart: task id and config id.
fn webhook_key(webhook: &ClaimedWebhook) -> (String, String) {
    (
        webhook.task_id.as_str().to_owned(),
        config_key(&webhook.config),
    )
}

fn config_key(config: &TaskPushNotificationConfig) -> String {
    config
        .id
        .as_ref()
        .map(|id| id.as_str().to_owned())
        .unwrap_or_default()
}

/// A claim's arguments: instance, now, claimed until, limit.
type Claim<'i> = (&'i str, u64, u64, usize);

/// A task of a delivery check, and where its log stands.
#[derive(Debug, Clone)]
struct Logged {
    scope: TaskScope,
    task: Task,
    version: Option<Version>,
    last_sequence: u64,
}

/// One running delivery check: its stores, and the configs it registered, which it deletes
/// at its end so that later checks over the same database find nothing due.
struct Deliveries<'s> {
    check: Check,
    tasks: &'s dyn TaskStore,
    push: &'s dyn PushConfigStore,
    registered: Mutex<BTreeSet<(TaskScope, TaskId, String)>>,
}

impl<'s> Deliveries<'s> {
    fn new(name: &'static str, tasks: &'s dyn TaskStore, push: &'s dyn PushConfigStore) -> Self {
        Self {
            check: Check::new(name),
            tasks,
            push,
            registered: Mutex::new(BTreeSet::new()),
        }
    }

    /// A task of this check under `scope`, not saved yet.
    fn task(&self, scope: TaskScope, name: &str) -> Logged {
        Logged {
            scope,
            task: self
                .check
                .task(name, TaskState::Working, Some("2025-01-01T10:00:00.000Z")),
            version: None,
            last_sequence: 0,
        }
    }

    /// Saves the task with `count` more events (creating it the first time), then tells the
    /// push-config store where the log ends, as the delivery engine does.
    async fn log(&self, logged: &mut Logged, count: usize, what: &str) {
        let first = usize::try_from(logged.last_sequence).unwrap_or(usize::MAX);
        let events = Check::events(&logged.task, first..first.saturating_add(count));
        let expected = logged.version.map_or(Expected::Absent, Expected::Version);
        let saved = self
            .check
            .save(
                self.tasks,
                &logged.scope,
                &logged.task,
                expected,
                &events,
                what,
            )
            .await;
        logged.version = Some(saved.version);
        logged.last_sequence = saved.last_sequence;
        self.check.ok(
            self.push
                .events_logged(&logged.scope, &logged.task.id, saved.last_sequence)
                .await,
            format_args!("{what}: events_logged({})", saved.last_sequence),
        );
    }

    /// Saves config `id` of the task (new or replacing) with `deliver_after`.
    async fn register(
        &self,
        logged: &Logged,
        id: &str,
        url: &str,
        deliver_after: u64,
    ) -> TaskPushNotificationConfig {
        let config = Check::push_config(&logged.task.id, id, url);
        self.check.ok(
            self.push
                .save_push_config(&logged.scope, &logged.task.id, &config, 10, deliver_after)
                .await,
            format_args!("saving push config {id} with deliver_after {deliver_after}"),
        );
        self.registered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((logged.scope.clone(), logged.task.id.clone(), id.to_owned()));
        config
    }

    /// What a claim of `config` should return.
    fn claimed(
        logged: &Logged,
        config: &TaskPushNotificationConfig,
        delivered: u64,
        attempts: u32,
    ) -> ClaimedWebhook {
        ClaimedWebhook::new(
            logged.scope.clone(),
            logged.task.id.clone(),
            config.clone(),
            delivered,
            attempts,
        )
    }

    /// Claims and expects success, and only this check's webhooks.
    async fn claim(
        &self,
        (instance, now, until, limit): Claim<'_>,
        what: impl Display,
    ) -> Vec<ClaimedWebhook> {
        let what = format!("{what} (claim_deliveries({instance:?}, {now}, {until}, {limit}))");
        let claimed = self.check.ok(
            self.push
                .claim_deliveries(instance, now, until, limit)
                .await,
            &what,
        );
        self.own(claimed, &what)
    }

    /// `claimed`, after checking that it holds only this check's webhooks.
    #[track_caller]
    fn own(&self, claimed: Vec<ClaimedWebhook>, what: &str) -> Vec<ClaimedWebhook> {
        if let Some(foreign) = claimed
            .iter()
            .find(|webhook| !webhook.task_id.as_str().starts_with(&self.check.prefix))
        {
            self.check.fail(format!(
                "{what}: claimed a webhook this check did not register ({foreign:?}); the \
                 delivery checks need stores with no other due webhook"
            ));
        }
        claimed
    }

    /// Claims and expects exactly `expected`, in any order.
    async fn expect_claims(
        &self,
        claim: Claim<'_>,
        expected: &[ClaimedWebhook],
        what: impl Display,
    ) {
        let what = what.to_string();
        let claimed = self.claim(claim, &what).await;
        self.expect_each_once(claimed, expected, what);
    }

    /// Checks that `claimed` holds each of `expected` once, and nothing else.
    #[track_caller]
    fn expect_each_once(
        &self,
        mut claimed: Vec<ClaimedWebhook>,
        expected: &[ClaimedWebhook],
        what: impl Display,
    ) {
        let mut expected = expected.to_vec();
        claimed.sort_by_key(webhook_key);
        expected.sort_by_key(webhook_key);
        self.check.ensure_eq(
            &claimed,
            &expected,
            format_args!("the webhooks claimed: {what}"),
        );
    }

    /// Records `progress` for config `id` as `instance`, and expects `expected`.
    async fn expect_record(
        &self,
        logged: &Logged,
        id: &str,
        instance: &str,
        progress: DeliveryProgress,
        expected: bool,
        what: &str,
    ) {
        let recorded = self.check.ok(
            self.push
                .record_delivery(
                    &logged.scope,
                    &logged.task.id,
                    &PushConfigId::new(id),
                    instance,
                    progress,
                )
                .await,
            format_args!("recording {progress:?} for {id} as {instance}: {what}"),
        );
        self.check.ensure_eq(
            &recorded,
            &expected,
            format_args!("record_delivery of {progress:?} for {id} as {instance}: {what}"),
        );
    }

    /// Deletes every config the check registered.
    async fn finish(self) {
        let registered = self
            .registered
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        for (scope, task_id, id) in registered {
            self.check.ok(
                self.push
                    .delete_push_config(&scope, &task_id, &PushConfigId::new(&id))
                    .await,
                format_args!("deleting push config {id} at the end of the check"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::{InMemoryPushConfigStore, InMemoryTaskStore, InMemoryTaskStoreConfig};

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn in_memory_store_passes_the_conformance_suite() {
        super::run(|| async { InMemoryTaskStore::new() }).await;
    }

    #[tokio::test]
    async fn in_memory_store_passes_the_expiry_checks() {
        super::run_expiry(|ttl: Duration| async move {
            InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
                completed_task_ttl: ttl,
                ..InMemoryTaskStoreConfig::default()
            })
        })
        .await;
    }

    #[tokio::test]
    async fn in_memory_push_config_store_passes_the_push_checks() {
        super::run_push(|| async { InMemoryPushConfigStore::new() }).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn in_memory_stores_pass_the_delivery_checks() {
        super::run_delivery(|| async {
            (InMemoryTaskStore::new(), InMemoryPushConfigStore::new())
        })
        .await;
    }
}
