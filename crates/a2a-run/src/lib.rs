//! Resumable agent runs behind A2A: a model-and-tools loop as an
//! [`AgentExecutor`](a2a_server::AgentExecutor), whose tool calls can wait for a person's
//! approval or for the client to run a tool, across turns, restarts and instances.
//!
//! - [`RunAgent`]: the executor; one run per task.
//! - [`run`]: the saved state of a run.
//! - [`model`]: the [`Model`](model::Model) trait the engine calls.
//! - `openai` (feature `openai`): the OpenAI-compatible chat-completions model.
//! - [`tools`]: where tools come from ([`ToolSource`](tools::ToolSource)).
//! - `mcp` (feature `mcp`): the tools of an MCP server, over stdio or streamable HTTP.
//! - [`policy`]: which tools run, need approval, or are refused.
//! - [`approval`]: signed approval requests.
//! - [`store`]: the [`RunStore`](store::RunStore) trait and the in-memory store.
//!
//! ```
//! use std::sync::Arc;
//! use a2a_run::RunAgent;
//! use a2a_run::openai::OpenAiModel;
//! use a2a_run::policy::{Decision, ToolPolicy};
//! use a2a_run::store::InMemoryRunStore;
//!
//! // Writing tools wait for a person's approval; deleting ones are never called.
//! let policy = ToolPolicy::allow_all().ask("write_*")?.deny("delete_*")?;
//! assert_eq!(policy.decide("write_file"), Decision::Ask);
//! assert_eq!(policy.decide("delete_file"), Decision::Deny);
//! assert_eq!(policy.decide("read_file"), Decision::Allow);
//!
//! let model = OpenAiModel::new("http://127.0.0.1:11434/v1", "llama3.1");
//! let agent = RunAgent::builder(Arc::new(model), Arc::new(InMemoryRunStore::new()))
//!     .system("You answer questions about files.")
//!     .policy(policy)
//!     .build();
//! // An `AgentExecutor`: serve it with `a2a_server::A2aServer::builder(card, agent)`.
//! # let _ = agent;
//! # Ok::<(), a2a_run::policy::PatternError>(())
//! ```
//!
//! # Feature flags
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `openai` | yes | the OpenAI-compatible chat-completions model (OpenAI, vLLM, Ollama, llama.cpp server) |
//! | `mcp` | yes | tools from MCP servers, over stdio or streamable HTTP |
//! | `store-conformance` | no | the conformance suite every run store must pass |
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
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

mod agent;
mod answers;
pub mod approval;
mod engine;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;
#[cfg(feature = "openai")]
pub mod openai;
pub mod policy;
mod reconcile;
pub mod run;
pub mod store;
pub mod tools;

pub use self::agent::{
    CLIENT_TOOLS_KEY, DRAFT_METADATA_KEY, Failure, Limits, OUTPUT_ARTIFACT_ID, OutputKind,
    RunAgent, RunAgentBuilder,
};
pub use self::answers::{ACTIONS_KEY, APPROVALS_KEY, RECONCILED_KEY, RESULTS_KEY};
