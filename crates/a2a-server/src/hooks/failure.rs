//! How a failed task's status message is worded: the [`FailureMessage`] hook.

use a2a_types::TaskId;

/// Why a task failed, as a [`FailureMessage`] hook sees it.
#[derive(Debug)]
#[non_exhaustive]
pub enum TaskFailure<'a> {
    /// The executor returned this error: a failure, an internal error (its cause is never
    /// shown by default), a refused update, or a refusal that came after the task changed.
    Executor(&'a crate::ExecutorError),
    /// The executor returned without doing anything with a task that waited in the queue.
    NothingDone,
    /// The executor panicked.
    Panicked,
    /// The executor ran past the server's time limit for a turn.
    TimedOut,
    /// The executor did not stop after its task was canceled, and was dropped.
    IgnoredCancellation,
}

/// Rewords the status message of a task the executor's outcome failed.
///
/// It gets the task, why it failed and the text the server would show (which never carries
/// an internal error's message), and returns the text to show instead. What it returns
/// reaches the client: keep secrets and internal details out. Failures the server makes
/// itself (shutdown) keep their own text.
///
/// Any `Fn(&TaskId, TaskFailure<'_>, &str) -> String` is one.
pub trait FailureMessage: Send + Sync + 'static {
    /// The status message of the failed task `task_id`.
    fn failure_message(&self, task_id: &TaskId, failure: TaskFailure<'_>, default: &str) -> String;
}

impl<F> FailureMessage for F
where
    F: Fn(&TaskId, TaskFailure<'_>, &str) -> String + Send + Sync + 'static,
{
    fn failure_message(&self, task_id: &TaskId, failure: TaskFailure<'_>, default: &str) -> String {
        self(task_id, failure, default)
    }
}
