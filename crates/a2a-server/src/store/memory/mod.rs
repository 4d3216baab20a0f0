//! [`InMemoryTaskStore`]: the default [`TaskStore`]. It keeps tasks for the life of the process
//! and forgets terminal tasks after a TTL or when it is full.
//!
//! [`TaskStore`]: super::TaskStore

use std::collections::VecDeque;
use std::hash::RandomState;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_types::{TaskState, Timestamp};
use hashbrown::HashTable;
use tokio::time::Instant;

use super::{TaskScope, Version};

mod entry;
mod sends;
mod setup;
mod task_store;
mod upkeep;

/// How many successful saves pass between two cleanup passes by default (`cleanupInterval`).
const CLEANUP_INTERVAL: u64 = 100;

/// Settings of an [`InMemoryTaskStore`]: expiry of terminal tasks and a size cap.
///
/// ```
/// use std::time::Duration;
/// use a2a_server::store::{InMemoryTaskStore, InMemoryTaskStoreConfig};
///
/// let store = InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
///     completed_task_ttl: Duration::from_secs(10 * 60),
///     ..Default::default()
/// });
/// # let _ = store;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InMemoryTaskStoreConfig {
    /// How long a terminal task (completed, failed, canceled, rejected) is kept after it
    /// became terminal; afterwards it is gone as if it had never been stored. Default: one
    /// hour (`completedTaskTtl` = 3 600 000 ms). `Duration::ZERO` turns expiry off: terminal
    /// tasks then stay until the size cap evicts them.
    pub completed_task_ttl: Duration,
    /// How many tasks the store holds before creating one evicts the task that became
    /// terminal first. Default: 10 000 (`maxStoredTasks`); `0` means unlimited. Tasks that
    /// are not terminal are never evicted, so a store whose tasks are all still running
    /// grows past this number.
    pub max_stored_tasks: usize,
    /// Whether a finished task keeps its whole event log. Default `false`: when a task becomes
    /// terminal its log is compacted to its final status event (rebuilt from the task when
    /// read), so a stream resumed after the end still gets the outcome, while a stored
    /// finished task costs no more than the task itself. Running tasks always keep their
    /// whole log, so a stream resumed mid-turn misses nothing.
    pub keep_finished_event_logs: bool,
    /// How many successful saves pass between two cleanup passes, each dropping every expired
    /// terminal task (`cleanupInterval`). Default: 100; `0` is read as 1, a pass after every
    /// save. Expired tasks are invisible either way; the passes give their memory back.
    pub cleanup_interval: u64,
}

/// A [`TaskStore`] in the process's memory: the default store of the server library.
///
/// Besides the [`TaskStore`] contract (it passes the conformance suite, `store::conformance`
/// with the `store-conformance` feature), it guarantees:
///
/// - **Task ids are global.** Tasks are keyed by (tenant, owner, task id), and an id names
///   at most one task across all scopes: creating it under another scope is a
///   [`StoreError::Conflict`]; saving it with [`Expected::Version`] or loading it under
///   another scope behaves as if it did not exist ([`StoreError::NotFound`], `None`).
/// - **Versions** come from one counter for the whole store, so every successful save
///   returns a version greater than any returned before, and a task that expired and was
///   created again never reuses an old version.
/// - **Expiry**: a terminal task expires
///   [`completed_task_ttl`](InMemoryTaskStoreConfig::completed_task_ttl) after the save that
///   made it terminal; saving it again while it stays terminal does not extend its life. An
///   expired task is invisible at once: `load` and `save` drop it when they meet it, `list`
///   drops every expired task before it scans, and every 100th save (the
///   [`cleanup_interval`](InMemoryTaskStoreConfig::cleanup_interval)) runs the same cleanup,
///   so memory is given back even when nobody reads.
/// - **Size cap**: when a save creates a task while the store already holds
///   [`max_stored_tasks`](InMemoryTaskStoreConfig::max_stored_tasks), it first evicts
///   terminal tasks, the one that became terminal first going first, until there is room.
///   When no task is terminal it evicts nothing and the store goes over the cap. Saves of
///   existing tasks never evict.
///
/// Time is [`tokio::time::Instant`], so tests can drive expiry with `tokio::time::pause` and
/// `tokio::time::advance` (tokio's `test-util` feature).
///
/// All state sits behind one [`std::sync::Mutex`] that is never held across an `.await`.
/// Tasks are stored as compact JSON in shared [`Arc`]s, with the fields `list` filters on
/// beside them, so the lock is held for map updates only: encoding a task to save, decoding
/// the tasks to return and the sorting of `list` happen outside it. `list` scans every
/// stored task (O(n)) and then orders only the candidates after the cursor, selecting the
/// page before sorting it (O(n + k log k) for a page of k), which is ample for the default
/// cap of 10 000 tasks.
///
/// [`TaskStore`]: super::TaskStore
/// [`StoreError::Conflict`]: super::StoreError::Conflict
/// [`StoreError::NotFound`]: super::StoreError::NotFound
/// [`Expected::Version`]: super::Expected::Version
pub struct InMemoryTaskStore {
    config: InMemoryTaskStoreConfig,
    /// Set by [`TaskStore::retain_event_logs`]: finished tasks keep their whole log.
    ///
    /// [`TaskStore::retain_event_logs`]: super::TaskStore::retain_event_logs
    retain_logs: std::sync::atomic::AtomicBool,
    tasks: Mutex<Tasks>,
}

