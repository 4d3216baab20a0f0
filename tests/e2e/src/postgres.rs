//! A PostgreSQL schema of one test's own, and the stores over it.

use std::time::Duration;

use a2a_store_sql::{SqlStore, SqlStoreOptions};

/// How long a lease lives in these tests: short, so expiry is quick to observe.
pub const LEASE_TTL: Duration = Duration::from_millis(1500);

/// A PostgreSQL schema of one test's own.
#[derive(Debug, Clone)]
pub struct Postgres {
    /// The database URL.
    pub url: String,
    /// The schema.
    pub schema: String,
}

impl Postgres {
    /// The test database (`A2A_TEST_POSTGRES_URL`, else the local one) and a fresh schema
    /// name. When the database cannot be reached the test is skipped with a notice
    /// (`None`), except under `CI=true`, where it fails: CI always runs these tests against a
    /// real server.
    pub async fn schema_for_test() -> Option<Self> {
        let url = a2a_test_support::postgres::reachable().await?;
        let schema = format!("a2a_e2e_{}", uuid::Uuid::new_v4().simple());
        Some(Self { url, schema })
    }

    /// A store over this schema for instance `id`.
    pub async fn store(&self, id: &str) -> SqlStore {
        let options = SqlStoreOptions::new()
            .postgres_schema(self.schema.clone())
            .instance_id(id)
            .lease_ttl(LEASE_TTL);
        SqlStore::connect(&self.url, options).await.unwrap()
    }
}
