//! Run storage: the [`RunStore`] trait every backend implements, the in-memory store, and
//! the conformance suite every implementation must pass.
//!
//! Runs reuse the task store's vocabulary ([`TaskScope`], [`Version`], [`Expected`],
//! [`StoreError`]): a run lives beside its task, under the same scope, so a caller who cannot
//! see a task cannot see its run either.

mod memory;

#[cfg(any(test, feature = "store-conformance"))]
pub mod conformance;

use a2a_server::store::{Expected, StoreError, TaskScope, Version};
use a2a_types::TaskId;
use async_trait::async_trait;

pub use self::memory::InMemoryRunStore;
use crate::run::Run;

/// A run as stored, with the version its next save must name.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    /// The run.
    pub run: Run,
    /// The version of this copy.
    pub version: Version,
}

/// Durable or in-memory storage of runs, keyed by (scope, task id).
///
/// Implementations must guarantee:
/// - **Scope isolation**: a run is only visible under the [`TaskScope`] it was saved with;
///   under any other scope it looks missing.
/// - **Compare-and-swap**: `save` with [`Expected::Version`] succeeds only when the stored
///   copy is at that version and returns a new, greater version; otherwise it fails with
///   [`StoreError::Conflict`] and stores nothing. [`Expected::Version`] of a run that is not
///   stored (in that scope) fails with [`StoreError::NotFound`]; [`Expected::Absent`] fails
///   with `Conflict` when a run of that task exists under any scope.
/// - **Atomicity**: a failed save leaves the previous copy intact; a reader never sees a
///   half-written run.
/// - **Round trip**: `load` returns the run exactly as saved.
#[async_trait]
pub trait RunStore: Send + Sync + 'static {
    /// Loads the run of task `id`, or `None` when there is none in `scope`.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot be read.
    async fn load(&self, scope: &TaskScope, id: &TaskId) -> Result<Option<StoredRun>, StoreError>;

    /// Saves `run` under `scope` if the stored copy is as `expected`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] or [`StoreError::NotFound`] as described on the trait;
    /// [`StoreError::Backend`] when the store fails.
    async fn save(
        &self,
        scope: &TaskScope,
        run: &Run,
        expected: Expected,
    ) -> Result<Version, StoreError>;

    /// Deletes the run of task `id`; true when there was one in `scope`.
    ///
    /// # Errors
    /// [`StoreError`] when the store fails.
    async fn delete(&self, scope: &TaskScope, id: &TaskId) -> Result<bool, StoreError>;
}
