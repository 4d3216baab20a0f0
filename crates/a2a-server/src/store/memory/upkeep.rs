//! The bookkeeping behind the store's lock: versions handed out, removal, expiry and eviction
//! of terminal tasks, and the length of a log.

use std::time::Duration;

use a2a_types::TaskId;
use tokio::time::Instant;

use super::super::Version;
use super::{Log, Tasks, TerminalKey};

impl Log {
    pub(super) fn last_sequence(&self) -> u64 {
        self.compacted_to + self.events.len() as u64
    }

    /// Copies of the events after `sequence` still in the log (none that were compacted).
    pub(super) fn chunks_after(&self, sequence: u64) -> Vec<Box<[u8]>> {
        let skip =
            usize::try_from(sequence.saturating_sub(self.compacted_to)).unwrap_or(usize::MAX);
        self.events.iter().skip(skip).cloned().collect()
    }
}

impl TerminalKey {
    pub(super) fn expired(self, now: Instant, ttl: Duration) -> bool {
        !ttl.is_zero() && now.saturating_duration_since(self.since) >= ttl
    }
}

impl Tasks {
    pub(super) fn next_version(&mut self) -> Version {
        self.last_version += 1;
        Version(self.last_version)
    }

    pub(super) fn remove(&mut self, id: &TaskId) {
        if let Some(entry) = self.by_id.remove(id)
            && let Some(key) = entry.terminal_since
        {
            self.terminal.remove(&key);
        }
    }

    pub(super) fn drop_if_expired(&mut self, id: &TaskId, now: Instant, ttl: Duration) {
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
    pub(super) fn drop_expired(&mut self, now: Instant, ttl: Duration) {
        while let Some(entry) = self.terminal.first_entry()
            && entry.key().expired(now, ttl)
        {
            let id = entry.remove();
            self.by_id.remove(&id);
        }
    }

    /// Evicts terminal tasks, the one that became terminal first first, until one more task
    /// fits under `max_stored_tasks` (0: unlimited) or no terminal task is left.
    pub(super) fn make_room(&mut self, max_stored_tasks: usize) {
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
