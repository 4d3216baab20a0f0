//! The checks of push delivery state: claims and progress (the concurrent claims are in
//! `claim_race`), and the run of them all.

use std::sync::Arc;

use a2a_types::PushConfigId;

use super::claim_race::concurrent_claims_never_hand_one_webhook_to_two_instances;
use super::deliveries::{Deliveries, Logged, for_a_second, wall_clock_ms};
use crate::store::{DeliveryProgress, PushConfigStore, TaskStore};

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
    a_settled_webhook_is_never_claimed_again(&tasks, &push).await;
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
    d.expect_claims(for_a_second("a", t0), &[], "before event 3")
        .await;
    d.log(&mut log, 1, "logging event 3").await;
    d.expect_claims(
        for_a_second("a", t0),
        &[Deliveries::claimed(&log, &hook, 2, 0)],
        "after event 3",
    )
    .await;

    let mut later = d.task(d.check.scope("acme", None), "later");
    let early = d
        .register(&later, "early", "https://example.com/b", 0)
        .await;
    d.expect_claims(
        for_a_second("a", t0),
        &[],
        "a config of a task not created yet",
    )
    .await;
    d.log(&mut later, 1, "creating the task with 1 event").await;
    d.expect_claims(
        for_a_second("a", t0),
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

    d.expect_claims(for_a_second("a", t0), &due, "the first claim")
        .await;
    for (instance, now) in [("b", t0), ("b", t0 + 999), ("a", t0 + 500)] {
        d.expect_claims(
            for_a_second(instance, now),
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
        for_a_second("a", t0),
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
        for_a_second("b", t0),
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
        for_a_second("a", t0),
        &[Deliveries::claimed(&log, &hook, 0, 0)],
        "a's claim",
    )
    .await;
    let backoff = DeliveryProgress::new(0, 1, t0 + 5000, None);
    d.expect_record(&log, "hook", "a", backoff, true, "a, backing off")
        .await;
    for now in [t0, t0 + 4999] {
        d.expect_claims(
            for_a_second("b", now),
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

/// A webhook recorded as [`DeliveryProgress::settled`] is never claimed again, however late
/// the claim and whatever its task logs afterwards (the engine settles only webhooks of
/// terminal tasks, which log nothing more).
///
/// # Panics
/// When the store fails the check.
pub async fn a_settled_webhook_is_never_claimed_again(
    tasks: &dyn TaskStore,
    push: &dyn PushConfigStore,
) {
    let d = Deliveries::new("a_settled_webhook_is_never_claimed_again", tasks, push);
    let t0 = wall_clock_ms();
    let mut log = d.task(d.check.scope("acme", Some("alice")), "t");
    let hook = d.register(&log, "hook", "https://example.com/a", 0).await;
    d.log(&mut log, 2, "creating the task with 2 events").await;
    d.expect_claims(
        for_a_second("a", t0),
        &[Deliveries::claimed(&log, &hook, 0, 0)],
        "a's claim",
    )
    .await;
    d.expect_record(
        &log,
        "hook",
        "a",
        DeliveryProgress::settled(2),
        true,
        "a, settling",
    )
    .await;
    d.log(&mut log, 1, "logging event 3").await;
    // Ten years on, past any claim or backoff.
    let late = t0 + 10 * 365 * 24 * 3600 * 1000;
    for (instance, now) in [("a", t0 + 1000), ("b", late)] {
        d.expect_claims(
            for_a_second(instance, now),
            &[],
            format_args!("{instance} claiming {} ms later", now - t0),
        )
        .await;
    }
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
        for_a_second("a", t0),
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
        for_a_second("b", t0),
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
        for_a_second("b", t0),
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
        for_a_second("a", t0),
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
