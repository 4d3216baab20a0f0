//! Expiry of terminal tasks and the cleanup that deletes them with their events
//! and push configs. Real time, short TTLs.

use std::time::Duration;

use a2a_server::store::{Expected, PushConfigStore, StoreError, TaskScope, TaskStore};
use a2a_types::{StreamResponse, TaskState};
use tokio::time::sleep;

use crate::support::{Database, hook, on_both, task, unique};

const TTL: Duration = Duration::from_millis(400);

fn snapshot(task: &a2a_types::Task) -> Vec<StreamResponse> {
    vec![
        StreamResponse::Task(task.clone()),
        StreamResponse::Task(task.clone()),
    ]
}

#[tokio::test]
async fn cleanup_deletes_expired_tasks_with_their_events_and_push_configs() {
    on_both(async |database: &Database| {
        let store = database.store_expiring(TTL, Duration::ZERO).await;
        let scope = TaskScope::tenant("acme");
        let (done, running) = (
            task(&unique("done"), TaskState::Completed),
            task(&unique("running"), TaskState::Working),
        );
        for task in [&done, &running] {
            store
                .save(&scope, task, Expected::Absent, &snapshot(task))
                .await
                .unwrap();
            store
                .save_push_config(&scope, &task.id, &hook(&task.id, "hook"), 10, 0)
                .await
                .unwrap();
        }
        assert_eq!(store.delete_expired().await.unwrap(), 0);
        sleep(TTL + Duration::from_millis(100)).await;

        assert_eq!(store.load(&scope, &done.id).await.unwrap(), None);
        assert_eq!(
            database.count("tasks").await,
            2,
            "invisible, not yet deleted"
        );
        assert_eq!(store.delete_expired().await.unwrap(), 1);
        assert_eq!(database.count("tasks").await, 1);
        assert_eq!(database.count("task_events").await, 2);
        assert_eq!(database.count("push_configs").await, 1);
        assert!(store.load(&scope, &running.id).await.unwrap().is_some());
        assert_eq!(
            store
                .list_push_configs(&scope, &running.id)
                .await
                .unwrap()
                .len(),
            1
        );
    })
    .await;
}

#[tokio::test]
async fn the_cleanup_runs_on_its_own_every_interval() {
    on_both(async |database: &Database| {
        let store = database
            .store_expiring(TTL, Duration::from_millis(100))
            .await;
        let scope = TaskScope::tenant("acme");
        let done = task(&unique("done"), TaskState::Failed);
        store
            .save(&scope, &done, Expected::Absent, &snapshot(&done))
            .await
            .unwrap();
        sleep(TTL + Duration::from_millis(500)).await;
        assert_eq!(database.count("tasks").await, 0);
        assert_eq!(database.count("task_events").await, 0);
    })
    .await;
}

#[tokio::test]
async fn an_expired_task_id_can_be_created_again_with_a_greater_version_and_a_new_log() {
    on_both(async |database: &Database| {
        let store = database.store_expiring(TTL, Duration::ZERO).await;
        let scope = TaskScope::tenant("acme");
        let old = task(&unique("t"), TaskState::Completed);
        let first = store
            .save(&scope, &old, Expected::Absent, &snapshot(&old))
            .await
            .unwrap();
        store
            .save_push_config(&scope, &old.id, &hook(&old.id, "hook"), 10, 0)
            .await
            .unwrap();
        sleep(TTL + Duration::from_millis(100)).await;

        let again = store
            .save(&scope, &old, Expected::Version(first.version), &[])
            .await;
        assert!(
            matches!(again, Err(StoreError::NotFound { .. })),
            "saving an expired task: {again:?}"
        );
        let new = task(old.id.as_str(), TaskState::Working);
        let second = store
            .save(
                &TaskScope::tenant("globex"),
                &new,
                Expected::Absent,
                &snapshot(&new)[..1],
            )
            .await
            .unwrap();
        assert!(second.version > first.version);
        assert_eq!(second.last_sequence, 1);
        let globex = TaskScope::tenant("globex");
        let log = store
            .events(&globex, &new.id, 0, 10)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(log.len(), 1);
        assert_eq!(
            store.list_push_configs(&scope, &old.id).await.unwrap(),
            [],
            "the old task's configs went with it"
        );
        assert_eq!(store.load(&scope, &old.id).await.unwrap(), None);
    })
    .await;
}
