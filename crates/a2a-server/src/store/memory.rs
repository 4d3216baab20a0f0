//! [`InMemoryTaskStore`]: the default [`TaskStore`]. It keeps tasks for the life of the process
//! and forgets terminal tasks after a TTL or when it is full.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use a2a_types::{ContextId, StreamResponse, Task, TaskId, TaskState, Timestamp};
use async_trait::async_trait;
use tokio::time::Instant;

use super::{
    Expected, Saved, StoreError, StoredTask, TaskCursor, TaskEvent, TaskPage, TaskQuery, TaskScope,
    TaskStore, Version,
};

/// How many successful saves pass between two cleanup passes (`cleanupInterval`).
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
}

impl Default for InMemoryTaskStoreConfig {
    fn default() -> Self {
        Self {
            completed_task_ttl: Duration::from_secs(60 * 60),
            max_stored_tasks: 10_000,
            keep_finished_event_logs: false,
        }
    }
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
///   drops every expired task before it scans, and every 100th save runs the same cleanup,
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
pub struct InMemoryTaskStore {
    config: InMemoryTaskStoreConfig,
    /// Set by [`TaskStore::retain_event_logs`]: finished tasks keep their whole log.
    retain_logs: std::sync::atomic::AtomicBool,
    tasks: Mutex<Tasks>,
}

impl InMemoryTaskStore {
    /// An empty store with the default [`InMemoryTaskStoreConfig`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_config(InMemoryTaskStoreConfig::default())
    }

    /// An empty store with `config`.
    #[must_use]
    pub fn with_config(config: InMemoryTaskStoreConfig) -> Self {
        Self {
            retain_logs: std::sync::atomic::AtomicBool::new(config.keep_finished_event_logs),
            config,
            tasks: Mutex::new(Tasks::default()),
        }
    }

    /// The settings this store was made with.
    #[must_use]
    pub fn config(&self) -> &InMemoryTaskStoreConfig {
        &self.config
    }

