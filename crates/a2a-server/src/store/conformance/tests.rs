use std::time::Duration;

use super::super::{InMemoryPushConfigStore, InMemoryTaskStore, InMemoryTaskStoreConfig};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn in_memory_store_passes_the_conformance_suite() {
    super::run(|| async { InMemoryTaskStore::new() }).await;
}

#[tokio::test]
async fn in_memory_store_passes_the_expiry_checks() {
    super::run_expiry(|ttl: Duration| async move {
        InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
            completed_task_ttl: ttl,
            ..InMemoryTaskStoreConfig::default()
        })
    })
    .await;
}

#[tokio::test]
async fn in_memory_push_config_store_passes_the_push_checks() {
    super::run_push(|| async { InMemoryPushConfigStore::new() }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn in_memory_stores_pass_the_delivery_checks() {
    super::run_delivery(|| async { (InMemoryTaskStore::new(), InMemoryPushConfigStore::new()) })
        .await;
}
