//! The [`JwksOptions`] defaults and builder.

use std::time::Duration;

use super::JwksOptions;

impl Default for JwksOptions {
    fn default() -> Self {
        Self {
            cache_ttl: Duration::from_secs(600),
            refresh_cooldown: Duration::from_secs(30),
            fetch_timeout: Duration::from_secs(5),
            max_response_bytes: 1024 * 1024,
        }
    }
}

impl JwksOptions {
    /// Sets [`cache_ttl`](Self::cache_ttl).
    #[must_use]
    pub fn with_cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Sets [`refresh_cooldown`](Self::refresh_cooldown).
    #[must_use]
    pub fn with_refresh_cooldown(mut self, cooldown: Duration) -> Self {
        self.refresh_cooldown = cooldown;
        self
    }

    /// Sets [`fetch_timeout`](Self::fetch_timeout).
    #[must_use]
    pub fn with_fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }

    /// Sets [`max_response_bytes`](Self::max_response_bytes).
    #[must_use]
    pub fn with_max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }
}