    fn lock(&self) -> MutexGuard<'_, Tasks> {
        // No critical section calls foreign code or can stop half-way through an update
        // (only allocation failure could, and that aborts), so data behind a poisoned lock
        // is still consistent and refusing it would only turn one panic into many.
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for InMemoryTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("InMemoryTaskStore");
        debug.field("config", &self.config);
        // `try_lock`: formatting must not deadlock when the caller holds the lock.
        if let Ok(tasks) = self.tasks.try_lock() {
            debug.field("stored_tasks", &tasks.by_id.len());
        }
        debug.finish_non_exhaustive()
    }
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    fn retain_event_logs(&self) {
        self.retain_logs
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    async fn locate(&self, id: &TaskId) -> Result<Option<TaskScope>, StoreError> {
        let mut tasks = self.lock();
        tasks.drop_if_expired(id, Instant::now(), self.config.completed_task_ttl);
        Ok(tasks.by_id.get(id).map(|entry| entry.scope.clone()))
    }

    async fn load(&self, scope: &TaskScope, id: &TaskId) -> Result<Option<StoredTask>, StoreError> {
        let now = Instant::now();
        let found = {
            let mut tasks = self.lock();
            tasks.drop_if_expired(id, now, self.config.completed_task_ttl);
            tasks
                .by_id
                .get(id)
                .filter(|entry| entry.scope == *scope)
                .map(|entry| {
                    (
                        Arc::clone(&entry.body),
                        entry.version,
                        entry.log.last_sequence(),
                    )
                })
        };
        found
            .map(|(body, version, last_sequence)| {
                Ok(StoredTask {
                    task: decode(&body)?,
                    version,
                    last_sequence,
                })
            })
            .transpose()
    }

    async fn save(
        &self,
        scope: &TaskScope,
        task: &Task,
        expected: Expected,
        events: &[StreamResponse],
    ) -> Result<Saved, StoreError> {
        let now = Instant::now();
        let ttl = self.config.completed_task_ttl;
        // Encoded before locking so that the lock covers map updates only. Tasks are kept as
        // compact JSON: a small task takes about half the memory of its Rust form, whose
        // every id and text is an allocation of its own.
        let body: Arc<[u8]> = serde_json::to_vec(task)
            .map_err(|error| StoreError::Backend(Box::new(error)))?
            .into();
        let mut encoded = Vec::with_capacity(events.len());
        for event in events {
            let event =
                serde_json::to_vec(event).map_err(|error| StoreError::Backend(Box::new(error)))?;
            encoded.push(event.into_boxed_slice());
        }
        let mut tasks = self.lock();
        tasks.drop_if_expired(&task.id, now, ttl);

        let stored = tasks.by_id.get(&task.id);
        match (expected, stored) {
            (Expected::Absent, Some(_)) => {
                return Err(StoreError::Conflict {
                    task_id: task.id.clone(),
                });
            }
            (Expected::Absent, None) => tasks.make_room(self.config.max_stored_tasks),
            // A task of another scope must look exactly like a missing one (never
            // reveal that it exists).
            (Expected::Version(_), None) => {
                return Err(StoreError::NotFound {
                    task_id: task.id.clone(),
                });
            }
            (Expected::Version(_), Some(entry)) if entry.scope != *scope => {
                return Err(StoreError::NotFound {
                    task_id: task.id.clone(),
                });
            }
            (Expected::Version(version), Some(entry)) if entry.version != version => {
                return Err(StoreError::Conflict {
                    task_id: task.id.clone(),
                });
            }
            (Expected::Version(_), Some(_)) => {}
        }

        let version = tasks.next_version();
        let (was_terminal_since, mut log) = match tasks.by_id.get_mut(&task.id) {
            Some(entry) => (entry.terminal_since, std::mem::take(&mut entry.log)),
            None => (None, Log::default()),
        };
        log.events.extend(encoded);
        let last_sequence = log.last_sequence();
        if task.status.state.is_terminal()
            && !self.retain_logs.load(std::sync::atomic::Ordering::Relaxed)
        {
            log = Log {
                compacted_to: last_sequence,
                events: Vec::new(),
            };
        }
        let terminal_since = if task.status.state.is_terminal() {
            // The TTL runs from the save that made the task terminal, not from
            // the latest save.
            Some(was_terminal_since.unwrap_or(TerminalKey {
                since: now,
                version,
            }))
        } else {
            None
        };
        if was_terminal_since != terminal_since {
            if let Some(key) = was_terminal_since {
                tasks.terminal.remove(&key);
            }
            if let Some(key) = terminal_since {
                tasks.terminal.insert(key, task.id.clone());
            }
        }
        tasks.by_id.insert(
            task.id.clone(),
            Entry {
                scope: scope.clone(),
                body,
                context_id: task.context_id.clone(),
                state: task.status.state,
                timestamp: task.status.timestamp,
                version,
                terminal_since,
                log,
            },
        );

        tasks.saves += 1;
        if tasks.saves.is_multiple_of(CLEANUP_INTERVAL) {
            tasks.drop_expired(now, ttl);
        }
        Ok(Saved {
            version,
            last_sequence,
        })
    }

    async fn events(
        &self,
        scope: &TaskScope,
        id: &TaskId,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<TaskEvent>>, StoreError> {
        let now = Instant::now();
        // The compacted final event is rebuilt from the task: its body, and its sequence.
        type Found = (Option<(Arc<[u8]>, u64)>, Vec<(u64, Box<[u8]>)>);
        let found: Option<Found> = {
            let mut tasks = self.lock();
            tasks.drop_if_expired(id, now, self.config.completed_task_ttl);
            tasks
                .by_id
                .get(id)
                .filter(|entry| entry.scope == *scope)
                .map(|entry| {
                    let start = entry.log.compacted_to;
                    let compacted = (after < start && start > 0 && limit > 0)
                        .then(|| (Arc::clone(&entry.body), start));
                    let skip = usize::try_from(after.saturating_sub(start)).unwrap_or(usize::MAX);
                    let kept = entry
                        .log
                        .events
                        .iter()
                        .zip(start + 1..)
                        .skip(skip)
                        .take(limit.saturating_sub(usize::from(compacted.is_some())))
                        .map(|(body, sequence)| (sequence, body.clone()))
                        .collect();
                    (compacted, kept)
                })
        };
        let Some((compacted, kept)) = found else {
            return Ok(None);
        };
        let mut events = Vec::with_capacity(kept.len() + 1);
        if let Some((body, sequence)) = compacted {
            let task = decode(&body)?;
            events.push(TaskEvent {
                sequence,
                response: StreamResponse::StatusUpdate(a2a_types::TaskStatusUpdateEvent {
                    task_id: task.id,
                    context_id: task.context_id,
                    status: task.status,
                    metadata: None,
                }),
            });
        }
        for (sequence, body) in kept {
            events.push(TaskEvent {
                sequence,
                response: serde_json::from_slice(&body)
                    .map_err(|error| StoreError::Backend(Box::new(error)))?,
            });
        }
        Ok(Some(events))
    }

    async fn list(&self, scope: &TaskScope, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        let now = Instant::now();
        // The handler never sends 0 (TaskQuery says at least 1); treating it as 1 keeps
        // paging moving instead of returning empty pages forever.
        let page_size = query.page_size.max(1);
        let (total_size, mut candidates) = {
            let mut tasks = self.lock();
            tasks.drop_expired(now, self.config.completed_task_ttl);
            let mut total_size = 0;
            let mut candidates = Vec::new();
            for (id, entry) in &tasks.by_id {
                if entry.scope != *scope
                    || !query.matches_fields(
                        &entry.context_id,
                        entry.state,
                        entry.timestamp.as_ref(),
                    )
                {
                    continue;
                }
                total_size += 1;
                let millis = entry.timestamp.as_ref().map_or(0, Timestamp::unix_millis);
                if query
                    .after
                    .as_ref()
                    .is_none_or(|cursor| cursor.precedes_key(millis, id))
                {
                    candidates.push((millis, id.clone(), Arc::clone(&entry.body)));
                }
            }
            (total_size, candidates)
        };

        let more = candidates.len() > page_size;
        if more {
            candidates.select_nth_unstable_by(page_size, list_order);
            candidates.truncate(page_size);
        }
        candidates.sort_unstable_by(list_order);
        let next = if more {
            candidates.last().map(|(millis, id, _)| TaskCursor {
                timestamp_millis: *millis,
                task_id: id.clone(),
            })
        } else {
            None
        };
        let tasks = candidates
            .iter()
            .map(|(_, _, body)| decode(body))
            .collect::<Result<_, _>>()?;
        Ok(TaskPage {
            tasks,
            total_size,
            next,
        })
    }
}

/// A list candidate: its list-order key and its stored body.
type Candidate = (i64, TaskId, Arc<[u8]>);

/// The list order: status timestamp, newest first, then task id, descending. Task
/// ids are unique, so no two tasks compare equal.
fn list_order(a: &Candidate, b: &Candidate) -> Ordering {
    (b.0, &b.1).cmp(&(a.0, &a.1))
}

/// A stored body back into a task. Only bodies this store encoded are ever decoded, so a
/// failure means memory corruption or a serde bug: reported, never papered over.
fn decode(body: &[u8]) -> Result<Task, StoreError> {
    serde_json::from_slice(body).map_err(|error| StoreError::Backend(Box::new(error)))
}

/// Everything behind the store's lock.
#[derive(Debug, Default)]
struct Tasks {
    /// Every stored task, by its globally unique id.
    by_id: HashMap<TaskId, Entry>,
    /// The terminal tasks, the one that became terminal first first: the front is what
    /// expires and what the size cap evicts next.
    terminal: BTreeMap<TerminalKey, TaskId>,
    /// The last version handed out.
    last_version: u64,
    /// Successful saves so far, to schedule cleanup passes.
    saves: u64,
}

/// One stored task.
#[derive(Debug)]
struct Entry {
    scope: TaskScope,
    /// The task as compact JSON.
    body: Arc<[u8]>,
    /// What `list` filters on, kept beside the body so filtering decodes nothing.
    context_id: ContextId,
    state: TaskState,
    timestamp: Option<Timestamp>,
    version: Version,
    /// When the task became terminal; `None` while it is not terminal.
    terminal_since: Option<TerminalKey>,
    /// The task's event log.
    log: Log,
}

/// A task's event log as compact JSON: the event at index `i` of `events` has sequence
/// `compacted_to + i + 1`. Events up to `compacted_to` were dropped when the task finished
/// (see [`InMemoryTaskStoreConfig::keep_finished_event_logs`]); the last of them is rebuilt
/// from the task on demand.
#[derive(Debug, Default)]
struct Log {
    compacted_to: u64,
    events: Vec<Box<[u8]>>,
}

impl Log {
    fn last_sequence(&self) -> u64 {
        self.compacted_to + self.events.len() as u64
    }
}

/// When a task became terminal. The version of that save breaks ties between tasks that
/// became terminal at the same instant (frequent with a paused clock), keeping eviction in
/// save order, and it makes keys unique.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct TerminalKey {
    since: Instant,
    version: Version,
}

