//! The shared task store conformance suite, on every backend.

use std::time::Duration;

use a2a_server::store::conformance;
use a2a_store_sql::{SqlStore, SqlStoreOptions};

use crate::support::{Database, on_both};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_file_store_passes_the_conformance_suite() {
    let database = Database::sqlite();
    conformance::run(|| async {
        // A file of its own for every store.
        let url = database.sqlite_url_of(&uuid::Uuid::new_v4().simple().to_string());
        SqlStore::connect(&url, SqlStoreOptions::new())
            .await
            .expect("a SQLite store")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_memory_sqlite_store_passes_the_conformance_suite() {
    conformance::run(|| async {
        SqlStore::connect("sqlite::memory:", SqlStoreOptions::new())
            .await
            .expect("an in-memory SQLite store")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_store_passes_the_conformance_suite() {
    let Some(database) = Database::postgres().await else {
        return;
    };
    conformance::run(|| database.store()).await;
    database.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_backend_passes_the_expiry_checks() {
    on_both(async |database: &Database| {
        conformance::run_expiry(|ttl| {
            // No background pass: the checks see what reads see.
            database.store_expiring(ttl, Duration::ZERO)
        })
        .await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_backend_passes_the_push_config_checks() {
    on_both(async |database: &Database| {
        conformance::run_push(|| database.store()).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expiry_checks_pass_with_the_cleanup_running_too() {
    on_both(async |database: &Database| {
        conformance::run_expiry(|ttl| database.store_expiring(ttl, Duration::from_millis(100)))
            .await;
    })
    .await;
}
