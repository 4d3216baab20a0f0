//! The body of a push delivery to a webhook registered over v0.3.

use a2a_types::v03;

use super::rejected;

/// The body of a v0.3 push delivery: the task, `kind: "task"`.
///
/// # Errors
/// When the task cannot be encoded.
pub(crate) fn push_body(task: a2a_types::Task) -> Result<Vec<u8>, serde_json::Error> {
    let mut task = v03::Task::from(task);
    rejected::task(&mut task);
    serde_json::to_vec(&task)
}