impl TerminalKey {
    fn expired(self, now: Instant, ttl: Duration) -> bool {
        !ttl.is_zero() && now.saturating_duration_since(self.since) >= ttl
    }
}

impl Tasks {
    fn next_version(&mut self) -> Version {
        self.last_version += 1;
        Version(self.last_version)
    }

    fn remove(&mut self, id: &TaskId) {
        if let Some(entry) = self.by_id.remove(id)
            && let Some(key) = entry.terminal_since
        {
            self.terminal.remove(&key);
        }
    }

    fn drop_if_expired(&mut self, id: &TaskId, now: Instant, ttl: Duration) {
        let expired = self
            .by_id
            .get(id)
            .and_then(|entry| entry.terminal_since)
            .is_some_and(|key| key.expired(now, ttl));
        if expired {
            self.remove(id);
        }
    }

    /// The cleanup pass: drops every expired task. Cheap when nothing expired, since the
    /// oldest terminal task is at the front of `terminal`.
    fn drop_expired(&mut self, now: Instant, ttl: Duration) {
        while let Some(entry) = self.terminal.first_entry()
            && entry.key().expired(now, ttl)
        {
            let id = entry.remove();
            self.by_id.remove(&id);
        }
    }

    /// Evicts terminal tasks, the one that became terminal first first, until one more task
    /// fits under `max_stored_tasks` (0: unlimited) or no terminal task is left.
    fn make_room(&mut self, max_stored_tasks: usize) {
        if max_stored_tasks == 0 {
            return;
        }
        while self.by_id.len() >= max_stored_tasks
            && let Some((_, id)) = self.terminal.pop_first()
        {
            self.by_id.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests;
