//! The background work of an instance that shares its store with others (see
//! [`Cluster`](crate::cluster::Cluster)): sending and hearing signals, renewing the leases of
//! its turns, and recovering the tasks of instances that died (so a turn lost with its
//! instance does not leave its task WORKING for good).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use a2a_types::{A2aError, Role, Task, TaskId, TaskState};
use tokio::sync::{broadcast, mpsc};

use super::apply::apply_change;
use super::engine::{Engine, Events, RequestExtras, TurnStart, store_failure};
use crate::cluster::{ClusterSignal, ExpiredLease};
use crate::executor::{Change, Recovery, Update};
use crate::store::{Expected, TaskScope};

/// How many expired leases one recovery pass claims.
const CLAIM_BATCH: usize = 100;

/// How many signals may wait for the publisher before new ones are dropped (they are hints:
/// the store stays the truth, and subscriptions read the log on their own beat).
const SIGNAL_QUEUE: usize = 1024;

/// The most signals one publish carries.
const SIGNAL_BATCH: usize = 256;

impl Engine {
    /// Starts the background work of a shared cluster, push delivery and the stuck-task
    /// sweep, once, when a tokio runtime is at hand (the router calls it). A cluster of one
    /// needs none of the cluster's part.
    pub(crate) fn start_background(self: &Arc<Self>) {
        let needed = self.cluster.is_shared()
            || self.push.is_some()
            || !self.config.stuck_task_ttl.is_zero();
        if !needed || self.background_started.load(Ordering::Acquire) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.background_started.swap(true, Ordering::AcqRel) {
            return;
        }
        let stop = self.background.clone();
        if let Some(push) = &self.push {
            runtime.spawn(Arc::clone(push).run(stop.clone()));
        }
        if !self.config.stuck_task_ttl.is_zero() {
            runtime.spawn(
                stop.clone()
                    .run_until_cancelled_owned(super::stuck::sweep(Arc::downgrade(self))),
            );
        }
        if !self.cluster.is_shared() {
            return;
        }
        let (outbox, signals) = mpsc::channel(SIGNAL_QUEUE);
        self.set_outbox(outbox);
        let weak = Arc::downgrade(self);
        let heard = self.cluster.subscribe();
        runtime.spawn(
            stop.clone()
                .run_until_cancelled_owned(send_signals(weak.clone(), signals)),
        );
        runtime.spawn(
            stop.clone()
                .run_until_cancelled_owned(hear_signals(weak.clone(), heard)),
        );
        runtime.spawn(stop.run_until_cancelled_owned(keep_leases(weak)));
    }
}

/// Sends queued signals to the cluster in order: each pass takes what is queued (up to
/// [`SIGNAL_BATCH`]), keeps the newest `Events` signal of each task, and publishes them in one
/// call, so that a busy instance signals in one round trip what it logged meanwhile.
async fn send_signals(engine: Weak<Engine>, mut signals: mpsc::Receiver<ClusterSignal>) {
    let mut batch = Vec::with_capacity(SIGNAL_BATCH);
    while signals.recv_many(&mut batch, SIGNAL_BATCH).await > 0 {
        let Some(engine) = engine.upgrade() else {
            return;
        };
        let batch = coalesce(std::mem::take(&mut batch));
        if let Err(error) = engine.cluster.publish_all(&batch).await {
            tracing::warn!(error = %error, "could not signal the other instances");
        }
    }
}

/// `signals` with each task's `Events` signals but the newest left out (a listener reads the
/// log up to the newest, and so sees the others' events too); cancels are kept, in order.
fn coalesce(signals: Vec<ClusterSignal>) -> Vec<ClusterSignal> {
    let mut newest: std::collections::HashMap<TaskId, usize> = std::collections::HashMap::new();
    for (at, signal) in signals.iter().enumerate() {
        if let ClusterSignal::Events { task_id, .. } = signal {
            newest.insert(task_id.clone(), at);
        }
    }
    signals
        .into_iter()
        .enumerate()
        .filter(|(at, signal)| match signal {
            ClusterSignal::Events { task_id, .. } => newest.get(task_id) == Some(at),
            ClusterSignal::Cancel { .. } => true,
        })
        .map(|(_, signal)| signal)
        .collect()
}

