//! Push delivery state: the shared delivery checks on every backend, and what only
//! a SQL store shows: claims across stores over one database, expired tasks, and the
//! upgrade from schema version 1.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_server::store::{
    ClaimedWebhook, DeliveryProgress, Expected, PushConfigStore, TaskScope, TaskStore, conformance,
};
use a2a_store_sql::{SqlStore, SqlStoreOptions};
use a2a_types::{PushConfigId, StreamResponse, Task, TaskId, TaskState};
use tokio::sync::Barrier;
use tokio::task::JoinSet;

use crate::support::{Database, hook, on_both, task, unique};

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

fn snapshot(task: &Task) -> Vec<StreamResponse> {
    vec![StreamResponse::Task(task.clone())]
}

/// What instance `a` claims at `now`, for a second, ten at most.
async fn claim(store: &SqlStore, now: u64) -> Vec<ClaimedWebhook> {
    store
        .claim_deliveries("a", now, now + 1000, 10)
        .await
        .unwrap()
}

fn key(webhook: &ClaimedWebhook) -> (String, Option<PushConfigId>) {
    (
        webhook.task_id.as_str().to_owned(),
        webhook.config.id.clone(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_backend_passes_the_delivery_checks() {
    // On PostgreSQL every store shares the test's schema, as instances of a cluster do.
    on_both(async |database: &Database| {
        conformance::run_delivery(|| async {
            let store = database.store().await;
            (store.clone(), store)
        })
        .await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_in_memory_sqlite_store_passes_the_delivery_checks() {
    conformance::run_delivery(|| async {
        let store = SqlStore::connect("sqlite::memory:", SqlStoreOptions::new())
            .await
            .expect("an in-memory SQLite store");
        (store.clone(), store)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stores_over_one_database_never_claim_one_webhook_twice() {
    on_both(async |database: &Database| {
        let mut stores = Vec::new();
        for _ in 0..3 {
            stores.push(Arc::new(database.store().await));
        }
        let scope = TaskScope::tenant("acme");
        let mut due = BTreeSet::new();
        for _ in 0..6 {
            let task = task(&unique("t"), TaskState::Working);
            for n in 0..4 {
                let config = hook(&task.id, &format!("h{n}"));
                stores[0]
                    .save_push_config(&scope, &task.id, &config, 10, 0)
                    .await
                    .unwrap();
                due.insert((task.id.as_str().to_owned(), config.id));
            }
            stores[0]
                .save(&scope, &task, Expected::Absent, &snapshot(&task))
                .await
                .unwrap();
        }

        let mut now = now_ms();
        for round in 0..15 {
            now += 10_000;
            let start = Arc::new(Barrier::new(stores.len() * 2));
            let mut claims = JoinSet::new();
            // Two claimers per store: racing pools, and racing connections of one pool.
            for (index, store) in stores.iter().chain(stores.iter()).enumerate() {
                let (store, start) = (Arc::clone(store), Arc::clone(&start));
                claims.spawn(async move {
                    start.wait().await;
                    store
                        .claim_deliveries(&format!("instance-{index}"), now, now + 5000, 5)
                        .await
                });
            }
            let mut claimed = BTreeSet::new();
            while let Some(result) = claims.join_next().await {
                for webhook in result.unwrap().unwrap() {
                    assert!(
                        claimed.insert(key(&webhook)),
                        "round {round}: {webhook:?} was claimed twice"
                    );
                }
            }
            let rest = stores[1]
                .claim_deliveries("sweeper", now, now + 5000, 100)
                .await
                .unwrap();
            for webhook in rest {
                assert!(claimed.insert(key(&webhook)), "round {round}: {webhook:?}");
            }
            assert_eq!(claimed, due, "round {round}");
        }
    })
    .await;
}

#[tokio::test]
async fn webhooks_of_expired_tasks_are_not_claimed() {
    on_both(async |database: &Database| {
        let ttl = Duration::from_secs(60);
        let store = database.store_expiring(ttl, Duration::ZERO).await;
        let scope = TaskScope::tenant("acme").with_owner("alice");
        let working = task(&unique("t"), TaskState::Working);
        let config = hook(&working.id, "hook");
        store
            .save_push_config(&scope, &working.id, &config, 10, 0)
            .await
            .unwrap();
        let saved = store
            .save(&scope, &working, Expected::Absent, &[])
            .await
            .unwrap();
        let mut completed = working.clone();
        completed.status.state = TaskState::Completed;
        store
            .save(
                &scope,
                &completed,
                Expected::Version(saved.version),
                &snapshot(&completed),
            )
            .await
            .unwrap();

        let now = now_ms();
        assert_eq!(
            claim(&store, now).await,
            vec![ClaimedWebhook::new(
                scope.clone(),
                working.id.clone(),
                config,
                0,
                0
            )],
            "a terminal task within its TTL"
        );
        let release = DeliveryProgress::new(0, 1, 0, None);
        let id = PushConfigId::new("hook");
        assert!(
            store
                .record_delivery(&scope, &working.id, &id, "a", release)
                .await
                .unwrap()
        );
        let later = now + 2 * u64::try_from(ttl.as_millis()).unwrap();
        assert_eq!(
            claim(&store, later).await,
            Vec::new(),
            "a task past its TTL"
        );
    })
    .await;
}

#[tokio::test]
async fn upgrading_from_schema_version_1_starts_configs_at_their_task_log_end() {
    on_both(async |database: &Database| {
        let scope = TaskScope::tenant("acme");
        let task = task(&unique("t"), TaskState::Working);
        let orphan = TaskId::new(unique("never-created"));
        let store = database.store().await;
        let saved = store
            .save(
                &scope,
                &task,
                Expected::Absent,
                &[snapshot(&task), snapshot(&task), snapshot(&task)].concat(),
            )
            .await
            .unwrap();
        for task_id in [&task.id, &orphan] {
            store
                .save_push_config(&scope, task_id, &hook(task_id, "hook"), 10, 0)
                .await
                .unwrap();
        }
        store.close().await;
        // The database as version 1 left it, with the configs' delivery state unknown.
        database
            .execute(
                "DROP INDEX push_configs_due; \
                 ALTER TABLE push_configs DROP COLUMN delivered_sequence; \
                 ALTER TABLE push_configs DROP COLUMN attempts; \
                 ALTER TABLE push_configs DROP COLUMN next_attempt_at; \
                 ALTER TABLE push_configs DROP COLUMN claimed_by; \
                 ALTER TABLE push_configs DROP COLUMN claimed_until; \
                 DROP TABLE shared_secrets; \
                 DROP TABLE runs; \
                 DROP TABLE send_keys; \
                 UPDATE a2a_schema_version SET version = 1",
            )
            .await;

        let store = database.store().await;
        assert_eq!(
            database.count("a2a_schema_version WHERE version = 6").await,
            1
        );
        let now = now_ms();
        assert_eq!(
            claim(&store, now).await,
            Vec::new(),
            "events logged before the upgrade"
        );
        store
            .save(
                &scope,
                &task,
                Expected::Version(saved.version),
                &snapshot(&task),
            )
            .await
            .unwrap();
        assert_eq!(
            claim(&store, now).await,
            vec![ClaimedWebhook::new(
                scope.clone(),
                task.id.clone(),
                hook(&task.id, "hook"),
                3,
                0
            )],
            "an event logged after the upgrade"
        );
        // The orphan's config was kept, starting from nothing.
        assert_eq!(
            store
                .list_push_configs(&scope, &orphan)
                .await
                .unwrap()
                .len(),
            1
        );
    })
    .await;
}
