//! Client for any A2A v1.0 agent, over JSON-RPC or HTTP+JSON with streaming over SSE, or
//! over gRPC.
//!
//! Discover an agent from its card (or name a URL and binding), then call one method per A2A
//! operation. Streams survive broken connections; idempotent calls are retried; credentials
//! go only to the agent's own origin. An agent whose card offers only A2A v0.3 is called in
//! v0.3 over JSON-RPC or REST, translated at the edge: callers keep the v1.0 types
//! ([`ProtocolVersion`], [`A2aClientBuilder::protocol_version`] to force one).
//!
//! ```
//! use a2a_client::{A2aClient, ResponseExt, message};
//! use a2a_server::{A2aServer, AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
//! use a2a_types::{AgentCard, AgentInterface, Artifact, ProtocolBinding, TaskState};
//! use futures::TryStreamExt as _;
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl AgentExecutor for Echo {
//!     async fn execute(&self, context: RequestContext, updater: TaskUpdater) -> Result<(), ExecutorError> {
//!         updater.add_artifact(Artifact::from_text(context.text())).await?;
//!         updater.complete(()).await?;
//!         Ok(())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut card = AgentCard::new("Echo", "Repeats what it is told.", "1.0.0")
//!     .with_interface(AgentInterface::new("http://localhost/a2a", ProtocolBinding::JsonRpc));
//! card.capabilities.streaming = Some(true);
//! let server = A2aServer::builder(card.clone(), Echo)
//!     .authentication(a2a_server::auth::Authentication::disabled())
//!     .build()?;
//!
//! // No socket: the client calls the server's router in this process. Over the network it
//! // would be `A2aClient::discover("https://agent.example.com").await?`.
//! let client = A2aClient::in_process(server.router(), &card)?;
//!
//! let answer = client.send_message(message::request("Hello")).await?;
//! assert_eq!(answer.state(), Some(TaskState::Completed));
//!
//! let events = client
//!     .send_streaming_message(message::request("Hello again"))
//!     .await?
//!     .try_collect::<Vec<_>>()
//!     .await?;
//! assert_eq!(events.last().and_then(|event| event.state()), Some(TaskState::Completed));
//! # Ok(()) }
//! ```
//!
//! # Layout
//!
//! * [`A2aClient`] and [`A2aClientBuilder`]: the operations and their settings; per-call
//!   options through [`A2aClient::with_options`] and [`CallOptions`].
//! * [`fetch_agent_card`]: discovery, redirects refused by default; the builder's
//!   [`discover`](A2aClientBuilder::discover) also binds credentials to the card's origin.
//! * [`EventStream`]: stream events, resumed under a [`ResumePolicy`].
//!   [`RawEventStream`]: a stream's SSE bytes as received, for relays;
//!   [`A2aClientBuilder::stream_max_duration`] caps a stream's whole life.
//! * [`SendOperation`] and a default `historyLength`: what
//!   [`A2aClient::send_default`] does and what it asks for, set on the builder and per call.
//! * `executor` (feature `executor`): `?` on a [`ClientError`] in an `a2a-server` executor
//!   fails the task; another agent's A2A error is never passed on as the server's own.
//! * [`Credentials`]: API keys, bearer tokens, OAuth 2.0 client credentials.
//! * [`ClientError`]: the agent's A2A errors apart from transport failures, with
//!   [`is_retryable`](ClientError::is_retryable).
//! * [`transport`]: the network ([`HttpTransport`](transport::HttpTransport)) or an in-process
//!   tower service ([`InProcessTransport`](transport::InProcessTransport)) for the HTTP
//!   bindings; a gRPC interface is reached over a tonic channel the builder makes, with the
//!   same TLS settings ([`A2aClientBuilder::grpc_plaintext`] for h2c to a bare `host:port`).
//! * [`message`]: small constructors for user messages.
//! * [`push`]: checking signed push deliveries at a webhook
//!   ([`PushVerifier`](push::PushVerifier)).
//!
//! # Feature flags
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `otel` | yes | W3C trace context of the current `tracing` span sent on every call, through OpenTelemetry |
//! | `executor` | no | `?` on a `ClientError` inside an `a2a-server` executor: another agent's error fails the task |
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
//! [`a2a-run`](https://docs.rs/a2a-run) (agent runs with tools and approvals),
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

mod auth;
mod binding;
mod builder;
mod card_signature;
mod client;
mod discover;
mod error;
mod exchange;
#[cfg(feature = "executor")]
pub mod executor;
mod http_url;
pub mod message;
mod options;
pub mod push;
mod response;
mod sse;
mod stream;
mod trace;
pub mod transport;
mod version;

pub use self::auth::{ApiKeyPlacement, Credentials, OAuth2ClientCredentials, RequestAuth, Secret};
pub use self::builder::{A2aClientBuilder, DEFAULT_MAX_PAYLOAD_SIZE, DEFAULT_STREAM_MAX_DURATION};
pub use self::card_signature::{CardVerifier, SignatureChecks};
pub use self::client::A2aClient;
pub use self::discover::{
    CardFetchOptions, WELL_KNOWN_CARD_PATH, card_url, fetch_agent_card, fetch_agent_card_signatures,
};
pub use self::error::{BoxError, ClientError, TimeoutKind};
pub use self::options::{
    CallOptions, ResumePolicy, RetryPolicy, SendOperation, Timeouts, UnknownOperation,
};
pub use self::response::{ResponseExt, ResponseKind};
pub use self::stream::{EventStream, RawEventStream};
pub use self::version::ProtocolVersion;
