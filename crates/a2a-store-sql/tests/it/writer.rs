//! The SQLite writer's group commit: many saves at once all commit, and a write that fails
//! costs the writes batched with it nothing.

use std::sync::Arc;

use a2a_server::store::{Expected, PushConfigStore, TaskScope, TaskStore};
use a2a_types::{PushConfigId, StreamResponse, TaskId, TaskPushNotificationConfig, TaskState};
use tokio::task::JoinSet;

use crate::support::{Database, task};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_task_lifecycles_all_commit() {
    let database = Database::sqlite();
    let store = Arc::new(database.store().await);
    let scope = TaskScope::tenant("acme");
    let mut lifecycles = JoinSet::new();
    for n in 0..300 {
        let (store, scope) = (Arc::clone(&store), scope.clone());
        lifecycles.spawn(async move {
            let mut task = task(&format!("t{n:03}"), TaskState::Submitted);
            let event = |task: &a2a_types::Task| [StreamResponse::Task(task.clone())];
            let mut saved = store
                .save(&scope, &task, Expected::Absent, &event(&task))
                .await
                .unwrap();
            for state in [TaskState::Working, TaskState::Completed] {
                task.status.state = state;
                saved = store
                    .save(
                        &scope,
                        &task,
                        Expected::Version(saved.version),
                        &event(&task),
                    )
                    .await
                    .unwrap();
            }
            assert_eq!(saved.last_sequence, 3);
        });
    }
    while let Some(result) = lifecycles.join_next().await {
        result.unwrap();
    }
    assert_eq!(database.count("tasks").await, 300);
    assert_eq!(database.count("task_events").await, 900);
    let stored = store
        .load(&scope, &TaskId::new("t123"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.task.status.state, TaskState::Completed);
    assert_eq!(stored.last_sequence, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_write_fails_alone() {
    let database = Database::sqlite();
    let store = Arc::new(database.store().await);
    // Every push config write now fails inside the database.
    database.execute("DROP TABLE push_configs").await;
    let scope = TaskScope::tenant("acme");
    let mut writes = JoinSet::new();
    for n in 0..50 {
        let (store, scope) = (Arc::clone(&store), scope.clone());
        writes.spawn(async move {
            let task = task(&format!("t{n:02}"), TaskState::Working);
            let saved = store.save(&scope, &task, Expected::Absent, &[]).await;
            let mut config = TaskPushNotificationConfig::new("https://example.com/hook");
            config.id = Some(PushConfigId::new("c"));
            let pushed = store
                .save_push_config(&scope, &task.id, &config, 10, 0)
                .await;
            (saved.is_ok(), pushed.is_err())
        });
    }
    while let Some(result) = writes.join_next().await {
        assert_eq!(result.unwrap(), (true, true));
    }
    assert_eq!(database.count("tasks").await, 50);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_saves_with_events_log_only_the_winners_events() {
    let database = Database::sqlite();
    let store = Arc::new(database.store().await);
    let scope = TaskScope::tenant("acme");
    let task = task("t", TaskState::Working);
    let mut version = store
        .save(&scope, &task, Expected::Absent, &[])
        .await
        .unwrap()
        .version;
    for round in 0..10 {
        let mut racers = JoinSet::new();
        for racer in 0..16 {
            let (store, scope, mut task) = (Arc::clone(&store), scope.clone(), task.clone());
            racers.spawn(async move {
                task.artifacts = vec![a2a_types::Artifact::from_text(format!("{racer}"))];
                let events = [
                    StreamResponse::Task(task.clone()),
                    StreamResponse::Task(task.clone()),
                ];
                store
                    .save(&scope, &task, Expected::Version(version), &events)
                    .await
            });
        }
        let mut winners = Vec::new();
        while let Some(result) = racers.join_next().await {
            if let Ok(saved) = result.unwrap() {
                winners.push(saved);
            }
        }
        assert_eq!(winners.len(), 1, "round {round}");
        version = winners[0].version;
        assert_eq!(winners[0].last_sequence, 2 * (round + 1));
    }
    let log = store
        .events(&scope, &task.id, 0, usize::MAX)
        .await
        .unwrap()
        .unwrap();
    let sequences: Vec<u64> = log.iter().map(|event| event.sequence).collect();
    assert_eq!(sequences, (1..=20).collect::<Vec<u64>>());
    assert_eq!(database.count("task_events").await, 20);
}
