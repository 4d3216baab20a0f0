//! Agent registry and protocol-aware proxy for a fleet of A2A agents (seed 004): agents
//! register under an id, clients reach each through `/a2a/{agent_id}`.
//!
//! - [`agent`]: the registered agent and the directory the proxy reads.
//! - [`proxy`]: `/a2a/{agent_id}`, forwarded to the registered agent.
//! - [`metrics`]: the Prometheus series at `/metrics`.
//! - [`registry`]: the agent registry behind `/agents` (REG-01…REG-12).

pub mod agent;
pub mod metrics;
pub mod proxy;
pub mod registry;
