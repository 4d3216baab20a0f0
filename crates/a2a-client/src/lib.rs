//! Client for any A2A v1.0 agent.
//!
//! This crate will hold agent-card discovery, both HTTP bindings, streaming and credentials.
//! It is not filled yet: see the project's open issues.
