//! Task storage: the [`TaskStore`] trait every backend implements (tasks with their event
//! log), the [`PushConfigStore`] trait, the in-memory stores, and the conformance suite that
//! every implementation must pass.

mod failure;
mod fold;
mod memory;
mod push;
mod query;
mod scope;
mod sends;

#[cfg(any(test, feature = "store-conformance"))]
pub mod conformance;

use a2a_types::{StreamResponse, Task, TaskId};
use async_trait::async_trait;

pub use self::fold::fold_artifact_update;
pub use self::memory::{InMemoryTaskStore, InMemoryTaskStoreConfig};
pub use self::push::{
    ClaimedWebhook, DEFAULT_MAX_PUSH_CONFIGS_PER_TASK, DeliveryProgress, InMemoryPushConfigStore,
    PushConfigStore,
};
pub use self::query::{TaskCursor, TaskPage, TaskQuery};
pub use self::sends::KeptSend;

pub(crate) use self::failure::{client_error, store_failure};

/// Whose task this is: stores key tasks by (tenant, owner, task id).
///
/// A task saved under one scope is invisible under every other scope: `load` returns `None`
/// and `list` leaves it out, exactly as for a task that does not exist (spec §7.2: never reveal
/// inaccessible tasks).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskScope {
    /// The A2A tenant of the request; empty when the request named none.
    pub tenant: String,
    /// The authenticated caller's identity; `None` when authentication is off, in which case
    /// every caller of the tenant shares its tasks.
    pub owner: Option<String>,
}

/// A version stamp for compare-and-swap saves. Every successful save returns a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version(pub u64);

/// A task as stored, with the version its next save must name.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTask {
    /// The task.
    pub task: Task,
    /// The version of this copy.
    pub version: Version,
    /// The sequence number of the last event logged with this copy (0 when none was): the
    /// copy reflects every event up to it.
    pub last_sequence: u64,
}

/// One event of a task, with its sequence number in the task's event log.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskEvent {
    /// The event's number in the task's log: the store numbers a task's events 1, 2, 3…
    pub sequence: u64,
    /// The event.
    pub response: StreamResponse,
}

/// What a successful save returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Saved {
    /// The version the next save must name.
    pub version: Version,
    /// The sequence number of the last event of the task's log after this save: the save's
    /// `n` events got the numbers `last_sequence - n + 1 ..= last_sequence`.
    pub last_sequence: u64,
}

/// What a save expects to find in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// The task must not exist yet (creation).
    Absent,
    /// The stored copy must still be at this version.
    Version(Version),
}

/// Why a store call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The stored copy is not at the expected version, or a task to create already exists.
    #[error("task {task_id} was changed by someone else")]
    Conflict {
        /// The task.
        task_id: TaskId,
    },
    /// A save with [`Expected::Version`] named a task that is not stored (any more).
    #[error("task {task_id} is not stored")]
    NotFound {
        /// The task.
        task_id: TaskId,
    },
    /// A limit of the store was reached (for example the push configs of one task).
    #[error("{what}")]
    Limit {
        /// What was refused, for the client.
        what: String,
    },
    /// The backend failed; the cause is chained and must never reach a client.
    #[error("task store backend failed")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The backend cannot take the call for now: the database is unreachable, busy (locked
    /// by someone else) or out of space. A retry later may succeed; the client is told so
    /// (Unavailable). The cause is chained and must never reach a client.
    #[error("task store unavailable")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Durable or in-memory storage of tasks.
