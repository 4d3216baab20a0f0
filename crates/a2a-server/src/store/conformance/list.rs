//! The checks of listing tasks: scopes, order, filters and paging.

use a2a_types::{ContextId, TaskId, TaskState};

use super::check::Check;
use super::fixtures::{list_order, timestamp};
use crate::store::{TaskPage, TaskQuery, TaskScope, TaskStore};

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
        let task = check.working(&format!("t{n:02}"));
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
    create_working(&check, store, &scope, &tasks).await;

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
        let mut task = check.working(name);
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
        let task = check.task_in(name, state);
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
    create_working(
        &check,
        store,
        &scope,
        &[
            ("a", Some("2025-01-01T10:00:00.000Z")),
            ("b", Some("2025-01-01T10:00:00.001Z")),
            ("c", Some("2025-01-01T10:00:01.000Z")),
            ("d", None),
            ("e", Some("2025-01-01T09:00:00.000Z")),
        ],
    )
    .await;

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
        let task = check.working(name);
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

/// Creates a working task under `scope` for each name and status timestamp, in order.
async fn create_working(
    check: &Check,
    store: &dyn TaskStore,
    scope: &TaskScope,
    tasks: &[(&str, Option<&str>)],
) {
    for &(name, timestamp) in tasks {
        check
            .create(
                store,
                scope,
                &check.task(name, TaskState::Working, timestamp),
            )
            .await;
    }
}
