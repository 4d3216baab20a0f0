//! The checks of the expiry of terminal tasks, in real time.

use std::time::Duration;

use a2a_types::{Task, TaskId, TaskState};
use tokio::time::{Instant, sleep_until};

use super::check::{Check, save_version};
use super::fixtures::{list_order, with_state};
use crate::store::{Expected, TaskEvent, TaskQuery, TaskStore};

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
    let (vanish, no_extension, from_terminal, zero, keys) = (
        make_store(EXPIRY_TTL).await,
        make_store(EXPIRY_TTL).await,
        make_store(EXPIRY_TTL).await,
        make_store(Duration::ZERO).await,
        make_store(EXPIRY_TTL).await,
    );
    tokio::join!(
        terminal_tasks_vanish_after_the_ttl_and_others_stay(&vanish),
        saving_a_terminal_task_again_does_not_extend_its_life(&no_extension),
        the_ttl_runs_from_the_save_that_made_the_task_terminal(&from_terminal),
        a_zero_ttl_keeps_terminal_tasks(&zero),
        super::sends::a_send_key_goes_with_its_task(&keys, EXPIRY_TTL),
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
        let task = check.task_in(&format!("{state:?}"), state);
        let events = Check::events(&task, 0..1);
        let version = check
            .create_with(store, &scope, &task, &events, format!("creating {state:?}"))
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
            check
                .expect_no_events(
                    store,
                    &scope,
                    &task.id,
                    format!("of {state:?} after the TTL"),
                )
                .await;
            let result =
                save_version(store, &scope, task, Expected::Version(saved.version), &[]).await;
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
        .create_with(
            store,
            &scope,
            &again,
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
    let task = check.task_in("t", TaskState::Completed);
    let saved = check
        .create_with(store, &scope, &task, &[], "creating it completed")
        .await;
    sleep_until(started + EXPIRY_TTL / 2).await;
    let canceled = with_state(&task, TaskState::Canceled);
    check
        .update(
            store,
            &scope,
            &canceled,
            saved.version,
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
    let task = check.working("t");
    let saved = check
        .create_with(store, &scope, &task, &[], "creating it working")
        .await;
    sleep_until(started + EXPIRY_TTL / 2).await;
    let terminal_at = Instant::now();
    let completed = with_state(&task, TaskState::Completed);
    check
        .update(
            store,
            &scope,
            &completed,
            saved.version,
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
    let task = check.task_in("t", TaskState::Completed);
    check
        .create_with(store, &scope, &task, &[], "creating it completed")
        .await;
    sleep_until(started + EXPIRY_TTL + EXPIRY_MARGIN).await;
    check
        .load(store, &scope, &task.id, "well after it became terminal")
        .await;
}
