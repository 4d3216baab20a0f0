//! The key cache: fixed, fetched from a URL or found by discovery, refreshed when stale or
//! when a token names an unknown key, and never fetched more often than the cooldown allows.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use url::Url;

use super::super::TokenError;
use super::super::oidc::{DiscoveryTarget, Provider};
use super::{JwksCache, JwksOptions, KeySet, Location, Refresh, Snapshot, Source, State};

impl State {
    pub(super) fn current(&self) -> Result<Snapshot, TokenError> {
        match &self.keys {
            Some(keys) => Ok(Snapshot {
                keys: Arc::clone(keys),
                issuer: self
                    .provider
                    .as_ref()
                    .map(|provider| Arc::clone(&provider.issuer)),
                generation: self.generation,
            }),
            None => Err(self.last_error.clone().unwrap_or_else(|| {
                TokenError::Unavailable("the JWKS has not been fetched yet".into())
            })),
        }
    }

    /// Whether `refresh` needs a fetch now, rather than an answer from the current state.
    pub(super) fn needs_fetch(
        &self,
        refresh: Refresh,
        now: Instant,
        options: &JwksOptions,
    ) -> bool {
        let cooling = self
            .last_attempt
            .is_some_and(|at| now.saturating_duration_since(at) < options.refresh_cooldown);
        match refresh {
            Refresh::IfStale => {
                let fresh = self.keys.is_some()
                    && self
                        .fetched_at
                        .is_some_and(|at| now.saturating_duration_since(at) < self.ttl);
                !fresh && !cooling
            }
            Refresh::UnknownKey { seen } => seen == self.generation && !cooling,
        }
    }
}

impl JwksCache {
    /// Keys that never change.
    pub(in crate::auth::token) fn fixed(keys: KeySet, options: JwksOptions) -> Self {
        Self::with_source(
            Source::Static(Snapshot {
                keys: Arc::new(keys),
                issuer: None,
                generation: 0,
            }),
            options,
        )
    }

    /// Keys fetched from a JWKS URL.
    pub(in crate::auth::token) fn remote(
        url: Url,
        http: reqwest::Client,
        options: JwksOptions,
    ) -> Self {
        Self::with_source(
            Source::Remote {
                http,
                location: Location::Jwks(url),
            },
            options,
        )
    }

    /// Keys found through OpenID Connect discovery.
    pub(in crate::auth::token) fn discovered(
        target: DiscoveryTarget,
        http: reqwest::Client,
        options: JwksOptions,
    ) -> Self {
        Self::with_source(
            Source::Remote {
                http,
                location: Location::Discovery(target),
            },
            options,
        )
    }

    fn with_source(source: Source, options: JwksOptions) -> Self {
        Self {
            source,
            options,
            state: Mutex::new(State::default()),
            refreshing: tokio::sync::Mutex::new(()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The keys to check a token with, fetched first when `refresh` asks for it and the
    /// cooldown allows. A failed fetch leaves earlier keys in use.
    ///
    /// # Errors
    /// [`TokenError::Unavailable`] when no keys have ever been fetched successfully.
    pub(in crate::auth::token) async fn snapshot(
        &self,
        refresh: Refresh,
    ) -> Result<Snapshot, TokenError> {
        let (http, location) = match &self.source {
            Source::Static(snapshot) => return Ok(snapshot.clone()),
            Source::Remote { http, location } => (http, location),
        };
        let seen = {
            let state = self.state();
            if !state.needs_fetch(refresh, Instant::now(), &self.options) {
                return state.current();
            }
            state.generation
        };
        let _refreshing = self.refreshing.lock().await;
        let provider = {
            let state = self.state();
            if state.generation != seen {
                // Someone fetched while we waited for the lock; their result is ours.
                return state.current();
            }
            state.provider.clone()
        };
        let started = Instant::now();
        let (provider, outcome) = self.fetch(http, location, provider).await;
        let mut state = self.state();
        state.generation += 1;
        state.last_attempt = Some(started);
        state.provider = provider;
        match outcome {
            Ok((keys, max_age)) => {
                tracing::debug!(keys = keys.len(), "fetched the JWKS");
                let mut ttl = self.options.cache_ttl;
                if let Some(max_age) = max_age {
                    ttl = ttl.min(max_age.max(self.options.refresh_cooldown));
                }
                state.keys = Some(Arc::new(keys));
                state.fetched_at = Some(started);
                state.ttl = ttl;
                state.last_error = None;
            }
            Err(error) => {
                tracing::warn!(%error, "fetching the JWKS failed; earlier keys stay in use");
                state.last_error = Some(error);
            }
        }
        state.current()
    }

    /// One fetch: discovery first when needed, then the JWKS. Returns the provider to
    /// remember (none after a failed JWKS fetch, so the next attempt discovers again).
    async fn fetch(
        &self,
        http: &reqwest::Client,
        location: &Location,
        provider: Option<Provider>,
    ) -> (
        Option<Provider>,
        Result<(KeySet, Option<Duration>), TokenError>,
    ) {
        let limit = self.options.max_response_bytes;
        match location {
            Location::Jwks(url) => (None, fetch_jwks(http, url, limit).await),
            Location::Discovery(target) => {
                let provider = match provider {
                    Some(known) => known,
                    None => match super::super::oidc::discover(http, target, limit).await {
                        Ok(found) => found,
                        Err(error) => return (None, Err(error)),
                    },
                };
                match fetch_jwks(http, &provider.jwks_uri, limit).await {
                    Ok(found) => (Some(provider), Ok(found)),
                    Err(error) => (None, Err(error)),
                }
            }
        }
    }
}

/// GETs and reads a JWKS; also returns the response's `Cache-Control` max-age.
async fn fetch_jwks(
    http: &reqwest::Client,
    url: &Url,
    limit: usize,
) -> Result<(KeySet, Option<Duration>), TokenError> {
    let fetched = fetch_jwks_once(http, url, limit).await;
    crate::metrics::jwks_fetch(fetched.is_ok());
    fetched
}

async fn fetch_jwks_once(
    http: &reqwest::Client,
    url: &Url,
    limit: usize,
) -> Result<(KeySet, Option<Duration>), TokenError> {
    let unavailable =
        |why: &str| TokenError::Unavailable(format!("fetching the JWKS failed: {why}"));
    let request = http.get(url.clone()).header(
        http::header::ACCEPT,
        "application/jwk-set+json, application/json",
    );
    let response = super::super::http::send_checked(request)
        .await
        .map_err(|why| unavailable(&why))?;
    let max_age = response
        .headers()
        .get_all(http::header::CACHE_CONTROL)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find_map(cache_max_age);
    let body = super::super::http::read_limited(response, limit)
        .await
        .map_err(unavailable)?;
    Ok((KeySet::parse(&body)?, max_age))
}

/// The lifetime a `Cache-Control` value allows: `max-age`, or zero for `no-store` and
/// `no-cache`.
pub(super) fn cache_max_age(header: &str) -> Option<Duration> {
    header.split(',').find_map(|directive| {
        let directive = directive.trim();
        if directive.eq_ignore_ascii_case("no-store") || directive.eq_ignore_ascii_case("no-cache")
        {
            return Some(Duration::ZERO);
        }
        let (name, value) = directive.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("max-age") {
            return None;
        }
        value
            .trim()
            .trim_matches('"')
            .parse::<u64>()
            .ok()
            .map(Duration::from_secs)
    })
}
