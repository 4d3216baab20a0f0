//! A2A agents as MCP tools: an MCP server, over stdio or streamable HTTP, whose tools send
//! messages to A2A agents (one tool per agent, or per skill) and read or cancel their tasks.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use a2a_mcp::{Bridge, Connector, GatewayWatcher, Target};
//!
//! // Every agent of a gateway's registry, kept current: hosts are told when tools change.
//! let gateway = GatewayWatcher::new("http://localhost:9090")?;
//! let bridge = Bridge::builder(Connector::default())
//!     .build(gateway.targets().await?)
//!     .await;
//! tokio::spawn(gateway.watch(bridge.clone(), Default::default()));
//! a2a_mcp::serve_stdio(bridge).await?;
//! # Ok(()) }
//! ```
//!
//! # Layout
//!
//! - `agent`: where each agent is ([`Target`]) and the client that reaches it ([`Connector`]).
//! - `credentials`: per-agent credentials, from flags or a TOML file ([`CredentialsFile`]).
//! - `catalogue`: the tools: names sanitised and unique, descriptions from card and skills.
//! - `arguments`: a send tool's arguments read into an A2A message.
//! - `call`: the call of one send tool: streamed or polled, progress, elicitation, cancel.
//! - `results`: A2A answers as tool results (content, and task id and state as structured
//!   content).
//! - `directory`: the agents offered, their catalogue, and the hosts told when it changes.
//! - `server`: the rmcp handler, [`Bridge`].
//! - `gateway`: the registry watcher, [`GatewayWatcher`].
//! - `transport`: stdio and streamable HTTP.
//! - `host_config`: the JSON blocks hosts are configured with.
//!
//! # Feature flags
//!
//! None: everything is always built.
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
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

mod agent;
mod arguments;
mod call;
mod catalogue;
pub mod credentials;
mod directory;
mod gateway;
pub mod host_config;
mod results;
mod server;
mod transport;

pub use self::agent::{Agent, ConnectError, Connector, Target};
pub use self::credentials::{AgentCredentials, CredentialsFile, OAuthCredentials, Secret};
pub use self::gateway::{DEFAULT_POLL_INTERVAL, GatewayError, GatewayWatcher};
pub use self::server::{Bridge, BridgeBuilder, DEFAULT_PATIENCE};
pub use self::transport::{HttpService, ServeError, http_service, serve_stdio};
pub use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
