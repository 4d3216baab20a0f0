//! The PostgreSQL schema of one fault test, and `a2a serve`'s URL for it, direct or through
//! a proxy.

use std::net::SocketAddr;

use a2a_test_support::postgres::Schema;
use sqlx::Connection as _;

/// A schema of the test's own, created empty: the server under test migrates it.
pub struct Database {
    schema: Schema,
    /// Where the database listens.
    pub addr: SocketAddr,
}

impl Database {
    /// A fresh schema; `None` when PostgreSQL is unreachable outside CI (a notice says so).
    pub async fn create(prefix: &str) -> Option<Self> {
        let schema = Schema::reachable(prefix).await?;
        let mut conn = sqlx::PgConnection::connect(schema.url()).await.unwrap();
        sqlx::raw_sql(&format!("CREATE SCHEMA \"{}\"", schema.name()))
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        let url = reqwest::Url::parse(schema.url()).unwrap();
        let host = url.host_str().unwrap().to_owned();
        let port = url.port().unwrap_or(5432);
        let addr = tokio::net::lookup_host((host.as_str(), port))
            .await
            .unwrap()
            .next()
            .unwrap();
        Some(Self { schema, addr })
    }

    /// The store URL for `a2a serve --store`, reaching the database at `addr` (itself, or a
    /// proxy in front of it), with the test's schema as the search path.
    pub fn url_via(&self, addr: SocketAddr) -> String {
        let mut url = reqwest::Url::parse(self.schema.url()).unwrap();
        url.set_ip_host(addr.ip()).unwrap();
        url.set_port(Some(addr.port())).unwrap();
        url.query_pairs_mut()
            .append_pair("options", &format!("-c search_path={}", self.schema.name()));
        url.to_string()
    }

    /// The store URL reaching the database directly.
    pub fn url(&self) -> String {
        self.url_via(self.addr)
    }

    /// Runs a query that answers one number, in the test's schema.
    pub async fn count(&self, sql: &str) -> i64 {
        let mut conn = self.schema.connect().await;
        let count: i64 = sqlx::query_scalar(sql).fetch_one(&mut conn).await.unwrap();
        conn.close().await.unwrap();
        count
    }

    /// Drops the schema; the servers over it should be stopped first.
    pub async fn finish(self) {
        self.schema.finish().await;
    }
}
