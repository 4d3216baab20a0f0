//! Running the executor of a turn within its bounds, and settling the turn once it stopped
//! (within `async_timeout`): complete, fail, or take back what the turn did.

use std::time::Duration;

use a2a_types::{A2aError, TaskState};
use futures::FutureExt as _;

use super::apply::apply_change;
use super::engine::Engine;
use super::run::Turn;
use crate::executor::Change;
use crate::executor::{ExecutorError, Update};
use crate::hooks::TaskFailure;

/// How long an executor may go on after its cancellation fired before its future is dropped.
/// The executor contract asks it to return soon after; this bounds one that does not, so its
/// concurrency slot and a shutdown are not held until `async_timeout`.
pub(super) const CANCELED_EXECUTOR_GRACE: Duration = Duration::from_secs(5);

/// How the executor's future settled.
#[derive(Debug)]
pub(super) enum Outcome {
    Returned(Result<(), ExecutorError>),
    Panicked,
    TimedOut,
    /// Still running [`CANCELED_EXECUTOR_GRACE`] after its cancellation fired: dropped.
    Abandoned,
}

impl Turn {
    /// Runs the executor's future to its end, catching a panic, and bounded by `async_timeout`
    /// (overrunning work fails the task) and by [`CANCELED_EXECUTOR_GRACE`] after the turn's
    /// cancellation.
    pub(super) async fn run_executor(
        &self,
        execute: impl Future<Output = Result<(), ExecutorError>>,
    ) -> Outcome {
        let run = std::panic::AssertUnwindSafe(execute).catch_unwind();
        let bounded = tokio::time::timeout(self.engine.config.async_timeout, run);
        let abandon = async {
            self.cancellation.cancelled().await;
            tokio::time::sleep(CANCELED_EXECUTOR_GRACE).await;
        };
        tokio::select! {
            biased;
            outcome = bounded => match outcome {
                Ok(Ok(result)) => Outcome::Returned(result),
                Ok(Err(_panic)) => Outcome::Panicked,
                Err(_elapsed) => Outcome::TimedOut,
            },
            () = abandon => Outcome::Abandoned,
        }
    }

    /// Fails the task with `text` unless the turn already ended (used at shutdown).
    pub(super) async fn fail(&self, text: &str) {
        if self.is_ended() {
            return;
        }
        let _guard = self.lock.lock().await;
        if self.is_ended() {
            return;
        }
        self.finish_failed(text.to_owned()).await;
    }

    /// Settles the turn once the executor's future finished: SUBMITTED or WORKING completes,
    /// AUTH_REQUIRED stays waiting, an error fails the task or refuses the request.
    pub(super) async fn finish(&self, outcome: Outcome) {
        if self.is_ended() {
            if let Outcome::Returned(Err(error)) = &outcome {
                tracing::debug!(task_id = %self.task_id, error = %error, "executor error after its turn ended");
            }
            return;
        }
        let _guard = self.lock.lock().await;
        if self.is_ended() {
            return;
        }
        let (created, changed) = {
            let flags = self.flags();
            (flags.created, flags.changed)
        };
        let failure = match &outcome {
            // A queued task was answered as SUBMITTED before it ran (only queued requests
            // wait for a slot): an agent that did nothing with it gets what a new interaction
            // gets (InvalidAgentResponse), as a failed task.
            Outcome::Returned(Ok(())) if self.queued && !changed => {
                "the agent neither replied nor updated the task".to_owned()
            }
            Outcome::Returned(Ok(())) => {
                self.finish_returned(created).await;
                return;
            }
            // A queued request was answered long ago, so a refusal can only fail the task.
            Outcome::Returned(Err(ExecutorError::Refuse(error))) if !changed && !self.queued => {
                self.finish_refused(error.clone()).await;
                return;
            }
            Outcome::Returned(Err(ExecutorError::Refuse(error))) => error.message().to_owned(),
            Outcome::Returned(Err(ExecutorError::Failed(message))) => message.clone(),
            Outcome::Returned(Err(ExecutorError::Update(error))) => {
                tracing::warn!(task_id = %self.task_id, error = %error, "executor gave up after a refused update");
                "the agent could not update the task".to_owned()
            }
            Outcome::Returned(Err(ExecutorError::Internal(error))) => {
                tracing::error!(task_id = %self.task_id, error = %error, source = ?std::error::Error::source(error.as_ref()), "executor failed");
                "the agent failed while working on the task".to_owned()
            }
            Outcome::Panicked => {
                tracing::error!(task_id = %self.task_id, "executor panicked");
                "the agent failed while working on the task".to_owned()
            }
            Outcome::Abandoned => {
                // Cancellation fires after the turn ended, so this is rare: a turn that started
                // just as shutdown gave up waiting.
                tracing::warn!(task_id = %self.task_id, "executor ignored its cancellation and was dropped");
                "the agent did not stop after its work was canceled".to_owned()
            }
            Outcome::TimedOut => {
                self.cancellation.cancel();
                format!(
                    "the agent did not finish within {} s",
                    self.engine.config.async_timeout.as_secs()
                )
            }
        };
        let failure = reword_failure(&self.engine, &self.task_id, &outcome, failure);
        self.finish_failed(failure).await;
    }

