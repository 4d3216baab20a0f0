//! One running delivery check: its stores, its tasks' logs and the configs it registered.

use std::collections::BTreeSet;
use std::fmt::Display;
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use a2a_types::{PushConfigId, Task, TaskId, TaskPushNotificationConfig};

use super::check::Check;
use crate::store::{
    ClaimedWebhook, DeliveryProgress, Expected, PushConfigStore, TaskScope, TaskStore, Version,
};

/// The system clock in Unix milliseconds: the base of the delivery checks' times, so that a
/// store comparing them with task expiry times sees plausible instants.
pub(super) fn wall_clock_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// What tells claimed webhooks apart: task id and config id.
pub(super) fn webhook_key(webhook: &ClaimedWebhook) -> (String, String) {
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
pub(super) type Claim<'i> = (&'i str, u64, u64, usize);

/// A claim by `instance` at `now` that lasts a second and takes ten webhooks at most: what
/// most checks ask for.
pub(super) fn for_a_second(instance: &str, now: u64) -> Claim<'_> {
    (instance, now, now + 1000, 10)
}

/// A task of a delivery check, and where its log stands.
#[derive(Debug, Clone)]
pub(super) struct Logged {
    pub(super) scope: TaskScope,
    pub(super) task: Task,
    pub(super) version: Option<Version>,
    pub(super) last_sequence: u64,
}

/// One running delivery check: its stores, and the configs it registered, which it deletes
/// at its end so that later checks over the same database find nothing due.
pub(super) struct Deliveries<'s> {
    pub(super) check: Check,
    tasks: &'s dyn TaskStore,
    push: &'s dyn PushConfigStore,
    registered: Mutex<BTreeSet<(TaskScope, TaskId, String)>>,
}

impl<'s> Deliveries<'s> {
    pub(super) fn new(
        name: &'static str,
        tasks: &'s dyn TaskStore,
        push: &'s dyn PushConfigStore,
    ) -> Self {
        Self {
            check: Check::new(name),
            tasks,
            push,
            registered: Mutex::new(BTreeSet::new()),
        }
    }

    /// A task of this check under `scope`, not saved yet.
    pub(super) fn task(&self, scope: TaskScope, name: &str) -> Logged {
        Logged {
            scope,
            task: self.check.working(name),
            version: None,
            last_sequence: 0,
        }
    }

    /// Saves the task with `count` more events (creating it the first time), then tells the
    /// push-config store where the log ends, as the delivery engine does.
    pub(super) async fn log(&self, logged: &mut Logged, count: usize, what: &str) {
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
    pub(super) async fn register(
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
    pub(super) fn claimed(
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
    pub(super) async fn claim(
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
    pub(super) fn own(&self, claimed: Vec<ClaimedWebhook>, what: &str) -> Vec<ClaimedWebhook> {
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
    pub(super) async fn expect_claims(
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
    pub(super) fn expect_each_once(
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
    pub(super) async fn expect_record(
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
    pub(super) async fn finish(self) {
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