/// Acts on the signals of every instance: new events reach this instance's streams, cancels
/// stop this instance's turns.
async fn hear_signals(engine: Weak<Engine>, mut heard: broadcast::Receiver<ClusterSignal>) {
    loop {
        let signal = match heard.recv().await {
            Ok(signal) => signal,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                // Streams fill gaps from the log at their next event; a missed cancel is
                // caught by the turn at its next update (a stale save conflicts).
                tracing::warn!(missed, "missed cluster signals");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(engine) = engine.upgrade() else {
            return;
        };
        match signal {
            ClusterSignal::Events {
                task_id,
                last_sequence,
            } => {
                // Another instance logged events: its webhooks may be ours to serve.
                if let Some(push) = &engine.push {
                    push.wake();
                }
                relay_events(&engine, &task_id, last_sequence).await;
            }
            ClusterSignal::Cancel { task_id } => stop_canceled_turn(&engine, &task_id).await,
        }
    }
}

/// Publishes to this instance's listeners the logged events of `task_id` they have not seen.
async fn relay_events(engine: &Engine, task_id: &TaskId, last_sequence: u64) {
    let Some((scope, published)) = engine.events.watched(task_id) else {
        return;
    };
    if published >= last_sequence {
        return;
    }
    let limit = usize::try_from(last_sequence - published).unwrap_or(usize::MAX);
    match engine.store.events(&scope, task_id, published, limit).await {
        Ok(Some(events)) => {
            let closes = events
                .last()
                .is_some_and(|event| event.response.is_terminal_status());
            engine.events.publish(task_id, events, closes);
        }
        Ok(None) => {}
        Err(error) => {
            tracing::warn!(task_id = %task_id, error = %error, "could not read events signalled by another instance")
        }
    }
}

/// Stops this instance's turn of a task that another instance canceled.
async fn stop_canceled_turn(engine: &Engine, task_id: &TaskId) {
    let Some(turn) = engine.running_turn(task_id) else {
        return;
    };
    match engine.store.load(turn.scope(), task_id).await {
        Ok(Some(stored)) if stored.task.status.state == TaskState::Canceled => {
            turn.end_canceled(stored.task);
        }
        Ok(_) => {}
        Err(error) => {
            tracing::warn!(task_id = %task_id, error = %error, "could not load a task canceled elsewhere");
        }
    }
}

/// Renews the leases of this instance's turns every third of the lease TTL, and recovers
/// the tasks of expired leases every half of it.
async fn keep_leases(engine: Weak<Engine>) {
    let ttl = match engine.upgrade() {
        Some(engine) => engine.cluster.lease_ttl(),
        None => return,
    };
    let renew_every = (ttl / 3).max(Duration::from_millis(10));
    let reap_every = (ttl / 2).max(Duration::from_millis(10));
    let mut renew = tokio::time::interval(renew_every);
    let mut reap = tokio::time::interval(reap_every);
    renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    reap.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = renew.tick() => {
                let Some(engine) = engine.upgrade() else { return };
                let running = engine.running_task_ids();
                if !running.is_empty()
                    && let Err(error) = engine.cluster.renew_leases(&running).await
                {
                    tracing::warn!(error = %error, "could not renew turn leases");
                }
            }
            _ = reap.tick() => {
                let Some(engine) = engine.upgrade() else { return };
                engine.recover_expired().await;
            }
        }
    }
}

