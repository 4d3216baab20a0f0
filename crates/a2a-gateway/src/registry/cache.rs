//! [`DirectoryCache`]: the records the proxy found lately, reused for a short while so that
//! a call costs no database round trip.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::agent::RegisteredAgent;

/// Above this many entries, stale ones are dropped before another is added.
const PRUNE_ABOVE: usize = 4096;

/// Live records by id, each reused for `life` after it was read. A record is also checked
/// against the expiry cutoff at every use, so caching never extends a registration.
#[derive(Debug)]
pub(crate) struct DirectoryCache {
    life: Duration,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    entries: HashMap<String, Entry>,
    /// Bumped by every change made through this registry: a read that started before a
    /// change must not put back what the change replaced.
    generation: u64,
}

#[derive(Debug)]
struct Entry {
    agent: Arc<RegisteredAgent>,
    read_at: Instant,
}

impl DirectoryCache {
    /// A cache keeping records for `life`; zero keeps none.
    pub(crate) fn new(life: Duration) -> Self {
        Self {
            life,
            state: Mutex::default(),
        }
    }

    /// The record of `agent_id` if it was read less than `life` ago and is live at
    /// `cutoff` (milliseconds: live agents were last seen after it).
    pub(crate) fn get(&self, agent_id: &str, cutoff: i64) -> Option<Arc<RegisteredAgent>> {
        if self.life.is_zero() {
            return None;
        }
        let state = self.lock();
        let entry = state.entries.get(agent_id)?;
        let fresh = entry.read_at.elapsed() < self.life
            && entry.agent.last_seen.timestamp_millis() > cutoff;
        fresh.then(|| Arc::clone(&entry.agent))
    }

    /// The generation to hand back to [`put`](Self::put) with what a read finds.
    pub(crate) fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// Keeps `agent`, read when the cache was at `generation`, unless something changed
    /// since.
    pub(crate) fn put(&self, agent: Arc<RegisteredAgent>, generation: u64) {
        if self.life.is_zero() {
            return;
        }
        let mut state = self.lock();
        if state.generation != generation {
            return;
        }
        if state.entries.len() >= PRUNE_ABOVE {
            let life = self.life;
            state
                .entries
                .retain(|_, entry| entry.read_at.elapsed() < life);
            if state.entries.len() >= PRUNE_ABOVE {
                state.entries.clear();
            }
        }
        let id = agent.agent_id.clone();
        let entry = Entry {
            agent,
            read_at: Instant::now(),
        };
        state.entries.insert(id, entry);
    }

    /// Drops the record of `agent_id`: it was registered, heartbeated or deregistered.
    pub(crate) fn forget(&self, agent_id: &str) {
        let mut state = self.lock();
        state.generation = state.generation.wrapping_add(1);
        state.entries.remove(agent_id);
    }

    /// Drops every record.
    pub(crate) fn clear(&self) {
        let mut state = self.lock();
        state.generation = state.generation.wrapping_add(1);
        state.entries.clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state stays consistent whatever panicked while holding the lock.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn agent(id: &str) -> Arc<RegisteredAgent> {
        Arc::new(RegisteredAgent::new(id, id, json!({})))
    }

    #[test]
    fn a_record_is_reused_while_fresh_and_live() {
        let cache = DirectoryCache::new(Duration::from_secs(60));
        let echo = agent("echo");
        let seen = echo.last_seen.timestamp_millis();
        cache.put(Arc::clone(&echo), cache.generation());
        assert!(cache.get("echo", seen - 1).is_some());
        assert!(cache.get("echo", seen).is_none(), "expired at the cutoff");
        assert!(cache.get("other", i64::MIN).is_none());
    }

    #[test]
    fn a_change_drops_the_record_and_a_read_from_before_it_is_not_kept() {
        let cache = DirectoryCache::new(Duration::from_secs(60));
        cache.put(agent("echo"), cache.generation());
        let before = cache.generation();
        cache.forget("echo");
        assert!(cache.get("echo", i64::MIN).is_none());
        cache.put(agent("echo"), before);
        assert!(cache.get("echo", i64::MIN).is_none(), "stale read refused");
        cache.put(agent("echo"), cache.generation());
        assert!(cache.get("echo", i64::MIN).is_some());
        cache.clear();
        assert!(cache.get("echo", i64::MIN).is_none());
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // a plain test thread, no runtime
    fn a_zero_life_keeps_nothing_and_old_records_lapse() {
        let off = DirectoryCache::new(Duration::ZERO);
        off.put(agent("echo"), off.generation());
        assert!(off.get("echo", i64::MIN).is_none());

        let short = DirectoryCache::new(Duration::from_millis(1));
        short.put(agent("echo"), short.generation());
        std::thread::sleep(Duration::from_millis(5));
        assert!(short.get("echo", i64::MIN).is_none());
    }
}
