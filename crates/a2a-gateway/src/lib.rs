//! Agent registry and protocol-aware proxy for a fleet of A2A agents.
//!
//! This crate will hold the registry API and the JSON-RPC / HTTP+JSON forwarding that puts
//! many agents behind one address. It is not filled yet: see the project's open issues.
