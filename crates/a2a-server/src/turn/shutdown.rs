//! Stopping the engine: every turn refused, failed, drained or canceled, in that order.

use std::time::Duration;

use super::admission::SHUTTING_DOWN;
use super::engine::Engine;

impl Engine {
    /// Stops every turn: refuses new ones, fails queued ones now, gives running ones
    /// `grace`, then fails and cancels those still running; returns once all have settled.
    pub(crate) async fn shutdown(&self, grace: Duration) {
        for turn in self.admission.begin_shutdown() {
            turn.fail(SHUTTING_DOWN).await;
            // Wakes its waiter, which then leaves without running.
            turn.cancel();
        }
        if self.admission.settled_within(grace).await {
            return;
        }
        let running = self.running.all();
        tracing::warn!(
            turns = running.len(),
            grace_ms = u64::try_from(grace.as_millis()).unwrap_or(u64::MAX),
            "turns still running after the shutdown grace; failing and canceling them"
        );
        // Fail first, so the task ends FAILED whatever the executor does once canceled.
        for turn in running {
            turn.fail(SHUTTING_DOWN).await;
        }
        // Also reaches executors still running after their turn ended (a reply, INPUT_REQUIRED).
        self.admission.stop_all().await;
    }
}
