//! [`RegistryOptions`], the settings of a [`Registry`](super::Registry); [`Clock`], the
//! time it reads.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::signature::SignaturePolicy;

/// Where a registry reads the time: expiry compares `last_seen` with it.
pub trait Clock: Send + Sync + fmt::Debug + 'static {
    /// Now. Must not go backwards by much: an agent's `last_seen` never does.
    fn now(&self) -> DateTime<Utc>;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// Settings of a [`Registry`](super::Registry); every one has a default.
///
/// ```
/// use std::time::Duration;
/// use a2a_gateway::registry::RegistryOptions;
///
/// let options = RegistryOptions::new()
///     .agent_ttl(Duration::from_secs(120))
///     .max_agents(1000);
/// # let _ = options;
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct RegistryOptions {
    pub(crate) agent_ttl: Duration,
    pub(crate) max_agents: usize,
    pub(crate) cleanup_interval: Duration,
    pub(crate) max_connections: u32,
    pub(crate) acquire_timeout: Duration,
    pub(crate) postgres_schema: Option<String>,
    pub(crate) signatures: SignaturePolicy,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) directory_cache: Duration,
}

impl Default for RegistryOptions {
    fn default() -> Self {
        Self {
            agent_ttl: Duration::from_secs(300),
            max_agents: 0,
            cleanup_interval: Duration::from_secs(60),
            max_connections: 10,
            acquire_timeout: Duration::from_secs(10),
            postgres_schema: None,
            signatures: SignaturePolicy::default(),
            clock: Arc::new(SystemClock),
            directory_cache: Duration::from_secs(1),
        }
    }
}

impl RegistryOptions {
    /// The defaults: agents expire 300 s after their last registration or heartbeat, no
    /// limit on their number, a cleanup pass every minute, at most 10 PostgreSQL
    /// connections, a 10 s connect and acquire timeout, PostgreSQL's default schema, the
    /// default [`SignaturePolicy`], the system clock, a 1 s directory cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// How long an agent stays registered without a heartbeat (KubeMQ's `AgentTTLSeconds`,
    /// default 300 s). `Duration::ZERO`: agents never expire.
    ///
    /// Expiry is decided when the registry is read, by comparing `last_seen` with the
    /// clock, so an expired agent is gone at once; the periodic cleanup only frees the
    /// rows. Instances sharing a PostgreSQL database should use the same TTL.
    pub fn agent_ttl(mut self, ttl: Duration) -> Self {
        self.agent_ttl = ttl;
        self
    }

    /// The most live agents the registry holds (KubeMQ's `MaxAgents`, default 0 = no
    /// limit). Registering one more is refused with 409; re-registering a live agent is
    /// always allowed.
    pub fn max_agents(mut self, max: usize) -> Self {
        self.max_agents = max;
        self
    }

    /// How often expired agents are deleted (default 60 s). `Duration::ZERO`: never by
    /// itself, only by [`Registry::expire`](super::Registry::expire).
    pub fn cleanup_interval(mut self, interval: Duration) -> Self {
        self.cleanup_interval = interval;
        self
    }

    /// The most PostgreSQL connections the pool opens (default 10). SQLite uses one.
    pub fn max_connections(mut self, max: u32) -> Self {
        self.max_connections = max;
        self
    }

    /// How long `connect` waits for the database, and a call for a free connection
    /// (default 10 s).
    pub fn acquire_timeout(mut self, timeout: Duration) -> Self {
        self.acquire_timeout = timeout;
        self
    }

    /// The PostgreSQL schema of the registry's tables, created when missing (default: the
    /// connection's `search_path`). 1 to 63 ASCII letters, digits or `_`, not starting with
    /// a digit.
    pub fn postgres_schema(mut self, schema: impl Into<String>) -> Self {
        self.postgres_schema = Some(schema.into());
        self
    }

    /// How registered cards' signatures are checked (default [`SignaturePolicy::new`]).
    pub fn signatures(mut self, policy: SignaturePolicy) -> Self {
        self.signatures = policy;
        self
    }

    /// The clock expiry reads (default [`SystemClock`]); tests move time with their own.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// How long the proxy may reuse an agent's record before reading the database again
    /// (default 1 s; `Duration::ZERO` reads it for every call). Registrations, heartbeats
    /// and deregistrations made through this registry take effect at once, and expiry is
    /// always checked against the clock; the cache only delays what *other* gateway
    /// instances sharing the database change (a deregistration there, a new card), by at
    /// most this long. It spares each call a database round trip: the gateway's added
    /// latency and throughput depend on it (bench/gateway.sh). Past half its life, a
    /// record in use is read again by one call while the others go on with it, so the
    /// calls to a busy agent do not all wait for the database when it lapses.
    pub fn directory_cache(mut self, life: Duration) -> Self {
        self.directory_cache = life;
        self
    }

    /// The settings that cannot work, as a sentence.
    pub(crate) fn problem(&self) -> Option<String> {
        if let Some(schema) = &self.postgres_schema
            && !a2a_store_sql::is_plain_schema_name(schema)
        {
            return Some(format!(
                "postgres schema {schema:?} must be 1 to 63 ASCII letters, digits or `_`, \
                 not starting with a digit"
            ));
        }
        if i64::try_from(self.agent_ttl.as_millis()).is_err() {
            return Some("agent_ttl is too long".to_owned());
        }
        None
    }
}
