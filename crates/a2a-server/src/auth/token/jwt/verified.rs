//! Tokens already verified, so a caller presenting the same JWT again is not checked again:
//! an ES256 signature costs more CPU than the rest of a small request.
//!
//! Entries are keyed by the SHA-256 of the whole token (signature included, so a token that
//! differs in any byte is a different entry, and the cache holds no token). An entry is used
//! only
//! - until the token's `exp` (without the leeway: past it, the token is verified again, and
//!   the leeway then applies as it always does), and
//! - while the keys it was verified with are still the current keys, with the same
//!   discovered issuer: once the JWKS is fetched again (its lifetime lapsed, or a token named
//!   an unknown key), every token is verified again against the new keys, so none outlives
//!   the removal of the key that signed it.
//!
//! The cache holds at most its capacity; when full, the entry inserted first goes. Expired
//! and outdated entries are not served and go the same way.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::super::VerifiedToken;
use super::super::jwks::KeySet;
use crate::auth::secret::{Digest, digest};

/// The keys (and discovered issuer) a token was verified with.
#[derive(Debug, Clone)]
pub(super) struct VerifiedWith {
    pub(super) keys: Arc<KeySet>,
    pub(super) issuer: Option<Arc<str>>,
}

impl VerifiedWith {
    /// The same keys, fetched at the same time (not merely equal ones: a held `Arc` is never
    /// reused for another set), and the same issuer.
    fn is(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.keys, &other.keys) && self.issuer == other.issuer
    }
}

/// A bounded map from token digests to what verifying them found.
#[derive(Debug)]
pub(super) struct VerifiedCache {
    capacity: usize,
    entries: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    map: HashMap<Digest, Entry>,
    /// Every key of `map`, once, in the order they were inserted.
    order: VecDeque<Digest>,
}

#[derive(Debug)]
struct Entry {
    token: Arc<VerifiedToken>,
    /// The token's `exp`, in seconds since the epoch.
    expires: f64,
    with: VerifiedWith,
}

impl VerifiedCache {
    /// A cache of at most `capacity` tokens; `None` for zero, which means no cache.
    pub(super) fn new(capacity: usize) -> Option<Self> {
        (capacity > 0).then(|| Self {
            capacity,
            entries: Mutex::new(Entries::default()),
        })
    }

    /// The key of `token`.
    pub(super) fn key(token: &str) -> Digest {
        digest(token.as_bytes())
    }

    fn entries(&self) -> MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What verifying the token of `key` found, when it was verified with `current` and its
    /// `exp` is after `now` (seconds since the epoch).
    pub(super) fn get(
        &self,
        key: &Digest,
        current: &VerifiedWith,
        now: f64,
    ) -> Option<VerifiedToken> {
        let token = {
            let entries = self.entries();
            let entry = entries.map.get(key)?;
            if now >= entry.expires || !entry.with.is(current) {
                return None;
            }
            Arc::clone(&entry.token)
        };
        // Copied outside the lock.
        Some(VerifiedToken::clone(&token))
    }

    /// Remembers `token`, verified with `with`, until `expires` (its `exp`); nothing when it
    /// has already expired at `now`.
    pub(super) fn insert(
        &self,
        key: Digest,
        token: VerifiedToken,
        expires: f64,
        with: VerifiedWith,
        now: f64,
    ) {
        if now >= expires {
            return;
        }
        let entry = Entry {
            token: Arc::new(token),
            expires,
            with,
        };
        let mut entries = self.entries();
        if let Some(old) = entries.map.get_mut(&key) {
            // Verified again (expired, or new keys): refreshed in place, keeping its turn.
            *old = entry;
            return;
        }
        while entries.map.len() >= self.capacity {
            let Some(oldest) = entries.order.pop_front() else {
                break;
            };
            entries.map.remove(&oldest);
        }
        entries.map.insert(key, entry);
        entries.order.push_back(key);
    }

