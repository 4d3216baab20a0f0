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
