//! The PostgreSQL test database: `A2A_TEST_POSTGRES_URL`, else the local one.
//!
//! A test that needs it asks [`reachable`]. Where no server answers, the test prints a
//! notice and passes, so `cargo test` works on a machine without PostgreSQL; under
//! `CI=true` it fails instead, because CI must always run against the real server. A test
//! that wants a schema of its own, dropped when it ends, takes a [`Schema`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::{Connection as _, PgConnection};

use crate::ci::is_ci;

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

/// A schema of one test's own in the test database, named but not created: the code under
/// test creates it. [`Schema::finish`] drops it; a test that panics before then has it
/// dropped by `Drop`.
#[derive(Debug)]
pub struct Schema {
    url: String,
    name: String,
}

impl Schema {
    /// A fresh schema name starting with `prefix`, in the test database; `None` (after a
    /// notice) when the database is unreachable outside CI, as [`reachable`] says.
    pub async fn reachable(prefix: &str) -> Option<Self> {
        let url = reachable().await?;
        Some(Self {
            url,
            name: unique_name(prefix),
        })
    }

    /// The database URL.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The schema's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A connection to the database with this schema as its search path.
    ///
    /// # Panics
    /// When the database does not answer.
    pub async fn connect(&self) -> PgConnection {
        let mut conn = PgConnection::connect(&self.url)
            .await
            .unwrap_or_else(|error| panic!("connecting to {}: {error}", self.url));
        let search_path = format!("SET search_path TO \"{}\"", self.name);
        if let Err(error) = sqlx::raw_sql(&search_path).execute(&mut conn).await {
            panic!("{search_path}: {error}");
        }
        conn
    }

    /// Drops the schema; whatever connects to it should be closed first.
    ///
    /// # Panics
    /// When the schema cannot be dropped.
    pub async fn finish(mut self) {
        if let Err(error) = drop_schema(&self.url, &self.name).await {
            panic!("could not drop test schema {}: {error}", self.name);
        }
        // Done: nothing left for `Drop`.
        self.name.clear();
    }
}

/// The fallback for a test that did not get to [`Schema::finish`] (it panicked).
impl Drop for Schema {
    fn drop(&mut self) {
        if self.name.is_empty() {
            return;
        }
        let (url, name) = (self.url.clone(), self.name.clone());
        // A runtime of its own on a thread of its own: Drop cannot await, and the test's
        // runtime may be the single-threaded kind. The lock timeout bounds the wait for
        // connections that the blocked runtime cannot close.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime
                .block_on(drop_schema(&url, &name))
                .map_err(std::io::Error::other)
        })
        .join();
        if let Ok(Err(error)) = dropped {
            eprintln!("could not drop a test schema: {error}");
        }
    }
}

async fn drop_schema(url: &str, schema: &str) -> Result<(), sqlx::Error> {
    let mut conn = PgConnection::connect(url).await?;
    // A store dropped a moment ago may still be rolling back a transaction on its way out.
    sqlx::raw_sql("SET lock_timeout = '10s'")
        .execute(&mut conn)
        .await?;
    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
        .execute(&mut conn)
        .await?;
    conn.close().await
}

/// `prefix` and a suffix no other schema of any test run has: the process, the time and a
/// count within the process.
fn unique_name(prefix: &str) -> String {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let count = COUNT.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}{:x}_{nanos:x}_{count}", std::process::id())
}
