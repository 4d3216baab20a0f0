//! The protocol-aware proxy: clients call `/a2a/{agent_id}` and the gateway forwards to the
//! registered agent, with deadlines, limits and its own errors, as KubeMQ's A2A gateway does.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # async fn run(directory: Arc<dyn a2a_gateway::agent::AgentDirectory>) -> std::io::Result<()> {
//! use a2a_gateway::metrics::Metrics;
//! use a2a_gateway::proxy::{ProxyConfig, router};
//!
//! // The proxy records through the `metrics` facade; install a recorder to see the series.
//! let app = router(directory, ProxyConfig::default(), Arc::new(Metrics::new()));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:9090").await?;
//! axum::serve(listener, app).await
//! # }
//! ```
//!
//! Errors the gateway makes, all at HTTP 200 on the JSON-RPC route, each with an
//! `ErrorInfo` of domain [`GATEWAY_DOMAIN`] and `metadata.executed = "false"`:
//!
//! | condition | code | message |
//! |---|---|---|
//! | body not JSON, or `Content-Type` not `application/json` | -32700 | |
//! | bad envelope, batch, bad `agent_id`, body too large | -32600 | |
//! | agent has no JSON-RPC interface (nor gRPC to translate to); `ListTasks` to an agent that serves only A2A v0.3 | -32601 | |
//! | `params` neither object nor array; params of a call to translate that its version cannot read | -32602 | |
//! | deadline passed (stream: idle too long) | -32001 | `agent timeout: <id>` |
//! | no live agent with the id | -32002 | `agent not found: <id>` |
//! | unreachable; 502/503/504; busy; reply too large | -32003 | `agent unreachable: <id>`, `agent unavailable: 50x`, `server busy: concurrency limit reached`, `agent response too large` |
//! | reply not JSON-RPC, or with another request's id, or with no form in the caller's A2A version | -32004 | `invalid agent response: …` |
//! | bearer token missing or refused | -32010 | `authentication failed: …` |
//! | registry unreadable | -32603 | `internal error` |
//!
//! With [`ProxyConfig::legacy_codes`], the codes of KubeMQ's older gateway instead: busy,
//! too large and unreachable are -32603, a 504 is -32001, and an agent's 500 whose body is
//! not JSON-RPC is -32603 `agent unavailable: 500`. With
//! [`ProxyConfig::auth_failure_status`] set to [`AuthFailureStatus::Unauthorized`], a
//! -32010 is answered at HTTP 401 with `WWW-Authenticate: Bearer`.
//!
//! The agent's own answers, errors included, are relayed untouched, unless the caller and
//! the agent speak different A2A versions: a v0.3 caller (`message/send`, …) reaching an
//! agent whose card offers only v1.0, or a v1.0 caller reaching an agent that offers only
//! v0.3, has its request, the answer and each stream event translated, the agent's errors
//! given the caller's version's codes; the gateway's own errors above keep theirs
//! (`versions`).

mod auth;
mod card;
mod config;
pub(crate) mod cors;
mod envelope;
mod error;
mod grpc;
mod headers;
mod jsonrpc;
mod limits;
mod rest;
mod routes;
pub(crate) mod spoken;
mod state;
pub mod stream;
mod stream_get;
mod trace;
mod upstream;
pub(crate) mod versions;

pub use self::config::{AuthFailureStatus, ProxyConfig};
pub use self::error::GATEWAY_DOMAIN;
pub use self::headers::CALLER_ID_HEADER;
pub use self::routes::router;
