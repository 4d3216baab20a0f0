//! The checks of send keys (exactly-once SendMessage): a key is claimed once per scope,
//! whoever races for it, can be released, and goes with its task.

use std::sync::Arc;
use std::time::Duration;

use a2a_types::{TaskId, TaskState};
use tokio::sync::Barrier;
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until};

use super::check::{Check, RACERS, ROUNDS};
use crate::store::{KeptSend, StoreError, TaskScope, TaskStore};

impl Check {
    async fn claim(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        key: &str,
        digest: &str,
        task_id: &TaskId,
    ) -> Option<KeptSend> {
        self.ok(
            store.claim_send(scope, key, digest, task_id).await,
            format!("claiming send key {key}"),
        )
    }
}

/// The first claim of a key gets `None`; every later one, whatever digest and task it
/// gives, gets the first claim's task and digest.
///
/// # Panics
/// When the store fails the check.
pub async fn a_claimed_send_key_answers_later_claims_with_the_first_send(store: &dyn TaskStore) {
    let check = Check::new("a_claimed_send_key_answers_later_claims_with_the_first_send");
    let scope = check.scope("acme", Some("alice"));
    let (first, second) = (check.id("first"), check.id("second"));
    let claimed = check.claim(store, &scope, "m-1", "d-1", &first).await;
    check.ensure_eq(&claimed, &None, "the first claim");
    let kept = Some(KeptSend {
        task_id: first.clone(),
        digest: "d-1".to_owned(),
    });
    for (digest, task) in [("d-1", &first), ("d-2", &second)] {
        let again = check.claim(store, &scope, "m-1", digest, task).await;
        check.ensure_eq(&again, &kept, format!("a later claim with digest {digest}"));
    }
    let other = check.claim(store, &scope, "m-2", "d-1", &second).await;
    check.ensure_eq(&other, &None, "another key of the same scope");
}

/// A key claimed in one scope is free in every other (another tenant, another owner, no
/// owner).
///
/// # Panics
/// When the store fails the check.
pub async fn send_keys_are_claimed_per_scope(store: &dyn TaskStore) {
    let check = Check::new("send_keys_are_claimed_per_scope");
    let scopes = [
        check.scope("acme", Some("alice")),
        check.scope("acme", Some("bob")),
        check.scope("acme", None),
        check.scope("other", Some("alice")),
    ];
    for (n, scope) in scopes.iter().enumerate() {
        let task = check.id(&format!("t{n}"));
        let claimed = check.claim(store, scope, "m-1", "d", &task).await;
        check.ensure_eq(
            &claimed,
            &None,
            format!("claiming the key in scope {scope:?}"),
        );
    }
}

/// Releasing a key for another task leaves it claimed; releasing it for its own task frees
/// it for the next claim.
///
/// # Panics
/// When the store fails the check.
pub async fn a_released_send_key_can_be_claimed_again(store: &dyn TaskStore) {
    let check = Check::new("a_released_send_key_can_be_claimed_again");
    let scope = check.scope("acme", Some("alice"));
    let (first, second) = (check.id("first"), check.id("second"));
    check.claim(store, &scope, "m-1", "d-1", &first).await;
    check.ok(
        store.release_send(&scope, "m-1", &second).await,
        "releasing for another task",
    );
    let held = check.claim(store, &scope, "m-1", "d-2", &second).await;
    check.ensure_eq(
        &held.map(|kept| kept.task_id),
        &Some(first.clone()),
        "the key after a release for another task",
    );
    check.ok(
        store.release_send(&scope, "m-1", &first).await,
        "releasing for its task",
    );
    let claimed = check.claim(store, &scope, "m-1", "d-2", &second).await;
    check.ensure_eq(&claimed, &None, "claiming the released key");
}

/// [`RACERS`] claims of one key at once, each for a task of its own: exactly one gets
/// `None`, and every other gets the winner's task.
///
/// # Panics
/// When the store fails the check.
pub async fn concurrent_claims_of_one_send_key_have_exactly_one_winner(store: Arc<dyn TaskStore>) {
    let check = Check::new("concurrent_claims_of_one_send_key_have_exactly_one_winner");
    let scope = check.scope("acme", Some("alice"));
    for round in 1..=ROUNDS {
        let key = format!("m-{round}");
        let barrier = Arc::new(Barrier::new(RACERS));
        let mut racers = JoinSet::new();
        for racer in 0..RACERS {
            let (store, scope, key, barrier) = (
                Arc::clone(&store),
                scope.clone(),
                key.clone(),
                Arc::clone(&barrier),
            );
            let task = check.id(&format!("r{round}-{racer}"));
            racers.spawn(async move {
                barrier.wait().await;
                let claimed = store.claim_send(&scope, &key, "d", &task).await;
                (task, claimed)
            });
        }
        let mut results: Vec<(TaskId, Result<Option<KeptSend>, StoreError>)> = Vec::new();
        while let Some(joined) = racers.join_next().await {
            match joined {
                Ok(result) => results.push(result),
                Err(error) => check.fail(format!("a racer panicked: {error}")),
            }
        }
        let mut winners = Vec::new();
        let mut answers = Vec::new();
        for (task, claimed) in results {
            match check.ok(claimed, format!("racing for {key}")) {
                None => winners.push(task),
                Some(kept) => answers.push(kept.task_id),
            }
        }
        check.ensure_eq(&winners.len(), &1, format!("winners of round {round}"));
        let winner = &winners[0];
        check.ensure(
            answers.iter().all(|task| task == winner),
            format!("every loser of round {round} is told the winner's task {winner}"),
        );
    }
}

/// A key naming a terminal task expires with it: once the task is gone, the key is free.
/// Run by [`run_expiry`](super::run_expiry) on a store with `ttl`.
///
/// # Panics
/// When the store fails the check.
pub async fn a_send_key_goes_with_its_task(store: &dyn TaskStore, ttl: Duration) {
    let check = Check::new("a_send_key_goes_with_its_task");
    let scope = check.scope("acme", Some("alice"));
    let task = check.task_in("t", TaskState::Completed);
    check.claim(store, &scope, "m-1", "d", &task.id).await;
    let started = Instant::now();
    check.create(store, &scope, &task).await;
    let held = check.claim(store, &scope, "m-1", "d", &task.id).await;
    check.ensure(held.is_some(), "the key while its task is stored");
    sleep_until(started + ttl + Duration::from_millis(250)).await;
    check
        .expect_absent(store, &scope, &task.id, "after the TTL")
        .await;
    let again = check
        .claim(store, &scope, "m-1", "d", &check.id("new"))
        .await;
    check.ensure_eq(&again, &None, "claiming the key of an expired task");
}