    async fn finish_returned(&self, created: bool) {
        if !created {
            if self.is_new {
                // A new interaction with neither a reply nor an update: the store failure
                // that kept its task from being stored, else InvalidAgentResponse.
                let store_failure = self.flags().store_failure.take();
                self.end(|view| {
                    view.refusal = Some(store_failure.unwrap_or_else(|| {
                        A2aError::invalid_agent_response(
                            "the agent neither replied nor created a task",
                        )
                    }));
                });
            } else {
                self.end(|_| {});
            }
            return;
        }
        let current = self.current().await;
        let Ok((task, expected, events)) = current else {
            self.end(|_| {});
            return;
        };
        match task.status.state {
            TaskState::Submitted | TaskState::Working => {
                let mut task = task;
                let mut events = events;
                let change = Change::Status {
                    state: TaskState::Completed,
                    update: Update::default(),
                };
                match apply_change(&mut task, change, &self.engine.deps) {
                    Ok(event) => events.push(event),
                    Err(error) => {
                        tracing::error!(task_id = %self.task_id, error = %error, "could not complete the task");
                        self.end(|_| {});
                        return;
                    }
                }
                if let Err(error) = self
                    .commit(task, expected, events, Some(TaskState::Completed))
                    .await
                {
                    tracing::warn!(task_id = %self.task_id, error = %error, "could not complete the task");
                    self.end(|_| {});
                }
            }
            // AUTH_REQUIRED waits for credentials; INPUT_REQUIRED (a follow-up that changed only
            // artifacts) keeps waiting for the client.
            TaskState::AuthRequired
            | TaskState::InputRequired
            | TaskState::Unspecified
            | TaskState::Completed
            | TaskState::Failed
            | TaskState::Canceled
            | TaskState::Rejected => self.end(|view| view.task = Some(std::sync::Arc::new(task))),
        }
    }

    async fn finish_refused(&self, error: A2aError) {
        if !self.is_new {
            // A refused request leaves the task as it was: take the refused follow-up message
            // back out of the history.
            if let Ok((mut task, expected, _)) = self.current().await {
                let message_id = &self.message.message_id;
                if let Some(position) = task
                    .history
                    .iter()
                    .rposition(|m| &m.message_id == message_id)
                {
                    task.history.remove(position);
                    if let Err(store_error) = self
                        .engine
                        .store
                        .save(&self.scope, &task, expected, &[])
                        .await
                    {
                        tracing::error!(task_id = %self.task_id, error = %store_error, "could not withdraw a refused message");
                    }
                }
            }
        }
        self.end(|view| view.refusal = Some(error));
    }

    async fn finish_failed(&self, text: String) {
        let Ok((mut task, expected, mut events)) = self.current().await else {
            self.end_unrecorded();
            return;
        };
        let change = Change::Status {
            state: TaskState::Failed,
            update: Update::from(text),
        };
        match apply_change(&mut task, change, &self.engine.deps) {
            Ok(event) => events.push(event),
            Err(error) => {
                tracing::error!(task_id = %self.task_id, error = %error, "could not fail the task");
                self.end(|_| {});
                return;
            }
        }
        if let Err(error) = self
            .commit(task, expected, events, Some(TaskState::Failed))
            .await
        {
            tracing::warn!(task_id = %self.task_id, error = %error, "could not fail the task");
            self.end_unrecorded();
        }
    }

    /// Ends a turn whose end could not be stored. A new interaction whose task was never
    /// stored has nothing to answer with: it is refused with the store failure that kept
    /// it out (Unavailable while the database cannot take writes).
    fn end_unrecorded(&self) {
        let refusal = {
            let mut flags = self.flags();
            if self.is_new && !flags.created {
                flags.store_failure.take()
            } else {
                None
            }
        };
        self.end(|view| {
            if let Some(refusal) = refusal {
                view.refusal = Some(refusal);
            }
        });
    }
}

/// The failure text of `outcome`: `default`, unless the hook rewords it.
fn reword_failure(
    engine: &Engine,
    task_id: &a2a_types::TaskId,
    outcome: &Outcome,
    default: String,
) -> String {
    let Some(hook) = &engine.failure_message else {
        return default;
    };
    let failure = match outcome {
        Outcome::Returned(Ok(())) => TaskFailure::NothingDone,
        Outcome::Returned(Err(error)) => TaskFailure::Executor(error),
        Outcome::Panicked => TaskFailure::Panicked,
        Outcome::TimedOut => TaskFailure::TimedOut,
        Outcome::Abandoned => TaskFailure::IgnoredCancellation,
    };
    hook.failure_message(task_id, failure, &default)
}
