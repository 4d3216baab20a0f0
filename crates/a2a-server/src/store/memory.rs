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
mod tests {
    use a2a_types::{ContextId, TaskState};
    use tokio::time::advance;

    use super::*;

    const HOUR: Duration = Duration::from_secs(60 * 60);
    const MILLISECOND: Duration = Duration::from_millis(1);

    fn scope() -> TaskScope {
        TaskScope::tenant("acme").with_owner("alice")
    }

    fn task(id: &str, state: TaskState) -> Task {
        Task::new(TaskId::new(id), ContextId::new("context"), state)
    }

    fn store_with(completed_task_ttl: Duration, max_stored_tasks: usize) -> InMemoryTaskStore {
        InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
            completed_task_ttl,
            max_stored_tasks,
            ..InMemoryTaskStoreConfig::default()
        })
    }

    fn status(task: &Task) -> StreamResponse {
        StreamResponse::StatusUpdate(a2a_types::TaskStatusUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: task.status.clone(),
            metadata: None,
        })
    }

    /// Saves a task through WORKING (two events) to COMPLETED (one event).
    async fn finish_with_three_events(store: &InMemoryTaskStore) -> Task {
        let working = task("t", TaskState::Working);
        let saved = store
            .save(
                &scope(),
                &working,
                Expected::Absent,
                &[StreamResponse::Task(working.clone()), status(&working)],
            )
            .await
            .unwrap();
        let done = task("t", TaskState::Completed);
        let saved = store
            .save(
                &scope(),
                &done,
                Expected::Version(saved.version),
                &[status(&done)],
            )
            .await
            .unwrap();
        assert_eq!(saved.last_sequence, 3);
        done
    }

    #[tokio::test]
    async fn a_finished_tasks_log_is_compacted_to_its_final_status() {
        let store = InMemoryTaskStore::new();
        let done = finish_with_three_events(&store).await;
        let id = TaskId::new("t");
        let stored = store.load(&scope(), &id).await.unwrap().unwrap();
        assert_eq!(stored.last_sequence, 3);
        let after_one = store.events(&scope(), &id, 1, 10).await.unwrap().unwrap();
        assert_eq!(after_one.len(), 1, "only the final event is left");
        assert_eq!(after_one[0].sequence, 3);
        // Compared as JSON: the wire keeps timestamps to the millisecond.
        assert_eq!(
            serde_json::to_value(&after_one[0].response).unwrap(),
            serde_json::to_value(status(&done)).unwrap()
        );
        assert!(
            store
                .events(&scope(), &id, 3, 10)
                .await
                .unwrap()
                .unwrap()
                .is_empty()
        );
        assert!(
            store
                .events(&scope(), &id, 0, 0)
                .await
                .unwrap()
                .unwrap()
                .is_empty()
        );
    }

    #[tokio::test]
    async fn finished_logs_are_kept_whole_when_configured() {
        let store = InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
            keep_finished_event_logs: true,
            ..InMemoryTaskStoreConfig::default()
        });
        finish_with_three_events(&store).await;
        let all = store
            .events(&scope(), &TaskId::new("t"), 0, 10)
            .await
            .unwrap()
            .unwrap();
        let sequences: Vec<u64> = all.iter().map(|event| event.sequence).collect();
        assert_eq!(sequences, [1, 2, 3]);
    }

    async fn create(store: &InMemoryTaskStore, id: &str, state: TaskState) {
        store
            .save(&scope(), &task(id, state), Expected::Absent, &[])
            .await
            .unwrap();
    }

    async fn move_to(store: &InMemoryTaskStore, id: &str, state: TaskState) {
        let stored = store
            .load(&scope(), &TaskId::new(id))
            .await
            .unwrap()
            .unwrap();
        let mut task = stored.task;
        task.status.state = state;
        store
            .save(&scope(), &task, Expected::Version(stored.version), &[])
            .await
            .unwrap();
    }

    async fn loadable(store: &InMemoryTaskStore, id: &str) -> bool {
        store
            .load(&scope(), &TaskId::new(id))
            .await
            .unwrap()
            .is_some()
    }

    /// Whether the store still holds `id`, without the eviction a read would do.
    fn holds(store: &InMemoryTaskStore, id: &str) -> bool {
        store.lock().by_id.contains_key(id)
    }

    fn held(store: &InMemoryTaskStore) -> usize {
        store.lock().by_id.len()
    }

    async fn listed(store: &InMemoryTaskStore) -> TaskPage {
        store.list(&scope(), &TaskQuery::default()).await.unwrap()
    }

    #[test]
    fn defaults_follow_sto_06_and_sto_07() {
        let config = InMemoryTaskStoreConfig::default();
        assert_eq!(config.completed_task_ttl, Duration::from_millis(3_600_000));
        assert_eq!(config.max_stored_tasks, 10_000);
        assert_eq!(InMemoryTaskStore::default().config(), &config);
    }

    #[tokio::test(start_paused = true)]
    async fn a_terminal_task_expires_one_ttl_after_it_became_terminal() {
        let store = InMemoryTaskStore::new();
        create(&store, "t", TaskState::Working).await;
        advance(HOUR / 2).await;
        move_to(&store, "t", TaskState::Completed).await;

        advance(HOUR - MILLISECOND).await;
        assert!(loadable(&store, "t").await);
        assert_eq!(listed(&store).await.total_size, 1);

        advance(MILLISECOND).await;
        assert!(!loadable(&store, "t").await);
        assert!(!holds(&store, "t"), "the read evicts the expired task");
        let page = listed(&store).await;
        assert!(page.tasks.is_empty());
        assert_eq!(page.total_size, 0);
    }

    #[tokio::test(start_paused = true)]
    async fn list_leaves_out_and_evicts_expired_tasks() {
        let store = InMemoryTaskStore::new();
        create(&store, "done", TaskState::Failed).await;
        create(&store, "running", TaskState::Working).await;
        advance(HOUR).await;

        let page = listed(&store).await;
        let ids: Vec<_> = page.tasks.iter().map(|task| task.id.as_str()).collect();
        assert_eq!(ids, ["running"]);
        assert_eq!(page.total_size, 1);
        assert!(!holds(&store, "done"));
    }

    #[tokio::test(start_paused = true)]
    async fn tasks_that_are_not_terminal_never_expire() {
        let store = InMemoryTaskStore::new();
        for (id, state) in [
            ("submitted", TaskState::Submitted),
            ("working", TaskState::Working),
            ("input", TaskState::InputRequired),
            ("auth", TaskState::AuthRequired),
        ] {
            create(&store, id, state).await;
        }
        advance(HOUR * 24 * 365).await;
        for id in ["submitted", "working", "input", "auth"] {
            assert!(loadable(&store, id).await, "{id}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn every_terminal_state_expires() {
        let store = InMemoryTaskStore::new();
        for (id, state) in [
            ("completed", TaskState::Completed),
            ("failed", TaskState::Failed),
            ("canceled", TaskState::Canceled),
            ("rejected", TaskState::Rejected),
        ] {
            create(&store, id, state).await;
        }
        advance(HOUR).await;
        for id in ["completed", "failed", "canceled", "rejected"] {
            assert!(!loadable(&store, id).await, "{id}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn saving_a_terminal_task_again_does_not_extend_its_life() {
        let store = InMemoryTaskStore::new();
        create(&store, "t", TaskState::Completed).await;
        advance(HOUR / 2).await;
        move_to(&store, "t", TaskState::Canceled).await;
        advance(HOUR / 2).await;
        assert!(!loadable(&store, "t").await);
    }

    #[tokio::test(start_paused = true)]
    async fn an_expired_task_can_be_created_again_with_a_greater_version() {
        let store = InMemoryTaskStore::new();
        let first = store
            .save(
                &scope(),
                &task("t", TaskState::Completed),
                Expected::Absent,
                &[],
            )
            .await
            .unwrap();
        advance(HOUR).await;
        let second = store
            .save(
                &scope(),
                &task("t", TaskState::Working),
                Expected::Absent,
                &[],
            )
            .await
            .unwrap();
        assert!(second.version > first.version);
        let stored = store
            .load(&scope(), &TaskId::new("t"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.task.status.state, TaskState::Working);
    }

    #[tokio::test(start_paused = true)]
    async fn saving_an_expired_task_by_version_is_not_found() {
        let store = InMemoryTaskStore::new();
        let version = store
            .save(
                &scope(),
                &task("t", TaskState::Completed),
                Expected::Absent,
                &[],
            )
            .await
            .unwrap()
            .version;
        advance(HOUR).await;
        let result = store
            .save(
                &scope(),
                &task("t", TaskState::Completed),
                Expected::Version(version),
                &[],
            )
            .await;
        assert!(
            matches!(result, Err(StoreError::NotFound { .. })),
            "{result:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_cleanup_pass_evicts_expired_tasks_every_100_saves() {
        let store = InMemoryTaskStore::new();
        create(&store, "old", TaskState::Completed).await;
        advance(HOUR).await;
        for n in 2..CLEANUP_INTERVAL {
            create(&store, &format!("t{n}"), TaskState::Working).await;
        }
        assert!(holds(&store, "old"), "99 saves: no cleanup yet");

        create(&store, "t100", TaskState::Working).await;
        assert!(!holds(&store, "old"), "the 100th save runs the cleanup");
        assert_eq!(held(&store), 99);
    }

    #[tokio::test(start_paused = true)]
    async fn a_zero_ttl_keeps_terminal_tasks() {
        let store = store_with(Duration::ZERO, 0);
        create(&store, "t", TaskState::Completed).await;
        advance(HOUR * 24 * 365).await;
        assert!(loadable(&store, "t").await);
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_store_evicts_the_task_that_became_terminal_first() {
        let store = store_with(HOUR, 3);
        create(&store, "a", TaskState::Working).await;
        advance(MILLISECOND).await;
        create(&store, "b", TaskState::Completed).await;
        advance(MILLISECOND).await;
        // Created first but terminal last: the order is by the time of becoming terminal.
        move_to(&store, "a", TaskState::Failed).await;
        create(&store, "c", TaskState::Working).await;

        create(&store, "d", TaskState::Working).await;
        assert!(!holds(&store, "b"));
        assert!(holds(&store, "a"));
        assert_eq!(held(&store), 3);

        create(&store, "e", TaskState::Working).await;
        assert!(!holds(&store, "a"));
        assert_eq!(held(&store), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn tasks_that_became_terminal_at_the_same_instant_are_evicted_in_save_order() {
        let store = store_with(HOUR, 3);
        create(&store, "z", TaskState::Completed).await;
        create(&store, "y", TaskState::Completed).await;
        create(&store, "x", TaskState::Completed).await;

        create(&store, "w", TaskState::Working).await;
        assert!(!holds(&store, "z"));
        create(&store, "v", TaskState::Working).await;
        assert!(!holds(&store, "y"));
        assert!(holds(&store, "x"));
    }

    #[tokio::test]
    async fn nothing_is_evicted_when_no_task_is_terminal() {
        let store = store_with(HOUR, 2);
        for id in ["a", "b", "c", "d"] {
            create(&store, id, TaskState::Working).await;
        }
        assert_eq!(held(&store), 4, "the store goes over the cap");
        for id in ["a", "b", "c", "d"] {
            assert!(loadable(&store, id).await, "{id}");
        }
    }

    #[tokio::test]
    async fn an_over_full_store_shrinks_to_the_cap_once_tasks_are_terminal() {
        let store = store_with(HOUR, 2);
        for id in ["a", "b", "c"] {
            create(&store, id, TaskState::Working).await;
        }
        move_to(&store, "b", TaskState::Completed).await;
        move_to(&store, "a", TaskState::Completed).await;

        create(&store, "d", TaskState::Working).await;
        assert!(!holds(&store, "a"));
        assert!(!holds(&store, "b"));
        assert_eq!(held(&store), 2);
    }

    #[tokio::test]
    async fn saving_an_existing_task_in_a_full_store_evicts_nothing() {
        let store = store_with(HOUR, 2);
        create(&store, "a", TaskState::Completed).await;
        create(&store, "b", TaskState::Working).await;
        move_to(&store, "b", TaskState::Completed).await;
        assert!(holds(&store, "a"));
        assert_eq!(held(&store), 2);
    }

    #[tokio::test]
    async fn a_zero_cap_means_unlimited() {
        let store = store_with(HOUR, 0);
        for n in 0..50 {
            create(&store, &format!("t{n}"), TaskState::Completed).await;
        }
        assert_eq!(held(&store), 50);
    }

    #[tokio::test]
    async fn a_failed_save_does_not_count_toward_the_cap() {
        let store = store_with(HOUR, 2);
        create(&store, "a", TaskState::Completed).await;
        create(&store, "b", TaskState::Working).await;
        let result = store
            .save(
                &scope(),
                &task("b", TaskState::Working),
                Expected::Absent,
                &[],
            )
            .await;
        assert!(
            matches!(result, Err(StoreError::Conflict { .. })),
            "{result:?}"
        );
        assert!(holds(&store, "a"), "a conflicting create evicts nothing");
    }

    #[test]
    fn debug_shows_the_settings_and_the_number_of_tasks() {
        let text = format!("{:?}", InMemoryTaskStore::new());
        assert!(text.contains("max_stored_tasks: 10000"), "{text}");
        assert!(text.contains("stored_tasks: 0"), "{text}");
    }
}
