//! The bookkeeping behind the store's lock: finding entries by id, versions handed out,
//! removal, expiry and eviction of terminal tasks.

use std::hash::BuildHasher;
use std::time::Duration;

use tokio::time::Instant;

use super::super::Version;
use super::{Entry, Tasks, TerminalKey};

impl TerminalKey {
    pub(super) fn expired(self, now: Instant, ttl: Duration) -> bool {
        !ttl.is_zero() && now.saturating_duration_since(self.since) >= ttl
    }
}

impl Tasks {
    /// The hash `by_id` files the task `id` under.
    pub(super) fn hash(&self, id: &str) -> u64 {
        self.hasher.hash_one(id)
    }

    /// The entry of task `id`.
    pub(super) fn get(&self, id: &str) -> Option<&Entry> {
        self.by_id
            .find(self.hash(id), |entry| entry.id() == id)
            .map(|entry| &**entry)
    }

    /// The entry of task `id`, to change it.
    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut Entry> {
        let hash = self.hash(id);
        self.by_id
            .find_mut(hash, |entry| entry.id() == id)
            .map(|entry| &mut **entry)
    }

    /// Files a new entry (its id is not in the table).
    pub(super) fn insert(&mut self, entry: Box<Entry>) {
        let hash = self.hash(entry.id());
        let hasher = &self.hasher;
        self.by_id
            .insert_unique(hash, entry, |entry| hasher.hash_one(entry.id()));
    }

    /// Notes that the task `id`, whose entry has `key` now, became terminal. Keys are made
    /// in order under the lock, so it goes last; the search only guards that order.
    pub(super) fn note_terminal(&mut self, id: &str, key: TerminalKey) {
        let hash = self.hash(id);
        match self.terminal.back() {
            Some((last, _)) if *last > key => {
                let index = self.terminal.partition_point(|(held, _)| *held < key);
                self.terminal.insert(index, (key, hash));
            }
            _ => self.terminal.push_back((key, hash)),
        }
    }

    /// Forgets that a task became terminal at `key` (it is no longer terminal, or gone).
    pub(super) fn forget_terminal(&mut self, key: TerminalKey) {
        if let Ok(index) = self.terminal.binary_search_by(|(held, _)| held.cmp(&key)) {
            self.terminal.remove(index);
        }
    }

    pub(super) fn next_version(&mut self) -> Version {
        self.last_version += 1;
        Version(self.last_version)
    }

    pub(super) fn remove(&mut self, id: &str) {
        let hash = self.hash(id);
        if let Ok(found) = self.by_id.find_entry(hash, |entry| entry.id() == id) {
            let (entry, _) = found.remove();
            if let Some(key) = entry.terminal_since {
                self.forget_terminal(key);
            }
            self.sends.forget_task(entry.id());
        }
    }

    pub(super) fn drop_if_expired(&mut self, id: &str, now: Instant, ttl: Duration) {
        let expired = self
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
        while let Some(&(key, _)) = self.terminal.front()
            && key.expired(now, ttl)
        {
            self.drop_first_terminal();
        }
    }

    /// Evicts terminal tasks, the one that became terminal first first, until one more task
    /// fits under `max_stored_tasks` (0: unlimited) or no terminal task is left.
    pub(super) fn make_room(&mut self, max_stored_tasks: usize) {
        if max_stored_tasks == 0 {
            return;
        }
        while self.by_id.len() >= max_stored_tasks && self.drop_first_terminal() {}
    }

    /// Drops the task that became terminal first; false when no task is terminal. Its key
    /// tells it from the other entries under the same hash.
    fn drop_first_terminal(&mut self) -> bool {
        let Some((key, hash)) = self.terminal.pop_front() else {
            return false;
        };
        if let Ok(found) = self
            .by_id
            .find_entry(hash, |entry| entry.terminal_since == Some(key))
        {
            let (entry, _) = found.remove();
            self.sends.forget_task(entry.id());
        }
        true
    }
}
