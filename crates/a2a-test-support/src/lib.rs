//! What the workspace's test suites share, so each lives once: the PostgreSQL test database
//! (reached or skipped the same way everywhere) and a private certificate authority for the
//! TLS tests. A dev-dependency only; nothing here ships.
//!
//! ```no_run
//! # async fn run() {
//! let Some(url) = a2a_test_support::postgres::reachable().await else {
//!     return; // no PostgreSQL here, and not in CI: skipped with a notice
//! };
//! # let _ = url;
//! # }
//! ```

pub mod postgres;
pub mod tls;
