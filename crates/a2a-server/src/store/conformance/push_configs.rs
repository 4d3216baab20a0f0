//! The checks of a [`PushConfigStore`]'s configs.

use std::fmt::Display;

use a2a_types::{PushConfigId, TaskId, TaskPushNotificationConfig};

use super::check::{Chain, Check};
use crate::store::{PushConfigStore, StoreError, TaskScope};

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
    expect_only_hook(&check, store, &scope, &task_id, &config, "after creating").await;

    let mut replacement = Check::push_config(&task_id, "hook", "https://example.com/b");
    replacement.token = Some("secret-token".to_owned());
    check
        .save_config(store, &scope, &replacement, 10, "replacing")
        .await;
    expect_only_hook(
        &check,
        store,
        &scope,
        &task_id,
        &replacement,
        "after replacing",
    )
    .await;

    let id = PushConfigId::new("hook");
    let deleted = check.ok(
        store.delete_push_config(&scope, &task_id, &id).await,
        "deleting the config",
    );
    check.ensure(deleted, "deleting a stored config returned false");
    expect_no_hook(&check, store, &scope, &task_id, "after deleting").await;
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
        expect_no_hook(&check, store, &other, &task_id, format!("{other:?}")).await;
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

/// Expects `config` to be the task's only config, and to be found by its id `hook`.
async fn expect_only_hook(
    check: &Check,
    store: &dyn PushConfigStore,
    scope: &TaskScope,
    task_id: &TaskId,
    config: &TaskPushNotificationConfig,
    what: impl Display,
) {
    check
        .expect_configs(store, scope, task_id, &[config], &what)
        .await;
    check
        .expect_config(store, scope, task_id, "hook", Some(config), &what)
        .await;
}

/// Expects no config `hook` under `scope`, and no configs of the task at all.
async fn expect_no_hook(
    check: &Check,
    store: &dyn PushConfigStore,
    scope: &TaskScope,
    task_id: &TaskId,
    what: impl Display,
) {
    check
        .expect_config(store, scope, task_id, "hook", None, &what)
        .await;
    check
        .expect_configs(store, scope, task_id, &[], &what)
        .await;
}
