//! Making an [`ExecutorError`]: a failure shown to the client, an internal one, or a refusal.

use a2a_types::A2aError;

use super::ExecutorError;

impl ExecutorError {
    /// Fails the task with `message`, which the client will see.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed(message.into())
    }

    /// Fails the task with a generic message and logs `error`.
    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Internal(error.into())
    }
}

impl From<A2aError> for ExecutorError {
    fn from(error: A2aError) -> Self {
        Self::Refuse(error)
    }
}