impl Engine {
    /// One recovery pass: claims expired leases and settles their tasks.
    async fn recover_expired(self: &Arc<Self>) {
        let engine = self;
        let claimed = match engine.cluster.claim_expired_leases(CLAIM_BATCH).await {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::warn!(error = %error, "could not claim expired turn leases");
                return;
            }
        };
        for lease in claimed {
            if let Err(error) = self.recover(&lease).await {
                tracing::warn!(task_id = %lease.task_id, error = %error, "could not recover a task whose turn was lost");
            }
        }
    }

    /// Settles one task whose turn was lost: fails it, or runs its turn again here.
    async fn recover(self: &Arc<Self>, lease: &ExpiredLease) -> Result<(), A2aError> {
        let engine = self;
        let task_id = &lease.task_id;
        if engine.running_turn(task_id).is_some() {
            // Ours after all (a renewal failed): it goes on, and keeps the lease.
            return Ok(());
        }
        let _guard = engine.locks.lock(task_id).await;
        let release = || async {
            if let Err(error) = engine.cluster.release_lease(task_id).await {
                tracing::warn!(task_id = %task_id, error = %error, "could not release a lease");
            }
        };
        let Some(stored) = engine.load(&lease.scope, task_id).await? else {
            release().await;
            return Ok(());
        };
        let task = stored.task;
        match task.status.state {
            TaskState::Submitted | TaskState::Working | TaskState::AuthRequired => {}
            TaskState::Unspecified
            | TaskState::InputRequired
            | TaskState::Completed
            | TaskState::Failed
            | TaskState::Canceled
            | TaskState::Rejected => {
                release().await;
                return Ok(());
            }
        }
        tracing::warn!(task_id = %task_id, holder = %lease.holder, "the instance running this task stopped; recovering it");
        match self.executor.recover(&task).await {
            Recovery::Rerun => match last_client_message(&task) {
                Some(_) => self.rerun(&lease.scope, task),
                None => {
                    self.fail_lost(&lease.scope, task, stored.version, None)
                        .await
                }
            },
            Recovery::Fail(text) => {
                self.fail_lost(&lease.scope, task, stored.version, Some(text))
                    .await
            }
        }
    }

    /// Fails a task whose turn was lost (or, for the stuck-task sweep, that made no progress).
    pub(super) async fn fail_lost(
        &self,
        scope: &TaskScope,
        mut task: Task,
        version: crate::store::Version,
        text: Option<String>,
    ) -> Result<(), A2aError> {
        let engine = self;
        let text = text.unwrap_or_else(|| crate::executor::LOST_TURN_MESSAGE.to_owned());
        let change = Change::Status {
            state: TaskState::Failed,
            update: Update::from(text),
        };
        let event = apply_change(&mut task, change, &engine.deps).map_err(|error| {
            tracing::error!(task_id = %task.id, error = %error, "could not fail a task whose turn was lost");
            A2aError::internal()
        })?;
        engine
            .record(scope, &task, Expected::Version(version), vec![event])
            .await
            .map_err(store_failure)?;
        Ok(())
    }

    /// Runs the executor again for the task's last client message (the lease's task is
    /// ours now, and stays so while the turn renews it).
    fn rerun(self: &Arc<Self>, scope: &TaskScope, task: Task) -> Result<(), A2aError> {
        let Some(message) = last_client_message(&task).cloned() else {
            return Ok(());
        };
        let ticket = self.admission.admit(false)?;
        let start = TurnStart {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            scope: scope.clone(),
            message,
            task: Some(task),
            events: Events::ViewOnly,
            extras: RequestExtras::default(),
            send_key: None,
        };
        drop(self.start(start, ticket));
        Ok(())
    }
}

/// The last message of the task's history that came from the client.
fn last_client_message(task: &Task) -> Option<&a2a_types::Message> {
    task.history
        .iter()
        .rev()
        .find(|message| message.role == Role::User)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(task: &str, last_sequence: u64) -> ClusterSignal {
        ClusterSignal::Events {
            task_id: TaskId::from(task),
            last_sequence,
        }
    }

    #[test]
    fn a_batch_keeps_each_tasks_newest_events_and_every_cancel_in_order() {
        let cancel = ClusterSignal::Cancel {
            task_id: TaskId::from("a"),
        };
        let batch = vec![
            events("a", 1),
            events("b", 1),
            events("a", 2),
            cancel.clone(),
            events("a", 3),
            events("b", 2),
        ];
        assert_eq!(
            coalesce(batch),
            vec![cancel, events("a", 3), events("b", 2)]
        );
    }
}
