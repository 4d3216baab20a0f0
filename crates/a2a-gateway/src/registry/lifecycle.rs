//! [`Registry`]: registration, heartbeats, deregistration and expiry of agents over a
//! [`Store`].

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::cache::{Cached, DirectoryCache};
use super::error::RegistryError;
use super::options::RegistryOptions;
use super::record;
use super::store::{Saved, Store, StoredAgent};
use crate::agent::{AgentDirectory, DirectoryError, RegisteredAgent};
use crate::proxy::spoken::SpokenOnce;

/// The agent registry on SQLite or PostgreSQL.
///
/// An agent is live from its registration until `agent_ttl` passes without a heartbeat
/// or registration, or until it deregisters. Only live agents are found, listed,
/// counted against `max_agents` and accepted in heartbeats; an expired agent that
/// registers again starts afresh with a new `registered_at`. Several gateway instances may
/// share one PostgreSQL database; SQLite (the default, `sqlite::memory:` for tests) serves
/// one process per file.
///
/// ```
/// # async fn run() -> Result<(), a2a_gateway::registry::RegistryError> {
/// use a2a_gateway::registry::{Registry, RegistryOptions};
/// use serde_json::json;
///
/// let registry = Registry::connect("sqlite::memory:", RegistryOptions::new()).await?;
/// let agent = registry
///     .register(json!({"agent_id": "echo", "name": "Echo", "url": "http://127.0.0.1:9000/"}))
///     .await?;
/// assert_eq!(agent.jsonrpc_url.as_deref(), Some("http://127.0.0.1:9000/"));
/// assert!(registry.heartbeat("echo").await?.is_some());
/// assert!(registry.deregister("echo").await?);
/// # Ok(()) }
/// # tokio::runtime::Runtime::new().unwrap().block_on(run()).unwrap();
/// ```
#[derive(Debug)]
pub struct Registry {
    store: Store,
    options: RegistryOptions,
    url: String,
    shutdown: CancellationToken,
    /// What the proxy found lately ([`RegistryOptions::directory_cache`]).
    cache: DirectoryCache,
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Which live agents [`Registry::list`] returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
#[must_use]
pub struct AgentFilter {
    /// Agents with a skill carrying any of these tags; empty: every agent.
    pub skill_tags: Vec<String>,
    /// At most this many; `None`: no limit.
    pub limit: Option<usize>,
}

impl AgentFilter {
    /// Every live agent.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only agents with a skill tagged with one of `tags`.
    pub fn skill_tags<T: Into<String>>(mut self, tags: impl IntoIterator<Item = T>) -> Self {
        self.skill_tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// At most `limit` agents.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Registry {
    /// Opens the registry database at `url`, creating a SQLite file (or a PostgreSQL
    /// schema) when missing, and starts the periodic cleanup of expired agents.
    ///
    /// `url` is `sqlite://PATH` or `sqlite:PATH` (a file), `sqlite::memory:` (a registry of
    /// this value alone, gone when it is dropped), or `postgres://…` / `postgresql://…`.
    ///
    /// # Errors
    /// [`RegistryError::InvalidUrl`], [`RegistryError::InvalidOption`],
    /// [`RegistryError::Connect`], [`RegistryError::Migration`] or
    /// [`RegistryError::SchemaTooNew`].
    pub async fn connect(url: &str, options: RegistryOptions) -> Result<Self, RegistryError> {
        if let Some(what) = options.problem() {
            return Err(RegistryError::InvalidOption { what });
        }
        let shown = redact(url);
        let store = Store::open(url, &shown, &options).await?;
        let shutdown = CancellationToken::new();
        if !options.agent_ttl.is_zero() && !options.cleanup_interval.is_zero() {
            tokio::spawn(clean_up_periodically(
                store.clone(),
                options.clone(),
                shutdown.clone(),
            ));
        }
        Ok(Self {
            store,
            cache: DirectoryCache::new(options.directory_cache),
            options,
            url: shown,
            shutdown,
        })
    }

    /// A registry in memory with default options, for tests and single-process gateways.
    ///
    /// # Errors
    /// As [`Registry::connect`].
    pub async fn in_memory() -> Result<Self, RegistryError> {
        Self::connect("sqlite::memory:", RegistryOptions::new()).await
    }

    /// The database URL, password hidden: safe to log.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How long an agent stays live without a heartbeat.
    #[must_use]
    pub fn agent_ttl(&self) -> Duration {
        self.options.agent_ttl
    }

    /// The most live agents held; 0 = no limit.
    #[must_use]
    pub fn max_agents(&self) -> usize {
        self.options.max_agents
    }

    /// Registers the agent a register body describes (see the [module docs](super) for
    /// the shapes), or registers it again: a live agent keeps its `registered_at`.
    /// `last_seen` becomes now either way.
    ///
    /// # Errors
    /// [`RegistryError::InvalidRecord`],
    /// [`RegistryError::InvalidSignature`] (spec §11.5), [`RegistryError::Full`],
    /// [`RegistryError::Database`].
    pub async fn register(&self, body: Value) -> Result<RegisteredAgent, RegistryError> {
        let registration = record::read(body).map_err(RegistryError::InvalidRecord)?;
        self.options
            .signatures
            .check(&registration.card)
            .await
            .map_err(RegistryError::InvalidSignature)?;
        let now = self.now_millis();
        let card = Value::Object(registration.card);
        let stored = StoredAgent {
            agent_id: registration.agent_id,
            name: registration.name,
            jsonrpc_url: registration.jsonrpc_url,
            rest_url: registration.rest_url,
            card: card.to_string(),
            registered_at: now,
            last_seen: now,
        };
        let saved = self
            .store
            .save(&stored, self.cutoff(now), self.options.max_agents)
            .await;
        // After the write: a read that began before it may have put the old card back.
        self.cache.forget(&stored.agent_id);
        match saved? {
            Saved::Full => Err(RegistryError::Full {
                max_agents: self.options.max_agents,
            }),
            Saved::Agent {
                registered_at,
                last_seen,
            } => Ok(RegisteredAgent {
                agent_id: stored.agent_id,
                name: stored.name,
                jsonrpc_url: stored.jsonrpc_url,
                rest_url: stored.rest_url,
                card,
                registered_at: time(registered_at),
                last_seen: time(last_seen),
                spoken: SpokenOnce::default(),
            }),
        }
    }

    /// The live agent `agent_id`.
    ///
    /// # Errors
    /// [`RegistryError::Database`], [`RegistryError::Corrupt`].
    pub async fn get(&self, agent_id: &str) -> Result<Option<RegisteredAgent>, RegistryError> {
        let cutoff = self.cutoff(self.now_millis());
        self.store
            .get(agent_id, cutoff)
            .await?
            .map(agent)
            .transpose()
    }

    /// The live agents `filter` selects, by id.
    ///
    /// # Errors
    /// [`RegistryError::Database`], [`RegistryError::Corrupt`].
    pub async fn list(&self, filter: &AgentFilter) -> Result<Vec<RegisteredAgent>, RegistryError> {
        let cutoff = self.cutoff(self.now_millis());
        let mut agents = Vec::new();
        for stored in self.store.list(cutoff).await? {
            if filter.limit.is_some_and(|limit| agents.len() >= limit) {
                break;
            }
            let agent = agent(stored)?;
            if record::has_skill_tag(&agent.card, &filter.skill_tags) {
                agents.push(agent);
            }
        }
        Ok(agents)
    }

    /// How many agents are live: the registry-size gauge.
    ///
    /// # Errors
    /// [`RegistryError::Database`].
    pub async fn count(&self) -> Result<usize, RegistryError> {
        let cutoff = self.cutoff(self.now_millis());
        let count = self.store.count(cutoff).await?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// The ids of the live agents: the registry-size gauge, and whose metrics series to keep.
    ///
    /// # Errors
    /// [`RegistryError::Database`].
    pub async fn live_agent_ids(
        &self,
    ) -> Result<std::collections::BTreeSet<String>, RegistryError> {
        let cutoff = self.cutoff(self.now_millis());
        let stored = self.store.list(cutoff).await?;
        Ok(stored.into_iter().map(|agent| agent.agent_id).collect())
    }

    /// Records a heartbeat of a live agent; its new `last_seen`, or `None` when no
    /// live agent has that id (it must register again).
    ///
    /// # Errors
    /// [`RegistryError::Database`].
    pub async fn heartbeat(&self, agent_id: &str) -> Result<Option<DateTime<Utc>>, RegistryError> {
        let now = self.now_millis();
        let touched = self.store.touch(agent_id, now, self.cutoff(now)).await;
        self.cache.forget(agent_id);
        Ok(touched?.map(time))
    }

    /// Removes an agent; false when no live agent had that id. An expired agent
    /// is removed too, but reported as not found.
    ///
    /// # Errors
    /// [`RegistryError::Database`].
    pub async fn deregister(&self, agent_id: &str) -> Result<bool, RegistryError> {
        let cutoff = self.cutoff(self.now_millis());
        self.cache.forget(agent_id);
        let deleted = self.store.delete(agent_id, cutoff).await;
        // A read that began before the delete ended may have put the record back.
        self.cache.forget(agent_id);
        Ok(deleted?)
    }

    /// Deletes the expired agents now, as the periodic cleanup does; how many went.
    ///
    /// # Errors
    /// [`RegistryError::Database`].
    pub async fn expire(&self) -> Result<u64, RegistryError> {
        if self.options.agent_ttl.is_zero() {
            return Ok(0);
        }
        let cutoff = self.cutoff(self.now_millis());
        self.cache.clear();
        Ok(self.store.delete_expired(cutoff).await?)
    }

    /// Whether the database answers (`SELECT 1`), for the gateway's `/readyz`.
    ///
    /// # Errors
    /// [`RegistryError::Database`] when it cannot be reached, or the registry was closed.
    pub async fn ping(&self) -> Result<(), RegistryError> {
        Ok(self.store.ping().await?)
    }

    /// Stops the cleanup and closes the connections, waiting for calls in flight; later
    /// calls fail.
    pub async fn close(&self) {
        self.shutdown.cancel();
        self.store.close().await;
    }

    fn now_millis(&self) -> i64 {
        self.options.clock.now().timestamp_millis()
    }

    fn cutoff(&self, now: i64) -> i64 {
        cutoff(&self.options, now)
    }
}

#[async_trait::async_trait]
impl AgentDirectory for Registry {
    /// [`Registry::get`], through the directory cache.
    async fn find(&self, agent_id: &str) -> Result<Option<Arc<RegisteredAgent>>, DirectoryError> {
        let cutoff = self.cutoff(self.now_millis());
        let held = match self.cache.get(agent_id, cutoff) {
            Cached::Fresh(agent) => return Ok(Some(agent)),
            Cached::Renew(agent) => Some(agent),
            Cached::Missing => None,
        };
        let generation = self.cache.generation();
        let found = match self.get(agent_id).await {
            Ok(found) => found.map(Arc::new),
            // The record held is still within its life: this call goes on with it, and a
            // later one reads again.
            Err(error) if held.is_some() => {
                tracing::warn!(agent_id, error = %error, "cannot read the agent registry; the cached record is used");
                self.cache.renewal_failed(agent_id);
                return Ok(held);
            }
            Err(error) => return Err(DirectoryError(Box::new(error))),
        };
        match &found {
            Some(agent) => self.cache.put(Arc::clone(agent), generation),
            // Gone from the database (expired, or deregistered by another instance).
            None if held.is_some() => self.cache.forget(agent_id),
            None => {}
        }
        Ok(found)
    }
}

/// Agents last seen at or before this instant are expired; `i64::MIN` when nothing
/// expires.
fn cutoff(options: &RegistryOptions, now: i64) -> i64 {
    if options.agent_ttl.is_zero() {
        return i64::MIN;
    }
    // `problem()` checked that the TTL fits in an i64 of milliseconds.
    let ttl = i64::try_from(options.agent_ttl.as_millis()).unwrap_or(i64::MAX);
    now.saturating_sub(ttl)
}

fn time(millis: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(millis).unwrap_or_default()
}

fn agent(stored: StoredAgent) -> Result<RegisteredAgent, RegistryError> {
    let card = serde_json::from_str(&stored.card).map_err(|source| RegistryError::Corrupt {
        agent_id: stored.agent_id.clone(),
        source,
    })?;
    Ok(RegisteredAgent {
        agent_id: stored.agent_id,
        name: stored.name,
        jsonrpc_url: stored.jsonrpc_url,
        rest_url: stored.rest_url,
        card,
        registered_at: time(stored.registered_at),
        last_seen: time(stored.last_seen),
        spoken: SpokenOnce::default(),
    })
}

/// Deletes expired agents every `cleanup_interval` until `shutdown`.
async fn clean_up_periodically(
    store: Store,
    options: RegistryOptions,
    shutdown: CancellationToken,
) {
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(options.cleanup_interval) => {}
        }
        let now = options.clock.now().timestamp_millis();
        match store.delete_expired(cutoff(&options, now)).await {
            Ok(0) => {}
            Ok(deleted) => tracing::debug!(deleted, "expired agents deleted"),
            Err(error) => tracing::warn!(error = %error, "cannot delete expired agents"),
        }
    }
}

/// `url` with its password replaced by `***`, for errors and logs.
fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            if parsed.set_password(Some("***")).is_ok() {
                parsed.to_string()
            } else {
                "<database URL>".to_owned()
            }
        }
        Ok(_) | Err(_) => url.to_owned(),
    }
}
