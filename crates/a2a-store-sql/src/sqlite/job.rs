//! A write waiting for the SQLite writer ([`Job`]), how its caller is answered, and the
//! hook a batch runs before its jobs.

use std::any::Any;
use std::sync::Arc;

use async_trait::async_trait;
use futures::future::BoxFuture;
use sqlx::SqliteConnection;
use tokio::sync::oneshot;

use a2a_server::store::StoreError;

/// The SQLite writer task is gone: the store was closed, or the runtime is shutting down.
#[derive(Debug, thiserror::Error)]
#[error("the SQLite writer stopped")]
pub(crate) struct WriterStopped;

/// A write waiting for the writer, with its result type erased.
#[async_trait]
pub(super) trait Job: Send + 'static {
    /// Runs the write in the open transaction.
    async fn run(&mut self, conn: &mut SqliteConnection) -> Result<(), sqlx::Error>;

    /// Answers the caller: with the last run's result when its transaction committed,
    /// with `failure` otherwise.
    fn answer(self: Box<Self>, failure: Option<Arc<sqlx::Error>>);

    /// The job as its own type, for a batch [`Prelude`] that treats some jobs apart.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Runs in each batch's transaction before its jobs, over all of them: task saves put their
/// first statements in one text there (see `save.rs`).
pub(super) type Prelude = for<'c> fn(
    &'c mut SqliteConnection,
    &'c mut [Box<dyn Job>],
) -> BoxFuture<'c, Result<(), sqlx::Error>>;

/// Answers a job's caller: with `outcome` when its transaction committed, with `failure`
/// otherwise.
pub(super) fn send_answer<T>(
    reply: oneshot::Sender<Result<T, StoreError>>,
    outcome: Option<T>,
    failure: Option<Arc<sqlx::Error>>,
) {
    let result = match (failure, outcome) {
        (None, Some(outcome)) => Ok(outcome),
        (Some(error), _) => Err(crate::error::shared_backend(error)),
        // A job is answered without a failure only after it ran.
        (None, None) => Err(StoreError::Backend(Box::new(WriterStopped))),
    };
    // The caller may have given up waiting; the write stands either way.
    let _ = reply.send(result);
}
