//! Resumable agent runs behind A2A: a model-and-tools loop as an
//! [`AgentExecutor`](a2a_server::AgentExecutor), whose tool calls can wait for a person's
//! approval or for the client to run a tool, across turns, restarts and instances.
//!
//! - [`run`]: the saved state of a run.
//! - [`model`]: the [`Model`](model::Model) trait the engine calls.
//! - [`tools`]: where tools come from ([`ToolSource`](tools::ToolSource)).
//! - [`policy`]: which tools run, need approval, or are refused.
//! - [`store`]: the [`RunStore`](store::RunStore) trait and the in-memory store.

pub mod model;
pub mod policy;
pub mod run;
pub mod store;
pub mod tools;
