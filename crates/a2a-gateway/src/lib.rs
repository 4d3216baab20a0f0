//! Agent registry and protocol-aware proxy for a fleet of A2A agents, modelled on KubeMQ's
//! A2A gateway: agents register under an id, clients reach each through `/a2a/{agent_id}`.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use a2a_gateway::Gateway;
//! use a2a_gateway::proxy::ProxyConfig;
//! use a2a_gateway::registry::{Registry, RegistryOptions};
//!
//! // Agents POST their cards to /agents/register; callers POST JSON-RPC to /a2a/{agent_id}.
//! let registry = Registry::connect("sqlite://gateway.db", RegistryOptions::new()).await?;
//! let gateway = Gateway::new(Arc::new(registry), ProxyConfig::default());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:9090").await?;
//! axum::serve(listener, gateway.router()).await?;
//! # Ok(()) }
//! ```
//!
//! - [`Gateway`]: all of it on one router, as `a2a gateway` serves it.
//! - [`agent`]: the registered agent and the directory the proxy reads.
//! - [`proxy`]: `/a2a/{agent_id}`, forwarded to the registered agent.
//! - [`metrics`]: the series the gateway records through the `metrics` facade; the host
//!   exports them (`a2a gateway` serves Prometheus text at `/metrics`).
//! - [`registry`]: the agent registry behind `/agents`.
//!
//! # Feature flags
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `otel` | yes | W3C trace context read from callers and carried on to agents, through OpenTelemetry |
//!
//! # The a2a crates
//!
//! This crate is part of a2a, the A2A protocol in Rust:
//! [`a2a-types`](https://docs.rs/a2a-types) (the wire model),
//! [`a2a-grpc`](https://docs.rs/a2a-grpc) (the gRPC wire form),
//! [`a2a-signature`](https://docs.rs/a2a-signature) (signed cards),
//! [`a2a-retry`](https://docs.rs/a2a-retry) (retry schedules),
//! [`a2a-server`](https://docs.rs/a2a-server) (the server framework),
//! [`a2a-store-sql`](https://docs.rs/a2a-store-sql) (SQLite and PostgreSQL stores),
//! [`a2a-client`](https://docs.rs/a2a-client) (the client),
//! [`a2a-run`](https://docs.rs/a2a-run) (agent runs with tools and approvals),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

pub mod agent;
mod gateway;
pub mod metrics;
pub mod proxy;
pub mod registry;

pub use self::gateway::Gateway;
