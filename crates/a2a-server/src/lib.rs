//! Agent server framework for the A2A v1.0 protocol.
//!
//! Give it an [`AgentCard`](a2a_types::AgentCard) and an [`AgentExecutor`]; it serves the card
//! and every JSON-RPC and HTTP+JSON interface the card names, runs the task lifecycle, and
//! keeps tasks in a [`TaskStore`](store::TaskStore). You keep control of serving: the result
//! is an [`axum::Router`], which also answers the health checks `/healthz` and `/readyz`
//! ([`health`]) and logs one access-log event per request ([`access`]).
//!
//! ```no_run
//! use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
//! use a2a_server::A2aServer;
//! use a2a_types::{AgentCard, AgentInterface, Artifact, ProtocolBinding};
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl AgentExecutor for Echo {
//!     async fn execute(&self, context: RequestContext, updater: TaskUpdater) -> Result<(), ExecutorError> {
//!         updater.working("Echoing…").await?;
//!         updater.add_artifact(Artifact::from_text(context.text())).await?;
//!         updater.complete(()).await?;
//!         Ok(())
//!     }
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let card = AgentCard::new("Echo", "Repeats what it is told.", "1.0.0")
//!     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
//! // Anyone may call: fine on a laptop. See `auth` for API keys, tokens and certificates.
//! let server = A2aServer::builder(card, Echo)
//!     .authentication(a2a_server::auth::Authentication::disabled())
//!     .build()?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! axum::serve(listener, server.router()).await?;
//! # Ok(()) }
//! ```
//!
//! Hooks and executors see the request: [`CallContext::headers`] and
//! [`RequestContext::headers`] carry its headers with the credentials taken out
//! ([`handler::RequestHeaders`]), beside the authenticated caller. An owner taken from a
//! session cookie, and an executor that greets the caller a gateway in front names in
//! `X-KubeMQ-Caller-ID`:
//!
//! ```
//! use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
//! use a2a_server::{A2aServer, CallContext};
//! use a2a_types::{AgentCard, AgentInterface, Artifact, ProtocolBinding};
//!
//! struct Greeter;
//!
//! #[async_trait::async_trait]
//! impl AgentExecutor for Greeter {
//!     async fn execute(&self, context: RequestContext, updater: TaskUpdater) -> Result<(), ExecutorError> {
//!         let caller = context.headers.get("x-kubemq-caller-id").unwrap_or("stranger");
//!         updater
//!             .complete_with_artifacts([Artifact::from_text(format!("Hello, {caller}."))], ())
//!             .await?;
//!         Ok(())
//!     }
//! }
//!
//! # fn verify_session(session: &str) -> Option<String> { Some(format!("user-{session}")) }
//! # fn run() -> Result<(), a2a_server::ConfigError> {
//! let card = AgentCard::new("Greeter", "Says hello.", "1.0.0")
//!     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
//! let server = A2aServer::builder(card, Greeter)
//!     // Sessions are this application's own: the server checks no credential itself.
//!     .authentication(a2a_server::auth::Authentication::disabled())
//!     .owner(|call: &CallContext| call.headers.cookie("session").and_then(verify_session))
//!     .build()?;
//! # let _ = server; Ok(()) }
//! # run().unwrap();
//! ```
//!
//! # Feature flags
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `otel` | yes | W3C trace context (`traceparent`, `tracestate`, `baggage`) read from requests and sent with push deliveries, through OpenTelemetry |
//! | `store-conformance` | no | the store conformance suite, for implementations of `TaskStore` to run |
//!
//! # The a2a crates
//!
//! This crate is part of a2a, the A2A protocol in Rust:
//! [`a2a-types`](https://docs.rs/a2a-types) (the wire model),
//! [`a2a-grpc`](https://docs.rs/a2a-grpc) (the gRPC wire form),
//! [`a2a-signature`](https://docs.rs/a2a-signature) (signed cards),
//! [`a2a-retry`](https://docs.rs/a2a-retry) (retry schedules),
//! [`a2a-store-sql`](https://docs.rs/a2a-store-sql) (SQLite and PostgreSQL stores),
//! [`a2a-client`](https://docs.rs/a2a-client) (the client),
//! [`a2a-run`](https://docs.rs/a2a-run) (agent runs with tools and approvals),
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

pub mod access;
pub mod auth;
mod binding;
mod builder;
pub mod cluster;
pub mod config;
pub mod connections;
pub mod cors;
mod events;
pub mod executor;
pub mod handler;
pub mod health;
pub mod hooks;
pub mod metrics;
mod metrics_page;
mod percent;
pub mod push;
pub mod store;
pub mod tls;
pub mod trace;
mod turn;

pub use self::binding::{BindingKind, Endpoint, WELL_KNOWN_CARD_PATH};
pub use self::builder::{A2aServer, A2aServerBuilder, ConfigError};
pub use self::config::ServerConfig;
pub use self::events::{DEFAULT_QUEUE_CAPACITY, EventBus, EventReceiver, TaskEvent};
pub use self::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
pub use self::handler::{CallContext, RequestHandler};
pub use self::metrics_page::MetricsRender;
