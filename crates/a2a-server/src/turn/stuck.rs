//! The stuck-task sweep ([`ServerConfig::stuck_task_ttl`](crate::config::ServerConfig)): on a
//! timer, tasks left SUBMITTED or WORKING with no turn in this process and no status change
//! for longer than the TTL are failed through the engine, so their FAILED event is logged,
//! streamed and pushed like any other.

use std::sync::{Arc, Weak};
use std::time::Duration;

use a2a_types::{A2aError, TaskId, TaskState};

use super::engine::Engine;
use crate::store::TaskScope;

/// How many stuck tasks one pass fails at most; the rest wait for the next pass.
const SWEEP_BATCH: usize = 1000;

/// The shortest and the longest time between two passes.
const MIN_PERIOD: Duration = Duration::from_millis(10);
const MAX_PERIOD: Duration = Duration::from_secs(60);

/// How often the sweep looks: a tenth of the TTL, within [`MIN_PERIOD`] and [`MAX_PERIOD`].
fn period(ttl: Duration) -> Duration {
    (ttl / 10).clamp(MIN_PERIOD, MAX_PERIOD)
}

/// Runs a pass every [`period`] of the TTL until the engine goes.
pub(super) async fn sweep(engine: Weak<Engine>) {
    let ttl = match engine.upgrade() {
        Some(engine) => engine.config.stuck_task_ttl,
        None => return,
    };
    if ttl.is_zero() {
        return;
    }
    let mut ticks = tokio::time::interval(period(ttl));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(engine) = engine.upgrade() else {
            return;
        };
        engine.sweep_stuck(ttl).await;
    }
}

impl Engine {
    /// One pass: fails every stuck task the store names that no turn here runs.
    async fn sweep_stuck(self: &Arc<Self>, ttl: Duration) {
        let now = self.deps.clock.now();
        let candidates = match self.store.stuck_tasks(&now, ttl, SWEEP_BATCH).await {
            Ok(candidates) => candidates,
            Err(error) => {
                tracing::warn!(error = %error, "could not look for stuck tasks");
                return;
            }
        };
        for (scope, task_id) in candidates {
            if self.running_turn(&task_id).is_some() {
                continue;
            }
            if let Err(error) = self.fail_stuck(&scope, &task_id, ttl).await {
                tracing::warn!(task_id = %task_id, error = %error, "could not fail a stuck task");
            }
        }
    }

    /// Fails `task_id` if, under its lock, it is still stuck and still has no turn here.
    async fn fail_stuck(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        ttl: Duration,
    ) -> Result<(), A2aError> {
        let _guard = self.locks.lock(task_id).await;
        if self.running_turn(task_id).is_some() {
            return Ok(());
        }
        let Some(stored) = self.load(scope, task_id).await? else {
            return Ok(());
        };
        let task = stored.task;
        match task.status.state {
            TaskState::Submitted | TaskState::Working => {}
            TaskState::Unspecified
            | TaskState::InputRequired
            | TaskState::AuthRequired
            | TaskState::Completed
            | TaskState::Failed
            | TaskState::Canceled
            | TaskState::Rejected => return Ok(()),
        }
        // A change between the scan and the lock made it young again.
        let now = self.deps.clock.now().unix_millis();
        let ttl_millis = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        let changed = task
            .status
            .timestamp
            .as_ref()
            .map(|stamp| stamp.unix_millis());
        if changed.is_none_or(|changed| now.saturating_sub(changed) <= ttl_millis) {
            return Ok(());
        }
        tracing::warn!(task_id = %task_id, state = ?task.status.state, "failing a task that made no progress");
        let text = stuck_message(ttl);
        self.fail_lost(scope, task, stored.version, Some(text))
            .await
    }
}

/// The status message of a task failed by the sweep.
fn stuck_message(ttl: Duration) -> String {
    format!(
        "the task made no progress for {} and was failed",
        short_duration(ttl)
    )
}

/// `ttl` in its largest whole unit: `10m`, `90s`, `1500ms`.
fn short_duration(ttl: Duration) -> String {
    let millis = ttl.as_millis();
    match millis {
        0 => "0s".to_owned(),
        _ if millis.is_multiple_of(3_600_000) => format!("{}h", millis / 3_600_000),
        _ if millis.is_multiple_of(60_000) => format!("{}m", millis / 60_000),
        _ if millis.is_multiple_of(1000) => format!("{}s", millis / 1000),
        _ => format!("{millis}ms"),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{period, stuck_message};

    #[test]
    fn the_message_names_the_ttl_in_its_largest_whole_unit() {
        assert_eq!(
            stuck_message(Duration::from_secs(600)),
            "the task made no progress for 10m and was failed"
        );
        assert_eq!(
            stuck_message(Duration::from_secs(7200)),
            "the task made no progress for 2h and was failed"
        );
        assert_eq!(
            stuck_message(Duration::from_secs(90)),
            "the task made no progress for 90s and was failed"
        );
        assert_eq!(
            stuck_message(Duration::from_millis(1500)),
            "the task made no progress for 1500ms and was failed"
        );
    }

    #[test]
    fn the_sweep_looks_every_tenth_of_the_ttl_within_bounds() {
        assert_eq!(period(Duration::from_secs(10)), Duration::from_secs(1));
        assert_eq!(period(Duration::from_millis(20)), Duration::from_millis(10));
        assert_eq!(period(Duration::from_secs(3600)), Duration::from_secs(60));
    }
}
