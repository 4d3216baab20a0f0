//! [`ServerConfig`]: the behaviour switches of a server, each with the spec's behaviour as its
//! default and the behaviour of other implementations (Apache Camel's A2A component, a2a-java,
//! a TS SDK's A2A module) available as a named option where it differs.

use std::time::Duration;

use a2a_types::error::RestStatusProfile;

/// The largest request body read by default: 6 MiB (Apache Camel's `maxPayloadSize`).
pub const DEFAULT_MAX_BODY_BYTES: usize = 6 * 1024 * 1024;

/// How many events a subscriber may fall behind before it is told it lagged (events are
/// never dropped silently).
pub const DEFAULT_QUEUE_CAPACITY: usize = 1000;

/// How long the public card may be cached by default (`Cache-Control: max-age=3600`).
pub const DEFAULT_CARD_MAX_AGE: Duration = Duration::from_secs(3600);

/// How long a blocking `SendMessage` waits for its turn by default (a2a-java's 30 s).
pub const DEFAULT_BLOCKING_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a blocking answer past its limit waits for the turn's first event by default.
pub const DEFAULT_EVENT_CONSUMPTION_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a blocking answer past its limit may take to read the task back by default.
pub const DEFAULT_STORE_RECONCILIATION_TIMEOUT: Duration = Duration::from_secs(1);

/// How many push configs one task may hold by default.
pub const DEFAULT_MAX_PUSH_CONFIGS_PER_TASK: usize = 100;

/// How the server behaves where the sources disagree, and its timeouts.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerConfig {
    /// HTTP statuses of A2A errors on HTTP+JSON. Default: the spec's table (§7.1).
    pub rest_status_profile: RestStatusProfile,
    /// Version assumed when a request carries no `A2A-Version`. Default `None`: the
    /// spec's reading, 0.3, which a 1.0 server refuses with VersionNotSupported.
    pub assume_version_when_absent: Option<String>,
    /// Cancel of a CANCELED task returns it unchanged instead of TaskNotCancelable.
    pub idempotent_cancel: bool,
    /// A missing `messageId` is generated instead of refused.
    pub lenient_message_id: bool,
    /// Requested extensions the card does not declare are refused with
    /// ExtensionSupportRequired instead of ignored.
    pub strict_extensions: bool,
    /// `SubscribeToTask` ends where the task's turn does (at INPUT_REQUIRED, or at once for
    /// a task waiting for input) instead of staying open until the task is terminal.
    pub subscribe_ends_on_interrupt: bool,
    /// `SendMessage` answers at the first update when the request says nothing.
    pub default_return_immediately: bool,
    /// Work still running after this long fails. Default 300 s.
    pub async_timeout: Duration,
    /// How long a blocking `SendMessage` waits for its turn to finish or be interrupted
    /// (a2a-java's agent timeout of a blocking call); then it answers with the task as it
    /// stands and the turn goes on, for the client to get or subscribe to. Default 30 s, as
    /// a2a-java: a blocking call is bounded, so a slow agent cannot hold a client (and its
    /// connection) for the whole `async_timeout`. `Duration::ZERO` waits as long as the turn
    /// runs, the protocol's reading of a blocking call (it answers only once the task is
    /// terminal or interrupted).
    pub blocking_timeout: Duration,
    /// Once `blocking_timeout` has passed, how long the answer waits for the turn's first
    /// event (the task as it stands) before it is given without one (a2a-java's consumption
    /// timeout). Default 5 s.
    pub event_consumption_timeout: Duration,
    /// Once `blocking_timeout` has passed, how long reading the task back from the store may
    /// take, so the answer is the task as stored (a2a-java's store reconciliation); a store
    /// slower than this is skipped and the answer is the task as the turn last saw it.
    /// Default 1 s.
    pub store_reconciliation_timeout: Duration,
    /// Fails tasks stuck in SUBMITTED or WORKING (`stuckTaskTtlMs`): a task whose status has
    /// not changed for longer than this, and whose turn does not run in this process, is
    /// failed through the engine with a status message saying so, so its event is logged and
    /// its subscribers and push receivers are told as of any other change. The server looks
    /// on a timer, every tenth of the TTL (at least every 10 ms, at most every minute), at
    /// up to 1000 tasks a pass. Default `Duration::ZERO`: off.
    ///
    /// Only a store that answers [`TaskStore::stuck_tasks`](crate::store::TaskStore::stuck_tasks)
    /// has tasks swept: the in-memory store does; SQL stores, which several instances may
    /// share, do not (a task there may run on another instance, and a turn lost with its
    /// instance is recovered through its lease instead, see [`crate::cluster`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// use a2a_server::config::ServerConfig;
    ///
    /// let mut config = ServerConfig::default();
    /// config.stuck_task_ttl = Duration::from_secs(10 * 60);
    /// # assert!(ServerConfig::default().stuck_task_ttl.is_zero());
    /// ```
    pub stuck_task_ttl: Duration,
    /// Load tasks named in `referenceTaskIds` into the request context.
    pub populate_referenced_tasks: bool,
    /// The largest request body accepted (`maxPayloadSize`); larger ones are refused with
    /// PayloadTooLarge. Default 6 MiB.
    pub max_payload_size: usize,
    /// A `: keep-alive` comment is sent on idle SSE streams this often (`sseHeartbeatInterval`).
    pub sse_keepalive: Duration,
    /// How many events one stream may fall behind before it is closed with an error frame
    /// instead of events being dropped (`sseQueueCapacity`).
    pub sse_queue_capacity: usize,
    /// At most this many turns run at once; 0 means unlimited (`maxConcurrentTasks`).
    pub max_concurrent_tasks: usize,
    /// How many `returnImmediately` requests may wait as SUBMITTED for a free slot when all
    /// are taken; other requests are refused with ServerBusy (`taskQueueSize`).
    pub task_queue_size: usize,
    /// Cross-origin requests from browsers; off (`None`) by default.
    pub cors: Option<crate::cors::CorsConfig>,
    /// Key that signs `ListTasks` page tokens. When `None`, the key the store shares among
    /// every server over it (SQL stores keep one in the database, so a token pages on any
    /// instance and after a restart), else a random key per process.
    pub page_token_key: Option<Vec<u8>>,
    /// What a caller is told about a task of the same tenant owned by someone else.
    /// Default [`CrossOwner::NotFound`]: the spec's reading (§7.2), which reveals nothing.
    pub cross_owner: CrossOwner,
    /// Push delivery: webhook policy, retries, timeouts.
    pub push: PushOptions,
    /// The protocol versions served. Default: 1.0 and 0.3 (0.3 on the same URLs, told apart
    /// by method name or REST path).
    pub protocol_versions: ProtocolVersions,
    /// How long clients and proxies may keep the public card: its `Cache-Control: max-age`,
    /// in whole seconds. Default 3600 s.
    pub card_max_age: Duration,
}

