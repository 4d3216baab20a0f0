//! The PostgreSQL test database: `A2A_TEST_POSTGRES_URL`, else the local one.
//!
//! A test that needs it asks [`reachable`]. Where no server answers, the test prints a
//! notice and passes, so `cargo test` works on a machine without PostgreSQL; under
//! `CI=true` it fails instead, because CI must always run against the real server.

use std::time::Duration;

use sqlx::{Connection as _, PgConnection};

use crate::is_ci;

/// Where the test database is unless `A2A_TEST_POSTGRES_URL` says otherwise.
pub const DEFAULT_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// How long to wait for the server to answer.
const CONNECT_LIMIT: Duration = Duration::from_secs(10);

/// The test database's URL, whether or not it answers.
#[must_use]
pub fn url() -> String {
    std::env::var("A2A_TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_URL.to_owned())
}

/// The test database's URL when a server answers there; otherwise `None`, after a notice on
/// stderr saying the test is skipped.
///
/// # Panics
/// When no server answers and [`is_ci`]: CI must run every PostgreSQL test.
pub async fn reachable() -> Option<String> {
    let url = url();
    let why = match tokio::time::timeout(CONNECT_LIMIT, PgConnection::connect(&url)).await {
        Ok(Ok(connection)) => {
            let _ = connection.close().await;
            return Some(url);
        }
        Ok(Err(error)) => error.to_string(),
        Err(_) => format!("no answer within {} s", CONNECT_LIMIT.as_secs()),
    };
    assert!(
        !is_ci(),
        "PostgreSQL at {url} is unreachable ({why}); CI=true needs it"
    );
    eprintln!(
        "NOTICE: skipping a PostgreSQL test: {url} is unreachable ({why}); \
         set A2A_TEST_POSTGRES_URL to run it"
    );
    None
}