/// Everything behind the store's lock.
#[derive(Debug, Default)]
struct Tasks {
    /// Every stored task, found by the hash of its globally unique id ([`Tasks::hash`]); each
    /// entry holds its id (inside its body), so the table stores it once. Boxed: the table
    /// keeps a slot per bucket and runs up to half empty after it grows, so a slot holds a
    /// pointer, not the entry (at a million tasks an unboxed table alone took ~470 MB).
    by_id: HashTable<Box<Entry>>,
    /// Hashes task ids for `by_id`.
    hasher: RandomState,
    /// The terminal tasks, the one that became terminal first first, each with the hash of
    /// its id: the front is what expires and what the size cap evicts next. Keys are made
    /// under the lock from a monotonic clock and a growing version, so a task that becomes
    /// terminal always goes at the back.
    terminal: VecDeque<(TerminalKey, u64)>,
    /// The last version handed out.
    last_version: u64,
    /// Successful saves so far, to schedule cleanup passes.
    saves: u64,
    /// The claimed send keys, which go with their tasks (boxed: two maps inline would
    /// grow every store by 96 bytes).
    sends: Box<sends::Sends>,
}

/// One stored task: about 160 bytes here (with no log and the default scope) beside its
/// compact JSON, which is one allocation with its id and context in it.
#[derive(Debug)]
struct Entry {
    scope: TaskScope,
    /// The task as compact JSON, and its id and context id (see [`Spans`]).
    text: Arc<str>,
    /// Where the id and the context id are in `text`.
    spans: Spans,
    /// What `list` filters on, kept beside the body so filtering decodes nothing (the
    /// context id is in `text`).
    state: TaskState,
    timestamp: Option<Timestamp>,
    version: Version,
    /// When the task became terminal; `None` while it is not terminal.
    terminal_since: Option<TerminalKey>,
    /// The sequence of the last event logged for the task.
    last_sequence: u64,
    /// The events the task keeps; `None` when its log was compacted (a finished task, see
    /// [`InMemoryTaskStoreConfig::keep_finished_event_logs`]): then the body reflects every
    /// event, and the last one is rebuilt from it on demand.
    log: Option<Box<Log>>,
}

/// Where a task's id and context id are in its entry's `text`. Usually inside the JSON, where
/// serde writes them first (`{"id":"…","contextId":"…"`) and as they are when JSON needs no
/// escape in them: the save checks the bytes, so the store never keeps them twice. Otherwise
/// (an id with a quote, say) they are written before the JSON, id then context.
#[derive(Debug, Clone, Copy)]
struct Spans {
    id_len: u32,
    context_len: u32,
    /// Whether the ids are written before the JSON instead of inside it.
    before: bool,
}

/// A task's event log as compact JSON: the event at index `i` of `events` has sequence
/// `compacted_to + i + 1`. Events up to `compacted_to` were dropped when the task finished
/// and were kept no more (see [`InMemoryTaskStoreConfig::keep_finished_event_logs`]); the
/// last of them is rebuilt from the task on demand.
#[derive(Debug, Default)]
struct Log {
    compacted_to: u64,
    events: Vec<Box<[u8]>>,
    /// The sequence of the last event the body reflects: the artifact chunks logged after it
    /// (saved with `append`) are folded into the body when the task is read.
    whole_to: u64,
}

/// When a task became terminal. The version of that save breaks ties between tasks that
/// became terminal at the same instant (frequent with a paused clock), keeping eviction in
/// save order, and it makes keys unique, so a key also finds its entry among those with
/// the same hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct TerminalKey {
    since: Instant,
    version: Version,
}

#[cfg(test)]
mod tests;
