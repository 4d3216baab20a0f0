//! What a client sees of a failed store call: an internal error, its cause only in the log.

use a2a_types::A2aError;

use super::StoreError;

/// Logs a store failure and hides it from the client (its cause may name hosts, tables or accounts).
#[allow(clippy::needless_pass_by_value)] // shaped for `map_err(store_failure)`
pub(crate) fn store_failure(error: StoreError) -> A2aError {
    tracing::error!(error = %error, source = ?std::error::Error::source(&error), "task store failed");
    A2aError::internal()
}
