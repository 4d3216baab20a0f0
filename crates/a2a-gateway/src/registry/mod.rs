//! The agent registry, with KubeMQ's HTTP API: which agents are registered under which id,
//! and for how long.
//!
//! Agents register a card under an id, heartbeat to stay live (they expire one TTL after the
//! last) and deregister when they stop; the proxy finds live agents through the
//! [`AgentDirectory`](crate::agent::AgentDirectory) that [`Registry`] implements.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use std::time::Duration;
//! use a2a_gateway::registry::{Registry, RegistryOptions, router};
//!
//! let options = RegistryOptions::new().agent_ttl(Duration::from_secs(300));
//! let registry = Arc::new(Registry::connect("sqlite://registry.db", options).await?);
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:9090").await?;
//! axum::serve(listener, router(registry)).await?;
//! # Ok(()) }
//! ```
//!
//! # Register bodies
//!
//! `POST /agents/register` (and [`Registry::register`]) takes any of three shapes:
//!
//! 1. **A KubeMQ record**, the seed's shape: `{"agent_id", "name", "url", "description"?,
//!    "version"?, "skills"?, "defaultInputModes"?, "defaultOutputModes"?,
//!    "protocolVersions"?, …}`. It is recognised by having no `supportedInterfaces`; `url`
//!    is where JSON-RPC calls go. Members the registry does not know are kept, and the
//!    record shows defaults for the optional members it lacks (empty `description`,
//!    `version` and `skills`, `text` modes, protocol `1.0`).
//! 2. **An A2A v1.0 agent card with `agent_id` beside its members**: the card's own
//!    members plus `"agent_id": "…"` at the top level.
//! 3. **An envelope**: `{"agent_id": "…", "card": {…}}`, the card exactly as the agent
//!    serves (and perhaps signed) it.
//!
//! In every shape `agent_id`, `registered_at` and `last_seen` are registration members,
//! not card members: they are taken out of the stored card
//! ([`RegisteredAgent::card`](crate::agent::RegisteredAgent::card)), and client-supplied
//! `registered_at` and `last_seen` are ignored. What remains is the card that
//! signatures cover ([`SignaturePolicy`]).
//!
//! Required: an `agent_id` of lowercase letters, digits and hyphens, at least two characters
//! ([`validate_agent_id`]), a non-empty `name`,
//! and somewhere to call: a KubeMQ record's absolute http(s) `url`; for a v1.0 card, a
//! `JSONRPC` or `HTTP+JSON` interface (every such interface URL must be absolute http(s)).
//! The JSON-RPC URL of a v1.0 card is its first `JSONRPC` interface of protocol version
//! 1.x, else its first `JSONRPC` interface, else its v0.3 top-level `url`; the REST URL is
//! chosen the same way among `HTTP+JSON` interfaces.
//!
//! # Layout
//!
//! - `lifecycle`: [`Registry`], its operations, and the [`AgentDirectory`] impl.
//! - `options`: [`RegistryOptions`] and the [`Clock`] expiry reads.
//! - `cache`: the records the proxy found lately, reused for up to a second.
//! - `record`: the register body shapes accepted, and the enriched record returned.
//! - `validate`: the id and URL checks.
//! - `signature`: [`SignaturePolicy`], how signed cards are checked (spec §11.5).
//! - `store`: the SQLite and PostgreSQL tables.
//! - `routes`: the HTTP API, [`router`].
//! - `error`: [`RegistryError`].
//!
//! [`AgentDirectory`]: crate::agent::AgentDirectory

mod cache;
mod error;
mod lifecycle;
mod options;
mod record;
mod routes;
mod signature;
mod store;
mod validate;

pub use self::error::RegistryError;
pub use self::lifecycle::{AgentFilter, Registry};
pub use self::options::{Clock, RegistryOptions, SystemClock};
pub use self::record::{RecordError, enriched};
pub use self::routes::router;
pub use self::signature::{SignatureError, SignaturePolicy};
pub use self::validate::{AgentIdError, validate_agent_id};
pub use a2a_signature::signed_payload;
