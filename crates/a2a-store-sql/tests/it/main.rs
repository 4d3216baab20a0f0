//! Integration tests of the SQL store, on SQLite files and (when reachable) PostgreSQL.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod cluster;
mod conformance;
mod connect;
mod creates;
mod delivery;
mod events;
mod expiry;
mod locate;
mod push;
mod runs;
mod secrets;
mod support;
mod vacuum;
mod writer;
