//! Creates batched together (many new tasks saved at once go to the database as one batch),
//! on both backends: every id is created once whatever races for it, with its own events
//! only, and an id that is taken is a conflict.

use std::sync::Arc;

use a2a_server::store::{Expected, StoreError, TaskScope, TaskStore};
use a2a_types::{Artifact, StreamResponse, TaskId, TaskState};
use tokio::task::JoinSet;

use crate::support::{Database, on_both, task, unique};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_creates_of_one_id_create_it_once_with_the_winners_events() {
    on_both(async |database: &Database| {
        let store = Arc::new(database.store().await);
        let scope = TaskScope::tenant("acme");
        let prefix = unique("race");
        // One id is taken before the race.
        let taken = task(&format!("{prefix}-taken"), TaskState::Working);
        store
            .save(&scope, &taken, Expected::Absent, &[])
            .await
            .unwrap();
        let mut racers = JoinSet::new();
        for id in 0..40 {
            for racer in 0..6 {
                let (store, scope) = (Arc::clone(&store), scope.clone());
                let name = if id == 0 {
                    format!("{prefix}-taken")
                } else {
                    format!("{prefix}-{id}")
                };
                racers.spawn(async move {
                    let mut task = task(&name, TaskState::Completed);
                    task.artifacts = vec![Artifact::from_text(format!("{racer}"))];
                    let events = [
                        StreamResponse::Task(task.clone()),
                        StreamResponse::Task(task.clone()),
                    ];
                    let saved = store.save(&scope, &task, Expected::Absent, &events).await;
                    (name, racer, saved)
                });
            }
        }
        let mut winners = std::collections::HashMap::new();
        while let Some(result) = racers.join_next().await {
            let (name, racer, saved) = result.unwrap();
            match saved {
                Ok(saved) => {
                    assert_eq!(saved.last_sequence, 2, "{name}");
                    assert!(
                        winners.insert(name.clone(), racer).is_none(),
                        "{name} twice"
                    );
                }
                Err(StoreError::Conflict { task_id }) => assert_eq!(task_id.as_str(), name),
                Err(other) => panic!("{name}: {other:?}"),
            }
        }
        assert_eq!(winners.len(), 39, "every free id once, the taken one never");
        for (name, racer) in winners {
            let id = TaskId::new(name.clone());
            let stored = store.load(&scope, &id).await.unwrap().unwrap();
            assert_eq!(stored.last_sequence, 2, "{name}");
            // The winner's own artifact, by its text (artifact ids are fresh per racer).
            let text = Artifact::from_text(format!("{racer}")).parts;
            assert_eq!(stored.task.artifacts[0].parts, text, "{name}");
            let log = store
                .events(&scope, &id, 0, usize::MAX)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(log.len(), 2, "{name}");
            for event in log {
                let StreamResponse::Task(logged) = &event.response else {
                    panic!("{name}: {:?}", event.response);
                };
                assert_eq!(logged.artifacts[0].parts, text, "{name}");
            }
        }
        let untouched = store.load(&scope, &taken.id).await.unwrap().unwrap();
        assert_eq!(untouched.task.status.state, TaskState::Working);
        assert_eq!(untouched.last_sequence, 0);
    })
    .await;
}
