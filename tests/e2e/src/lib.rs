//! End-to-end test support: agent servers on real sockets, each on a runtime of its own so a
//! test can kill one abruptly, over a real PostgreSQL database.
//!
//! ```no_run
//! # async fn run() {
//! let Some(database) = a2a_e2e::Postgres::schema_for_test().await else {
//!     return; // no PostgreSQL here, and not in CI: skipped with a notice
//! };
//! let agent = a2a_e2e::GatedAgent::default();
//! let a = a2a_e2e::Instance::start(&database, "a", agent.clone());
//! let task = a.call("SendMessage", a2a_e2e::send("hello", None)).await;
//! # let _ = task;
//! # }
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::missing_panics_doc)]

mod agent;
mod card;
mod cluster;
mod eventually;
mod instance;
mod message;
mod postgres;
mod sse;

pub use agent::GatedAgent;
pub use card::card;
pub use cluster::Cluster;
pub use eventually::eventually;
pub use instance::Instance;
pub use message::send;
pub use postgres::{LEASE_TTL, Postgres};
pub use sse::{Event, Sse};
