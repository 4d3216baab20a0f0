//! What every operation reads the same way from its request: the tenant, and the history
//! length of the tasks it returns.

use a2a_types::{A2aError, Task};

use super::CallContext;

/// The tenant of a request: the binding's (REST path) wins over the request body's.
pub(super) fn tenant_of(call: &CallContext, request_tenant: &str) -> String {
    if call.tenant.is_empty() {
        request_tenant.to_owned()
    } else {
        call.tenant.clone()
    }
}

/// Checks a `historyLength` (negative is InvalidParams) and turns it into a count (`None`:
/// no limit).
pub(super) fn history_length(length: Option<i32>) -> Result<Option<usize>, A2aError> {
    match length {
        None => Ok(None),
        Some(length) => usize::try_from(length)
            .map(Some)
            .map_err(|_| A2aError::invalid_field("historyLength", "must not be negative")),
    }
}

/// Applies a checked `historyLength` to a task about to be returned.
pub(super) fn trim_history(mut task: Task, length: Option<usize>) -> Task {
    if let Some(length) = length {
        task.truncate_history(length);
    }
    task
}
