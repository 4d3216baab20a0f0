//! [`DirectoryCache`]: the records the proxy found lately, reused for a short while so that
//! a call costs no database round trip, and read again by one call before they lapse.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::agent::RegisteredAgent;

/// Above this many entries, stale ones are dropped before another is added.
const PRUNE_ABOVE: usize = 4096;

/// Live records by id, each reused for `life` after it was read. A record is also checked
/// against the expiry cutoff at every use, so caching never extends a registration.
///
/// Past half its life, a record is handed to one call to read again ([`Cached::Renew`])
/// while the others go on using it. Without that, every call in flight when a busy
/// agent's record lapsed read the database at once (thirty queries a second at 64 calls
/// in flight, each waking the database's worker thread): a tenth of the gateway's CPU per
/// call in `bench/gateway.sh`.
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
    /// A call is reading it again.
    renewing: bool,
}

/// What the cache has for an id.
#[derive(Debug)]
pub(crate) enum Cached {
    /// A record to use.
    Fresh(Arc<RegisteredAgent>),
    /// A record to use, past half its life: the caller, alone, reads it again and
    /// [`put`](DirectoryCache::put)s what it finds, or reports
    /// [`renewal_failed`](DirectoryCache::renewal_failed).
    Renew(Arc<RegisteredAgent>),
    /// Nothing usable: read the database.
    Missing,
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
    /// `cutoff` (milliseconds: live agents were last seen after it); to be read again by
    /// this caller when it is past half its life and no other caller is reading it.
    pub(crate) fn get(&self, agent_id: &str, cutoff: i64) -> Cached {
        self.get_at(agent_id, cutoff, Instant::now())
    }

    fn get_at(&self, agent_id: &str, cutoff: i64, now: Instant) -> Cached {
        if self.life.is_zero() {
            return Cached::Missing;
        }
        let mut state = self.lock();
        let Some(entry) = state.entries.get_mut(agent_id) else {
            return Cached::Missing;
        };
        let age = now.saturating_duration_since(entry.read_at);
        if age >= self.life || entry.agent.last_seen.timestamp_millis() <= cutoff {
            return Cached::Missing;
        }
        let agent = Arc::clone(&entry.agent);
        if age >= self.life / 2 && !entry.renewing {
            entry.renewing = true;
            return Cached::Renew(agent);
        }
        Cached::Fresh(agent)
    }

    /// The caller told to renew `agent_id` could not read it: another call may try.
    pub(crate) fn renewal_failed(&self, agent_id: &str) {
        if let Some(entry) = self.lock().entries.get_mut(agent_id) {
            entry.renewing = false;
        }
    }

    /// The generation to hand back to [`put`](Self::put) with what a read finds.
    pub(crate) fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// Keeps `agent`, read when the cache was at `generation`, unless something changed
    /// since (then the record held, if any, may be renewed by another call).
    pub(crate) fn put(&self, agent: Arc<RegisteredAgent>, generation: u64) {
        self.put_at(agent, generation, Instant::now());
    }

    fn put_at(&self, agent: Arc<RegisteredAgent>, generation: u64, now: Instant) {
        if self.life.is_zero() {
            return;
        }
        let mut state = self.lock();
        if state.generation != generation {
            if let Some(entry) = state.entries.get_mut(&agent.agent_id) {
                entry.renewing = false;
            }
            return;
        }
        if state.entries.len() >= PRUNE_ABOVE {
            let life = self.life;
            state
                .entries
                .retain(|_, entry| now.saturating_duration_since(entry.read_at) < life);
            if state.entries.len() >= PRUNE_ABOVE {
                state.entries.clear();
            }
        }
        let id = agent.agent_id.clone();
        let entry = Entry {
            agent,
            read_at: now,
            renewing: false,
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

    fn found(cached: &Cached) -> bool {
        match cached {
            Cached::Fresh(_) | Cached::Renew(_) => true,
            Cached::Missing => false,
        }
    }

    #[test]
    fn a_record_is_reused_while_fresh_and_live() {
        let cache = DirectoryCache::new(Duration::from_secs(60));
        let echo = agent("echo");
        let seen = echo.last_seen.timestamp_millis();
        cache.put(Arc::clone(&echo), cache.generation());
        assert!(found(&cache.get("echo", seen - 1)));
        assert!(!found(&cache.get("echo", seen)), "expired at the cutoff");
        assert!(!found(&cache.get("other", i64::MIN)));
    }

    #[test]
    fn a_change_drops_the_record_and_a_read_from_before_it_is_not_kept() {
        let cache = DirectoryCache::new(Duration::from_secs(60));
        cache.put(agent("echo"), cache.generation());
        let before = cache.generation();
        cache.forget("echo");
        assert!(!found(&cache.get("echo", i64::MIN)));
        cache.put(agent("echo"), before);
        assert!(!found(&cache.get("echo", i64::MIN)), "stale read refused");
        cache.put(agent("echo"), cache.generation());
        assert!(found(&cache.get("echo", i64::MIN)));
        cache.clear();
        assert!(!found(&cache.get("echo", i64::MIN)));
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // a plain test thread, no runtime
    fn a_zero_life_keeps_nothing_and_old_records_lapse() {
        let off = DirectoryCache::new(Duration::ZERO);
        off.put(agent("echo"), off.generation());
        assert!(!found(&off.get("echo", i64::MIN)));

        let short = DirectoryCache::new(Duration::from_millis(1));
        short.put(agent("echo"), short.generation());
        std::thread::sleep(Duration::from_millis(5));
        assert!(!found(&short.get("echo", i64::MIN)));
    }

    #[test]
    fn past_half_its_life_a_record_is_renewed_by_one_caller_at_a_time() {
        let cache = DirectoryCache::new(Duration::from_secs(10));
        let read = Instant::now();
        let later = |seconds| read + Duration::from_secs(seconds);
        cache.put_at(agent("echo"), cache.generation(), read);
        let get = |at| cache.get_at("echo", i64::MIN, at);
        assert!(matches!(get(later(4)), Cached::Fresh(_)));
        assert!(matches!(get(later(6)), Cached::Renew(_)));
        assert!(
            matches!(get(later(7)), Cached::Fresh(_)),
            "the others use it meanwhile"
        );
        cache.renewal_failed("echo");
        assert!(
            matches!(get(later(7)), Cached::Renew(_)),
            "another call tries"
        );
        let generation = cache.generation();
        cache.forget("other");
        cache.put_at(agent("echo"), generation, later(8));
        assert!(
            matches!(get(later(8)), Cached::Renew(_)),
            "a renewal that was not kept lets another call try"
        );
        assert!(matches!(get(later(10)), Cached::Missing), "lapsed");
        cache.put_at(agent("echo"), cache.generation(), later(8));
        assert!(matches!(get(later(10)), Cached::Fresh(_)), "renewed");
    }
}
