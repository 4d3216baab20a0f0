//! What a client sees of a failed store call: Unavailable when the backend cannot take it
//! for now, else an internal error; the cause only in the log.

use a2a_types::{A2aError, ErrorKind};

use super::StoreError;

/// What a client is told of a failed store call; never the cause, which may name hosts,
/// tables, files or accounts.
pub(crate) fn client_error(error: &StoreError) -> A2aError {
    match error {
        StoreError::Unavailable(_) => A2aError::new(
            ErrorKind::Unavailable,
            "the task store is unavailable (unreachable, busy or out of space); retry later",
        ),
        StoreError::Conflict { .. }
        | StoreError::NotFound { .. }
        | StoreError::Limit { .. }
        | StoreError::Backend(_) => A2aError::internal(),
    }
}

/// Logs a store failure and hides its cause from the client ([`client_error`]).
#[allow(clippy::needless_pass_by_value)] // shaped for `map_err(store_failure)`
pub(crate) fn store_failure(error: StoreError) -> A2aError {
    tracing::error!(error = %error, source = ?std::error::Error::source(&error), "task store failed");
    client_error(&error)
}
