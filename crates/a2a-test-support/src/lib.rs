//! What the workspace's test suites share, so each lives once: the PostgreSQL test database
//! and the official Python and JS SDKs (each reached, or skipped with a notice, the same way
//! everywhere, and their driver scripts run the same way), a private certificate authority
//! for the TLS tests, a TCP proxy that makes a database link fail on cue, and an SSE reader. A
//! dev-dependency only; nothing here ships.
//!
//! ```no_run
//! # async fn run() {
//! let Some(url) = a2a_test_support::postgres::reachable().await else {
//!     return; // no PostgreSQL here, and not in CI: skipped with a notice
//! };
//! # let _ = url;
//! # }
//! ```

mod ci;
pub mod driver;
pub mod fault_proxy;
pub mod fixtures;
pub mod gateway_seed;
pub mod js;
pub mod mcp;
pub mod model;
pub mod postgres;
pub mod python;
pub mod sse;
pub mod tls;

pub use ci::is_ci;
