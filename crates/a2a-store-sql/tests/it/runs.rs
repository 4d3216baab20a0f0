//! Agent runs (a2a-run's `RunStore`) on every backend: the conformance suite, runs shared
//! by instances and kept across restarts, and runs going with their expired tasks.

use std::time::Duration;

use a2a_run::run::{ChatMessage, Run, RunStatus};
use a2a_run::store::{RunStore, conformance};
use a2a_server::store::{Expected, StoreError, TaskScope, TaskStore};
use a2a_store_sql::{SqlStore, SqlStoreOptions};
use a2a_types::{TaskId, TaskState};
use tokio::time::sleep;

use crate::support::{Database, on_both, task, unique};

const TTL: Duration = Duration::from_millis(400);

fn run(task_id: &TaskId) -> Run {
    Run::new(
        task_id.clone(),
        "definition".to_owned(),
        vec![ChatMessage::User {
            text: "hello".to_owned(),
        }],
    )
}

/// The store as the run store it also is.
fn runs(store: &SqlStore) -> &dyn RunStore {
    store
}

/// The store as the task store it also is.
fn tasks(store: &SqlStore) -> &dyn TaskStore {
    store
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_file_store_passes_the_run_conformance_suite() {
    let database = Database::sqlite();
    let store = database.store().await;
    conformance::run_all(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_memory_sqlite_store_passes_the_run_conformance_suite() {
    let store = SqlStore::connect("sqlite::memory:", SqlStoreOptions::new())
        .await
        .unwrap();
    conformance::run_all(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_store_passes_the_run_conformance_suite() {
    let Some(database) = Database::postgres().await else {
        return;
    };
    let store = database.store().await;
    conformance::run_all(&store).await;
    drop(store);
    database.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_value_serves_as_the_task_store_and_the_run_store() {
    let store = std::sync::Arc::new(
        SqlStore::connect("sqlite::memory:", SqlStoreOptions::new())
            .await
            .unwrap(),
    );
    let task_store: std::sync::Arc<dyn TaskStore> = store.clone();
    let run_store: std::sync::Arc<dyn RunStore> = store;
    let scope = TaskScope::tenant("acme");
    let task = task(&unique("t"), TaskState::Working);
    task_store
        .save(&scope, &task, Expected::Absent, &[])
        .await
        .unwrap();
    run_store
        .save(&scope, &run(&task.id), Expected::Absent)
        .await
        .unwrap();
    assert!(run_store.load(&scope, &task.id).await.unwrap().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_saved_by_one_instance_is_loaded_and_saved_by_another() {
    on_both(async |database: &Database| {
        let (first, second) = (database.store().await, database.store().await);
        let scope = TaskScope {
            tenant: "acme".to_owned(),
            owner: Some("alice".to_owned()),
        };
        let mut saved = run(&TaskId::new(unique("t")));
        let version = runs(&first)
            .save(&scope, &saved, Expected::Absent)
            .await
            .unwrap();

        let loaded = runs(&second)
            .load(&scope, &saved.task_id)
            .await
            .unwrap()
            .expect("the other instance's run");
        assert_eq!((&loaded.run, loaded.version), (&saved, version));

        saved.status = RunStatus::Suspended;
        saved.steps = 1;
        let newer = runs(&second)
            .save(&scope, &saved, Expected::Version(version))
            .await
            .unwrap();
        assert!(newer > version);
        let stale = runs(&first)
            .save(&scope, &saved, Expected::Version(version))
            .await;
        assert!(
            matches!(stale, Err(StoreError::Conflict { .. })),
            "{stale:?}"
        );
        let again = runs(&first).save(&scope, &saved, Expected::Absent).await;
        assert!(
            matches!(again, Err(StoreError::Conflict { .. })),
            "{again:?}"
        );
        let loaded = runs(&first)
            .load(&scope, &saved.task_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((&loaded.run, loaded.version), (&saved, newer));
        assert_eq!(
            database
                .count("runs WHERE status = 'suspended' AND tenant = 'acme'")
                .await,
            1,
            "the status column names the run's state"
        );

        assert!(runs(&second).delete(&scope, &saved.task_id).await.unwrap());
        assert!(
            runs(&first)
                .load(&scope, &saved.task_id)
                .await
                .unwrap()
                .is_none()
        );
        drop((first, second));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_survives_reopening_the_sqlite_file() {
    let database = Database::sqlite();
    let scope = TaskScope::tenant("acme");
    let mut saved = run(&TaskId::new(unique("t")));
    saved.status = RunStatus::Suspended;
    let store = database.store().await;
    let version = runs(&store)
        .save(&scope, &saved, Expected::Absent)
        .await
        .unwrap();
    store.close().await;
    drop(store);

    let store = database.store().await;
    let loaded = runs(&store)
        .load(&scope, &saved.task_id)
        .await
        .unwrap()
        .expect("kept in the file");
    assert_eq!((&loaded.run, loaded.version), (&saved, version));
    let newer = runs(&store)
        .save(&scope, &saved, Expected::Version(version))
        .await
        .unwrap();
    assert!(newer > version);
}

#[tokio::test]
async fn the_cleanup_deletes_the_runs_of_expired_tasks() {
    on_both(async |database: &Database| {
        let store = database.store_expiring(TTL, Duration::ZERO).await;
        let scope = TaskScope::tenant("acme");
        let (done, running) = (
            task(&unique("done"), TaskState::Completed),
            task(&unique("running"), TaskState::Working),
        );
        for task in [&done, &running] {
            tasks(&store)
                .save(&scope, task, Expected::Absent, &[])
                .await
                .unwrap();
            runs(&store)
                .save(&scope, &run(&task.id), Expected::Absent)
                .await
                .unwrap();
        }
        assert_eq!(store.delete_expired().await.unwrap(), 0);
        assert_eq!(database.count("runs").await, 2);
        sleep(TTL + Duration::from_millis(100)).await;

        assert_eq!(store.delete_expired().await.unwrap(), 1);
        assert_eq!(database.count("runs").await, 1);
        assert!(runs(&store).load(&scope, &done.id).await.unwrap().is_none());
        assert!(
            runs(&store)
                .load(&scope, &running.id)
                .await
                .unwrap()
                .is_some()
        );
    })
    .await;
}

#[tokio::test]
async fn a_task_created_again_under_an_expired_id_starts_without_the_old_run() {
    on_both(async |database: &Database| {
        let store = database.store_expiring(TTL, Duration::ZERO).await;
        let scope = TaskScope::tenant("acme");
        let old = task(&unique("t"), TaskState::Completed);
        tasks(&store)
            .save(&scope, &old, Expected::Absent, &[])
            .await
            .unwrap();
        let first = runs(&store)
            .save(&scope, &run(&old.id), Expected::Absent)
            .await
            .unwrap();
        sleep(TTL + Duration::from_millis(100)).await;

        let new = task(old.id.as_str(), TaskState::Working);
        tasks(&store)
            .save(&scope, &new, Expected::Absent, &[])
            .await
            .unwrap();
        assert!(runs(&store).load(&scope, &old.id).await.unwrap().is_none());
        let second = runs(&store)
            .save(&scope, &run(&new.id), Expected::Absent)
            .await
            .unwrap();
        assert!(second > first);
    })
    .await;
}
