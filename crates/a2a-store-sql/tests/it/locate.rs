//! `TaskStore::locate`: the scope of a task whoever owns it, for the optional cross-owner
//! policy that answers another caller's task with 403 instead of not-found — on SQLite and
//! PostgreSQL, and the memory store for comparison.

use a2a_server::store::{Expected, InMemoryTaskStore, TaskScope, TaskStore};
use a2a_types::{TaskId, TaskState};

use crate::support::{Database, on_both, task, unique};

async fn check(store: &dyn TaskStore) {
    let id = unique("located");
    let owner = TaskScope::tenant("acme").with_owner("[\"x509\",\"CN=CA\",\"CN=alice\"]");
    store
        .save(
            &owner,
            &task(&id, TaskState::Working),
            Expected::Absent,
            &[],
        )
        .await
        .unwrap();
    assert_eq!(store.locate(&TaskId::new(&id)).await.unwrap(), Some(owner));
    let shared = TaskScope::tenant("");
    let other = unique("shared");
    store
        .save(
            &shared,
            &task(&other, TaskState::Working),
            Expected::Absent,
            &[],
        )
        .await
        .unwrap();
    assert_eq!(
        store.locate(&TaskId::new(&other)).await.unwrap(),
        Some(shared)
    );
    assert_eq!(
        store.locate(&TaskId::new("no-such-task")).await.unwrap(),
        None
    );
}

#[tokio::test]
async fn a_task_is_located_with_its_tenant_and_owner() {
    on_both(async |database: &Database| check(&database.store().await).await).await;
    check(&InMemoryTaskStore::new()).await;
}
