//! Durable task, push-configuration and event stores for A2A agent servers, on sqlx.
//!
//! This crate will hold the SQLite (embedded, the default of `a2a serve`) and PostgreSQL
//! backends. It is not filled yet: see the project's open issues.
