//! How a turn ended: its task's progress, and the actions an agent run waits for.

use a2a_types::StreamResponse;

use crate::actions::{self, Action};
use crate::progress::Progress;

/// How a turn ended: what it said about the task, and what an agent run waits for.
#[derive(Debug, Default)]
pub(super) struct TurnEnd {
    pub(super) progress: Progress,
    /// The run's pending actions, when the task waits for their answers.
    pub(super) actions: Vec<Action>,
    /// Why the run stopped, when it did.
    pub(super) stopped: Option<String>,
}

impl TurnEnd {
    pub(super) fn observe(&mut self, event: &StreamResponse) {
        self.progress.observe(event);
        if let Some(status) = actions::status_of(event) {
            self.actions = actions::pending_in(status);
            self.stopped = actions::stopped(status.message.as_ref()).map(str::to_owned);
        }
    }
}
