//! Push configs beyond the shared suite: the limit under concurrent saves.

use std::sync::Arc;

use a2a_server::store::{PushConfigStore, StoreError, TaskScope};
use a2a_types::{PushConfigId, TaskId, TaskPushNotificationConfig};
use tokio::task::JoinSet;

use crate::support::{Database, on_both, unique};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_saves_never_pass_the_limit() {
    on_both(async |database: &Database| {
        let store = Arc::new(database.store().await);
        let scope = TaskScope::tenant("acme").with_owner("alice");
        let task_id = TaskId::new(unique("t"));
        let mut saves = JoinSet::new();
        for n in 0..20 {
            let (store, scope, task_id) = (Arc::clone(&store), scope.clone(), task_id.clone());
            saves.spawn(async move {
                let mut config = TaskPushNotificationConfig::new("https://example.com/hook");
                config.id = Some(PushConfigId::new(format!("c{n:02}")));
                config.task_id = Some(task_id.clone());
                store
                    .save_push_config(&scope, &task_id, &config, 5, 0)
                    .await
            });
        }
        let (mut stored, mut refused) = (0, 0);
        while let Some(result) = saves.join_next().await {
            match result.unwrap() {
                Ok(()) => stored += 1,
                Err(StoreError::Limit { .. }) => refused += 1,
                Err(other) => panic!("{other:?}"),
            }
        }
        assert_eq!((stored, refused), (5, 15));
        assert_eq!(
            store
                .list_push_configs(&scope, &task_id)
                .await
                .unwrap()
                .len(),
            5
        );
    })
    .await;
}