///
/// Implementations must guarantee:
/// - **Scope isolation**: a task is only visible under the [`TaskScope`] it was saved with.
/// - **Compare-and-swap**: `save` with [`Expected::Version`] succeeds only when the stored
///   copy is at that version, and returns a new, greater version; otherwise it fails with
///   [`StoreError::Conflict`] and stores nothing. `save` with [`Expected::Version`] of a task
///   that is not stored, or stored under another scope, fails with [`StoreError::NotFound`]
///   (another scope's task must look missing). `save` with [`Expected::Absent`] fails with
///   `Conflict` when the task exists (under any scope: task ids are globally unique).
/// - **Atomicity**: a failed save leaves the previous copy intact; a reader never sees a
///   half-written task.
/// - **List order**: `list` orders by status timestamp, newest first, then task id
///   (descending), and pages with [`TaskCursor`]s.
/// - **Sends** (when the store keeps them, see [`TaskStore::claim_send`]): a key is claimed
///   at most once per scope, whoever races for it, and goes with the task it names.
/// - **Event log**: `save` appends its events to the task's log in the same atomic step as
///   the task itself, numbering them on from the task's last sequence number (the first event
///   of a task is 1). A failed save appends nothing. `events` returns the logged events after
///   a sequence number, in order. The log lives and expires with its task.
///
/// The handler serialises all changes to one task with a per-task lock, so within
/// one process conflicts mean a bug or another instance.
#[async_trait]
pub trait TaskStore: Send + Sync + 'static {
    /// Loads a task, or `None` when it does not exist in `scope`.
    async fn load(&self, scope: &TaskScope, id: &TaskId) -> Result<Option<StoredTask>, StoreError>;

    /// The scope of the task `id`, whoever owns it, or `None` when it does not exist (or
    /// has expired). Only the cross-owner policy uses it ([`crate::config::CrossOwner`]), to
    /// tell a caller that a task is someone else's; the default knows nothing, so every miss
    /// stays TaskNotFound.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot be read.
    async fn locate(&self, id: &TaskId) -> Result<Option<TaskScope>, StoreError> {
        let _ = id;
        Ok(None)
    }

    /// A secret named `name` that every server over this store shares: made at random by
    /// the first caller and kept, so every instance and every restart gets the same bytes
    /// (the `ListTasks` page-token key, so a token from one instance pages on another).
    /// `None` for a store that only this process sees (the default), whose callers then
    /// make a key of their own.
    ///
    /// Implementations must guarantee that concurrent first calls agree: one value wins and
    /// every caller gets it.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot be read or written.
    async fn shared_secret(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let _ = name;
        Ok(None)
    }

    /// Claims the send key `key` in `scope` for a send of a message whose digest is
    /// `digest`, making or continuing the task `task_id`: `None` when this call claimed it,
    /// else the send that holds it (whatever digest and task this call gave). The server
    /// claims a key before a send starts its turn, so a retry of a send (same key, same
    /// caller) is answered with the task the first made instead of starting a second turn.
    ///
    /// Implementations must guarantee that of concurrent claims of one key in one scope
    /// exactly one gets `None` and the others get its send; that a key is claimed again
    /// only after [`TaskStore::release_send`]; and that a key goes with the task it names
    /// (expired or evicted with it). The default keeps nothing, so every send is a new one.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot be read or written.
    async fn claim_send(
        &self,
        scope: &TaskScope,
        key: &str,
        digest: &str,
        task_id: &TaskId,
    ) -> Result<Option<KeptSend>, StoreError> {
        let _ = (scope, key, digest, task_id);
        Ok(None)
    }

    /// Forgets the claim of `key` in `scope` if it names `task_id` (a send that made no
    /// task: the agent answered with a message, or the send was refused). Forgetting a key
    /// that is not claimed, or claimed for another task, does nothing.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot be written.
    async fn release_send(
        &self,
        scope: &TaskScope,
        key: &str,
        task_id: &TaskId,
    ) -> Result<(), StoreError> {
        let _ = (scope, key, task_id);
        Ok(())
    }

    /// Whether the backend answers, asked as cheaply as it can be (`SELECT 1` for a
    /// database). The readiness check (`/readyz`) calls it on every probe, so it must not
    /// touch tasks. The default, for a store in this process's memory, always answers.
    ///
    /// # Errors
    /// [`StoreError::Backend`] when the backend cannot be reached.
    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Something will read finished tasks' logs later (push delivery sends every event,
    /// possibly after the task finished): a store that compacts the log of a finished task
    /// must from now on keep it whole, until the task expires. Stores that never compact
    /// ignore it.
    fn retain_event_logs(&self) {}

    /// Saves the whole task under `scope`, if the stored copy is as `expected`, and appends
    /// `events` (made by this change) to its event log, atomically.
    async fn save(
        &self,
        scope: &TaskScope,
        task: &Task,
        expected: Expected,
        events: &[StreamResponse],
    ) -> Result<Saved, StoreError>;

    /// Saves a change that only added artifact chunks: `task` is the whole task after the
    /// change, `events` its artifact-update events, and the stored copy must be at
    /// `expected`. The contract is [`TaskStore::save`]'s, but a store may keep just the
    /// events and fold them into the task when it is read ([`fold_artifact_update`] in log
    /// order), so that every chunk of a long stream costs the same instead of a rewrite of
    /// the whole task. The default saves the whole task.
    ///
    /// # Errors
    /// As [`TaskStore::save`] with [`Expected::Version`].
    async fn append(
        &self,
        scope: &TaskScope,
        task: &Task,
        expected: Version,
        events: &[StreamResponse],
    ) -> Result<Saved, StoreError> {
        self.save(scope, task, Expected::Version(expected), events)
            .await
    }

    /// One page of the tasks in `scope` that match `query`.
    async fn list(&self, scope: &TaskScope, query: &TaskQuery) -> Result<TaskPage, StoreError>;

    /// Up to `limit` tasks, of any scope, left SUBMITTED or WORKING whose status timestamp
    /// is more than `ttl` before `now`: the candidates of the stuck-task sweep
    /// ([`ServerConfig::stuck_task_ttl`](crate::config::ServerConfig::stuck_task_ttl)),
    /// which fails those that no turn of this process runs. A task without a status
    /// timestamp has no age and is never returned.
    ///
    /// The default finds none: a store that several instances share must not offer the
    /// sweep (a task may run on another instance; leases recover lost turns there, see
    /// [`Cluster`](crate::cluster::Cluster)). The in-memory store implements it.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot be read.
    async fn stuck_tasks(
        &self,
        now: &a2a_types::Timestamp,
        ttl: std::time::Duration,
        limit: usize,
    ) -> Result<Vec<(TaskScope, TaskId)>, StoreError> {
        let _ = (now, ttl, limit);
        Ok(Vec::new())
    }

    /// Up to `limit` events of the task's log with a sequence number greater than `after`,
    /// in order; `None` when the task does not exist in `scope`.
    async fn events(
        &self,
        scope: &TaskScope,
        id: &TaskId,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<TaskEvent>>, StoreError>;
}