/// Which A2A protocol versions a server answers. 1.0 is always served; A2A v0.3 beside it
/// is on by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProtocolVersions {
    /// Answer A2A v0.3 requests (JSON-RPC method names such as `message/send`, REST paths
    /// under `/v1/`) in v0.3 shapes, and list v0.3 interfaces on the card.
    pub v0_3: bool,
}

impl ProtocolVersions {
    /// 1.0 and 0.3.
    pub const BOTH: Self = Self { v0_3: true };
    /// 1.0 only.
    pub const V1_ONLY: Self = Self { v0_3: false };

    /// Reads a list such as `1.0,0.3` (or `1.0`). 1.0 must be in it: it is always served.
    ///
    /// # Errors
    /// A message naming a version this server does not speak, or a list without 1.0.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut versions = Self { v0_3: false };
        let mut v1 = false;
        for version in list
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            match version {
                "1.0" | "1" => v1 = true,
                "0.3" => versions.v0_3 = true,
                other => {
                    return Err(format!(
                        "unknown protocol version {other:?}: this server speaks 1.0 and 0.3"
                    ));
                }
            }
        }
        if !v1 {
            return Err("the protocol versions must include 1.0".to_owned());
        }
        Ok(versions)
    }
}

impl Default for ProtocolVersions {
    fn default() -> Self {
        Self::BOTH
    }
}

/// How push notifications are delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushOptions {
    /// Allow loopback webhooks and plain `http://` to them (`allowLocalWebhookUrls`):
    /// for development and conformance runs only; the server logs a warning. Default false.
    pub allow_local_webhooks: bool,
    /// Retries after a failed attempt (5xx, 408, 429, timeout, I/O error) before the event
    /// is given up for that webhook (`pushRetryAttempts`). Default 3.
    pub retry_attempts: u32,
    /// The first retry's delay; each next one doubles, with jitter (`pushRetryBackoffMs`).
    /// Default 1 s.
    pub retry_backoff: Duration,
    /// One attempt's time limit, connecting included. Default 10 s.
    pub timeout: Duration,
    /// The most configs one task may hold; more are InvalidParams. Default 100.
    pub max_configs_per_task: usize,
    /// How often the dispatcher looks for due retries and other instances' events when
    /// nothing woke it. Default 1 s.
    pub poll_interval: Duration,
    /// How long a claim on a webhook lasts without progress before another instance may
    /// take it over. Default 60 s.
    pub claim_ttl: Duration,
    /// Webhooks worked at once by this instance. Default 64.
    pub max_in_flight: usize,
}

impl Default for PushOptions {
    fn default() -> Self {
        Self {
            allow_local_webhooks: false,
            retry_attempts: 3,
            retry_backoff: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
            max_configs_per_task: DEFAULT_MAX_PUSH_CONFIGS_PER_TASK,
            poll_interval: Duration::from_secs(1),
            claim_ttl: Duration::from_secs(60),
            max_in_flight: 64,
        }
    }
}

/// The answer to a caller naming another caller's task.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CrossOwner {
    /// TaskNotFound, exactly as for a task that does not exist.
    #[default]
    NotFound,
    /// 403 / AUTHORIZATION (Apache Camel's AuthorizationError): says the task exists. Needs a
    /// store that implements `TaskStore::locate`.
    Forbidden,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            rest_status_profile: RestStatusProfile::Spec,
            assume_version_when_absent: None,
            idempotent_cancel: false,
            lenient_message_id: false,
            strict_extensions: false,
            subscribe_ends_on_interrupt: false,
            default_return_immediately: false,
            async_timeout: Duration::from_secs(300),
            blocking_timeout: DEFAULT_BLOCKING_TIMEOUT,
            event_consumption_timeout: DEFAULT_EVENT_CONSUMPTION_TIMEOUT,
            store_reconciliation_timeout: DEFAULT_STORE_RECONCILIATION_TIMEOUT,
            stuck_task_ttl: Duration::ZERO,
            populate_referenced_tasks: true,
            max_payload_size: DEFAULT_MAX_BODY_BYTES,
            sse_keepalive: Duration::from_secs(15),
            sse_queue_capacity: DEFAULT_QUEUE_CAPACITY,
            max_concurrent_tasks: 0,
            task_queue_size: 0,
            cors: None,
            page_token_key: None,
            cross_owner: CrossOwner::NotFound,
            push: PushOptions::default(),
            protocol_versions: ProtocolVersions::BOTH,
            card_max_age: DEFAULT_CARD_MAX_AGE,
        }
    }
}
