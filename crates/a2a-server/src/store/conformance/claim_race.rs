//! The check that instances claiming at once never share a webhook.

use std::collections::BTreeSet;
use std::sync::Arc;

use tokio::sync::Barrier;
use tokio::task::JoinSet;

use super::check::ROUNDS;
use super::deliveries::{Deliveries, wall_clock_ms, webhook_key};
use crate::store::{PushConfigStore, TaskStore};

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
