//! Agent server framework for the A2A v1.0 protocol.
//!
//! This crate will hold the executor trait, the task lifecycle, the JSON-RPC and HTTP+JSON
//! bindings on axum, Server-Sent Events streaming, limits, authentication and push
//! notifications. It is not filled yet: see the project's open issues.
