//! The [`TaskStore`] contract over the in-memory maps: load, locate, save with its event
//! log, events and list.

use std::cmp::Ordering;

use a2a_types::{StreamResponse, Task, TaskId, TaskState, Timestamp};
use async_trait::async_trait;
use tokio::time::Instant;

use super::super::{
    Expected, KeptSend, Saved, StoreError, StoredTask, TaskCursor, TaskEvent, TaskPage, TaskQuery,
    TaskScope, TaskStore, Version, fold_artifact_update,
};
use super::entry::{Body, Text};
use super::{Entry, InMemoryTaskStore, Log, TerminalKey};

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    fn retain_event_logs(&self) {
        self.retain_logs
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    async fn locate(&self, id: &TaskId) -> Result<Option<TaskScope>, StoreError> {
        let mut tasks = self.lock();
        tasks.drop_if_expired(id.as_str(), Instant::now(), self.config.completed_task_ttl);
        Ok(tasks.get(id.as_str()).map(|entry| entry.scope.clone()))
    }

    async fn claim_send(
        &self,
        scope: &TaskScope,
        key: &str,
        digest: &str,
        task_id: &TaskId,
    ) -> Result<Option<KeptSend>, StoreError> {
        let mut tasks = self.lock();
        // A key goes with its task: one naming an expired task is free.
        if let Some(held) = tasks.sends.held(scope, key) {
            tasks.drop_if_expired(
                held.as_str(),
                Instant::now(),
                self.config.completed_task_ttl,
            );
        }
        Ok(tasks.sends.claim(scope, key, digest, task_id))
    }

    async fn release_send(
        &self,
        scope: &TaskScope,
        key: &str,
        task_id: &TaskId,
    ) -> Result<(), StoreError> {
        self.lock().sends.release(scope, key, task_id);
        Ok(())
    }

    async fn load(&self, scope: &TaskScope, id: &TaskId) -> Result<Option<StoredTask>, StoreError> {
        let found = self.read_live(scope, id, |entry| {
            (
                entry.body(),
                entry.chunks_after_body(),
                entry.version,
                entry.last_sequence,
            )
        });
        found
            .map(|(body, chunks, version, last_sequence)| {
                Ok(StoredTask {
                    task: materialise(&body, &chunks)?,
                    version,
                    last_sequence,
                })
            })
            .transpose()
    }

    async fn append(
        &self,
        scope: &TaskScope,
        task: &Task,
        expected: Version,
        events: &[StreamResponse],
    ) -> Result<Saved, StoreError> {
        let encoded = encode_events(events)?;
        let appended = {
            let mut tasks = self.lock();
            tasks.drop_if_expired(
                task.id.as_str(),
                Instant::now(),
                self.config.completed_task_ttl,
            );
            let found = tasks
                .get(task.id.as_str())
                .filter(|entry| entry.scope == *scope)
                .map(|entry| (entry.version, entry.terminal_since.is_some()));
            match found {
                None => {
                    return Err(StoreError::NotFound {
                        task_id: task.id.clone(),
                    });
                }
                Some((version, _)) if version != expected => {
                    return Err(StoreError::Conflict {
                        task_id: task.id.clone(),
                    });
                }
                // A finished task's log may be compacted: its chunks go in a whole save.
                Some((_, true)) => None,
                Some((_, false)) => {
                    let version = tasks.next_version();
                    tasks.get_mut(task.id.as_str()).map(|entry| {
                        entry.log_mut().events.extend(encoded);
                        entry.last_sequence += events.len() as u64;
                        entry.version = version;
                        Saved {
                            version,
                            last_sequence: entry.last_sequence,
                        }
                    })
                }
            }
        };
        match appended {
            Some(saved) => Ok(saved),
            None => {
                self.save(scope, task, Expected::Version(expected), events)
                    .await
            }
        }
    }

    async fn save(
        &self,
        scope: &TaskScope,
        task: &Task,
        expected: Expected,
        events: &[StreamResponse],
    ) -> Result<Saved, StoreError> {
        let ttl = self.config.completed_task_ttl;
        // Encoded before locking so that the lock covers map updates only. Tasks are kept as
        // compact JSON: a small task takes about half the memory of its Rust form, whose
        // every id and text is an allocation of its own.
        let text = Text::of(task)?;
        // A finished task's log is dropped (unless someone will read it later), so its last
        // events need no encoding: the sequence numbers are all that is kept of them.
        let compacts = task.status.state.is_terminal()
            && !self.retain_logs.load(std::sync::atomic::Ordering::Relaxed);
        let encoded = if compacts {
            Vec::new()
        } else {
            encode_events(events)?
        };
        let id = task.id.as_str();
        let mut tasks = self.lock();
        // Read under the lock, so that tasks become terminal in the order of their keys.
        let now = Instant::now();
        tasks.drop_if_expired(id, now, ttl);

        let stored = tasks.get(id);
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
        let (was_terminal_since, previous_sequence, log) = match tasks.get_mut(id) {
            Some(entry) => (entry.terminal_since, entry.last_sequence, entry.log.take()),
            None => (None, 0, None),
        };
        let last_sequence = previous_sequence + events.len() as u64;
        let log = if compacts {
            None
        } else {
            let mut log = log.unwrap_or_else(|| {
                Box::new(Log {
                    compacted_to: previous_sequence,
                    events: Vec::new(),
                    whole_to: previous_sequence,
                })
            });
            log.events.extend(encoded);
            log.whole_to = last_sequence;
            Some(log)
        };
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
                tasks.forget_terminal(key);
            }
            if let Some(key) = terminal_since {
                tasks.note_terminal(id, key);
            }
        }
        let entry = Entry {
            scope: scope.clone(),
            text: text.text,
            spans: text.spans,
            state: task.status.state,
            timestamp: task.status.timestamp,
            version,
            terminal_since,
            last_sequence,
            log,
        };
        match tasks.get_mut(id) {
            Some(stored) => *stored = entry,
            None => tasks.insert(Box::new(entry)),
        }

        tasks.saves += 1;
        if tasks
            .saves
            .is_multiple_of(self.config.cleanup_interval.max(1))
        {
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
        // The compacted final event is rebuilt from the task: its body, and its sequence.
        type Found = (Option<(Body, u64)>, Vec<(u64, Box<[u8]>)>);
        let found: Option<Found> = self.read_live(scope, id, |entry| {
            let start = entry.compacted_to();
            let compacted =
                (after < start && start > 0 && limit > 0).then(|| (entry.body(), start));
            let skip = usize::try_from(after.saturating_sub(start)).unwrap_or(usize::MAX);
            let kept = entry
                .kept_events()
                .iter()
                .zip(start + 1..)
                .skip(skip)
                .take(limit.saturating_sub(usize::from(compacted.is_some())))
                .map(|(body, sequence)| (sequence, body.clone()))
                .collect();
            (compacted, kept)
        });
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
            for entry in &tasks.by_id {
                if entry.scope != *scope
                    || !query.matches_parts(
                        entry.context_id(),
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
                    .is_none_or(|cursor| cursor.precedes_parts(millis, entry.id()))
                {
                    candidates.push((
                        millis,
                        TaskId::new(entry.id()),
                        entry.body(),
                        entry.chunks_after_body(),
                    ));
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
            candidates.last().map(|(millis, id, _, _)| TaskCursor {
                timestamp_millis: *millis,
                task_id: id.clone(),
            })
        } else {
            None
        };
        let tasks = candidates
            .iter()
            .map(|(_, _, body, chunks)| materialise(body, chunks))
            .collect::<Result<_, _>>()?;
        Ok(TaskPage {
            tasks,
            total_size,
            next,
        })
    }

    async fn stuck_tasks(
        &self,
        now: &Timestamp,
        ttl: std::time::Duration,
        limit: usize,
    ) -> Result<Vec<(TaskScope, TaskId)>, StoreError> {
        let ttl_millis = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        let cutoff = now.unix_millis().saturating_sub(ttl_millis);
        let tasks = self.lock();
        Ok(tasks
            .by_id
            .iter()
            .filter(|entry| {
                matches!(entry.state, TaskState::Submitted | TaskState::Working)
                    && entry
                        .timestamp
                        .as_ref()
                        .is_some_and(|stamp| stamp.unix_millis() < cutoff)
            })
            .take(limit)
            .map(|entry| (entry.scope.clone(), TaskId::new(entry.id())))
            .collect())
    }
}

/// A list candidate: its list-order key, its stored body and the chunks logged after it.
type Candidate = (i64, TaskId, Body, Vec<Box<[u8]>>);

/// The list order: status timestamp, newest first, then task id, descending. Task
/// ids are unique, so no two tasks compare equal.
fn list_order(a: &Candidate, b: &Candidate) -> Ordering {
    (b.0, &b.1).cmp(&(a.0, &a.1))
}

/// Events as compact JSON, for the log.
fn encode_events(events: &[StreamResponse]) -> Result<Vec<Box<[u8]>>, StoreError> {
    events
        .iter()
        .map(|event| {
            serde_json::to_vec(event)
                .map(Vec::into_boxed_slice)
                .map_err(|error| StoreError::Backend(Box::new(error)))
        })
        .collect()
}

/// The task: its last whole body with the artifact chunks logged after it folded in.
fn materialise(body: &Body, chunks: &[Box<[u8]>]) -> Result<Task, StoreError> {
    let mut task = decode(body)?;
    for chunk in chunks {
        let event: StreamResponse =
            serde_json::from_slice(chunk).map_err(|error| StoreError::Backend(Box::new(error)))?;
        if let StreamResponse::ArtifactUpdate(update) = &event {
            fold_artifact_update(&mut task, update);
        }
    }
    Ok(task)
}

/// A stored body back into a task. Only bodies this store encoded are ever decoded, so a
/// failure means memory corruption or a serde bug: reported, never papered over.
fn decode(body: &Body) -> Result<Task, StoreError> {
    serde_json::from_str(body.json()).map_err(|error| StoreError::Backend(Box::new(error)))
}

impl InMemoryTaskStore {
    /// `read` applied to the live task `id` of `scope`, under the lock; `None` when there
    /// is none there (or it just expired).
    fn read_live<T>(
        &self,
        scope: &TaskScope,
        id: &TaskId,
        read: impl FnOnce(&Entry) -> T,
    ) -> Option<T> {
        let mut tasks = self.lock();
        tasks.drop_if_expired(id.as_str(), Instant::now(), self.config.completed_task_ttl);
        tasks
            .get(id.as_str())
            .filter(|entry| entry.scope == *scope)
            .map(read)
    }
}