    /// How many tokens are held.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.entries().map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(keys: &Arc<KeySet>) -> VerifiedWith {
        VerifiedWith {
            keys: Arc::clone(keys),
            issuer: None,
        }
    }

    fn token(subject: &str) -> VerifiedToken {
        VerifiedToken {
            subject: Some(subject.to_owned()),
            ..VerifiedToken::default()
        }
    }

    fn subject(found: Option<VerifiedToken>) -> Option<String> {
        found.and_then(|token| token.subject)
    }

    #[test]
    fn an_entry_is_served_until_the_token_expires() {
        let cache = VerifiedCache::new(8).unwrap();
        let keys = with(&Arc::new(KeySet::default()));
        let key = VerifiedCache::key("a.b.c");
        cache.insert(key, token("alice"), 100.0, keys.clone(), 10.0);
        assert_eq!(
            subject(cache.get(&key, &keys, 10.0)).as_deref(),
            Some("alice")
        );
        assert_eq!(
            subject(cache.get(&key, &keys, 99.5)).as_deref(),
            Some("alice")
        );
        assert_eq!(cache.get(&key, &keys, 100.0), None);
        assert_eq!(cache.get(&key, &keys, 1000.0), None);

        // Verified again later: the entry is refreshed, not added twice.
        cache.insert(key, token("alice"), 200.0, keys.clone(), 150.0);
        assert_eq!(cache.len(), 1);
        assert_eq!(
            subject(cache.get(&key, &keys, 150.0)).as_deref(),
            Some("alice")
        );

        // A token already expired is not remembered.
        let late = VerifiedCache::key("d.e.f");
        cache.insert(late, token("bob"), 50.0, keys.clone(), 60.0);
        assert_eq!(cache.get(&late, &keys, 40.0), None);
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn another_token_is_not_served_from_the_cache() {
        let cache = VerifiedCache::new(8).unwrap();
        let keys = with(&Arc::new(KeySet::default()));
        cache.insert(
            VerifiedCache::key("header.payload.signature"),
            token("alice"),
            100.0,
            keys.clone(),
            0.0,
        );
        for other in [
            "header.payload.signaturf",
            "header.payload.",
            "header.payload.signature ",
            "",
        ] {
            assert_eq!(
                cache.get(&VerifiedCache::key(other), &keys, 1.0),
                None,
                "{other}"
            );
        }
    }

    #[test]
    fn an_entry_is_served_only_with_the_keys_it_was_verified_with() {
        let cache = VerifiedCache::new(8).unwrap();
        let first = Arc::new(KeySet::default());
        let key = VerifiedCache::key("a.b.c");
        cache.insert(key, token("alice"), 100.0, with(&first), 0.0);
        assert!(cache.get(&key, &with(&first), 1.0).is_some());
        // Keys fetched again, even if equal, are other keys.
        let refetched = Arc::new(KeySet::default());
        assert_eq!(cache.get(&key, &with(&refetched), 1.0), None);
        // So is another discovered issuer.
        let other_issuer = VerifiedWith {
            keys: Arc::clone(&first),
            issuer: Some(Arc::from("https://other")),
        };
        assert_eq!(cache.get(&key, &other_issuer, 1.0), None);
    }

    #[test]
    fn the_cache_is_bounded_and_lets_the_oldest_go_first() {
        let cache = VerifiedCache::new(3).unwrap();
        let keys = with(&Arc::new(KeySet::default()));
        let key = |n: usize| VerifiedCache::key(&format!("token-{n}"));
        for n in 0..10 {
            cache.insert(key(n), token(&n.to_string()), 100.0, keys.clone(), 0.0);
            assert!(cache.len() <= 3);
        }
        assert_eq!(cache.len(), 3);
        for n in 0..7 {
            assert_eq!(cache.get(&key(n), &keys, 1.0), None, "{n}");
        }
        for n in 7..10 {
            assert_eq!(subject(cache.get(&key(n), &keys, 1.0)), Some(n.to_string()));
        }
        assert!(VerifiedCache::new(0).is_none());
    }
}
