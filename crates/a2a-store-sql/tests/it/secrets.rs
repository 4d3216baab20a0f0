//! `TaskStore::shared_secret`: made once by the first server that asks, then the same bytes
//! for every store over the database — other connections, restarts, racing first calls —
//! on SQLite and PostgreSQL; the memory store has none to share.

use a2a_server::store::{InMemoryTaskStore, TaskStore};

use crate::support::{Database, on_both};

#[tokio::test]
async fn a_shared_secret_is_made_once_and_every_store_over_the_database_gets_it() {
    on_both(async |database: &Database| {
        let first = database.store().await;
        let second = database.store().await;
        // Racing first calls agree on one value.
        let (a, b) = tokio::join!(
            first.shared_secret("list-tasks-page-token"),
            second.shared_secret("list-tasks-page-token")
        );
        let (a, b) = (a.unwrap().unwrap(), b.unwrap().unwrap());
        assert_eq!(a, b);
        assert!(a.len() >= 32, "a key of {} bytes", a.len());
        assert_eq!(
            first
                .shared_secret("list-tasks-page-token")
                .await
                .unwrap()
                .unwrap(),
            a
        );
        let other = first.shared_secret("another").await.unwrap().unwrap();
        assert_ne!(other, a, "each name has its own secret");
        first.close().await;
        second.close().await;
        // A restart: a new store over the same database.
        let restarted = database.store().await;
        assert_eq!(
            restarted
                .shared_secret("list-tasks-page-token")
                .await
                .unwrap()
                .unwrap(),
            a
        );
        restarted.close().await;
    })
    .await;
}

#[tokio::test]
async fn the_memory_store_shares_no_secret() {
    assert_eq!(
        InMemoryTaskStore::new().shared_secret("x").await.unwrap(),
        None
    );
}
