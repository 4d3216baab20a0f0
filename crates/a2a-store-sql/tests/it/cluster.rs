//! Turn leases (taken by saves, acquired, renewed, released, claimed when expired) and
//! signals between instances.

use std::collections::BTreeSet;
use std::time::Duration;

use a2a_server::cluster::{Cluster, ClusterSignal};
use a2a_server::store::{Expected, TaskScope, TaskStore};
use a2a_store_sql::{SqlStore, SqlStoreOptions};
use a2a_types::{TaskId, TaskState};
use tokio::time::{sleep, timeout};

use crate::support::{Database, on_both, task, unique};

const LEASE: Duration = Duration::from_millis(800);

async fn instance(database: &Database, name: &str) -> SqlStore {
    database
        .store_with(SqlStoreOptions::new().instance_id(name).lease_ttl(LEASE))
        .await
}

/// Saves `id` in `state`, creating it when needed.
async fn save(store: &SqlStore, scope: &TaskScope, id: &str, state: TaskState) {
    let task = task(id, state);
    let expected = match store.load(scope, &task.id).await.unwrap() {
        Some(stored) => Expected::Version(stored.version),
        None => Expected::Absent,
    };
    store.save(scope, &task, expected, &[]).await.unwrap();
}

#[tokio::test]
async fn a_save_that_leaves_a_turn_running_takes_the_lease_and_other_saves_drop_it() {
    on_both(async |database: &Database| {
        let (a, b) = (instance(database, "a").await, instance(database, "b").await);
        let scope = TaskScope::tenant("acme");
        let id = unique("t");
        let task_id = TaskId::new(&id);

        for state in [
            TaskState::Submitted,
            TaskState::Working,
            TaskState::AuthRequired,
        ] {
            save(&a, &scope, &id, state).await;
            assert!(
                !b.acquire_lease(&scope, &task_id).await.unwrap(),
                "{state:?}"
            );
            assert!(
                a.acquire_lease(&scope, &task_id).await.unwrap(),
                "{state:?}: renewal"
            );
        }
        for state in [TaskState::InputRequired, TaskState::Completed] {
            save(&a, &scope, &id, state).await;
            assert!(
                b.acquire_lease(&scope, &task_id).await.unwrap(),
                "{state:?}"
            );
            assert!(
                !a.acquire_lease(&scope, &task_id).await.unwrap(),
                "{state:?}"
            );
            b.release_lease(&task_id).await.unwrap();
        }
    })
    .await;
}

#[tokio::test]
async fn one_holder_at_a_time_until_release() {
    on_both(async |database: &Database| {
        let (a, b) = (instance(database, "a").await, instance(database, "b").await);
        let scope = TaskScope::tenant("acme");
        let id = unique("t");
        let task_id = TaskId::new(&id);
        save(&a, &scope, &id, TaskState::InputRequired).await;

        assert!(a.acquire_lease(&scope, &task_id).await.unwrap());
        assert!(!b.acquire_lease(&scope, &task_id).await.unwrap());
        b.release_lease(&task_id).await.unwrap();
        assert!(
            !b.acquire_lease(&scope, &task_id).await.unwrap(),
            "b released nothing"
        );
        a.release_lease(&task_id).await.unwrap();
        assert!(b.acquire_lease(&scope, &task_id).await.unwrap());
        assert!(
            a.acquire_lease(&TaskScope::tenant("acme"), &TaskId::new(unique("missing")))
                .await
                .unwrap(),
            "a task that does not exist has no lease to refuse"
        );
    })
    .await;
}

#[tokio::test]
async fn a_lease_expires_unless_renewed() {
    on_both(async |database: &Database| {
        let (a, b) = (instance(database, "a").await, instance(database, "b").await);
        let scope = TaskScope::tenant("acme");
        let (renewed, dropped) = (unique("renewed"), unique("dropped"));
        save(&a, &scope, &renewed, TaskState::Working).await;
        save(&a, &scope, &dropped, TaskState::Working).await;

        for _ in 0..3 {
            sleep(LEASE / 2).await;
            a.renew_leases(&[TaskId::new(&renewed)]).await.unwrap();
        }
        assert!(
            !b.acquire_lease(&scope, &TaskId::new(&renewed))
                .await
                .unwrap()
        );
        assert!(
            b.acquire_lease(&scope, &TaskId::new(&dropped))
                .await
                .unwrap()
        );
        assert!(
            !a.acquire_lease(&scope, &TaskId::new(&dropped))
                .await
                .unwrap()
        );
        a.renew_leases(&[TaskId::new(&dropped)]).await.unwrap();
        assert!(
            !a.acquire_lease(&scope, &TaskId::new(&dropped))
                .await
                .unwrap(),
            "renewing does not take another instance's lease"
        );
    })
    .await;
}

#[tokio::test]
async fn each_expired_lease_is_claimed_by_exactly_one_instance() {
    on_both(async |database: &Database| {
        let dead = instance(database, "dead").await;
        let (b, c) = (instance(database, "b").await, instance(database, "c").await);
        let scope = TaskScope::tenant("acme").with_owner("alice");
        let mut running = BTreeSet::new();
        for n in 0..12 {
            let id = unique(&format!("t{n}"));
            save(&dead, &scope, &id, TaskState::Working).await;
            running.insert(id);
        }
        save(&dead, &scope, &unique("done"), TaskState::Completed).await;
        save(&dead, &scope, &unique("waiting"), TaskState::InputRequired).await;
        assert_eq!(b.claim_expired_leases(100).await.unwrap(), []);
        sleep(LEASE + Duration::from_millis(200)).await;

        let (by_b, by_c) = tokio::join!(b.claim_expired_leases(100), c.claim_expired_leases(100));
        let (by_b, by_c) = (by_b.unwrap(), by_c.unwrap());
        let mut claimed = BTreeSet::new();
        for lease in by_b.iter().chain(&by_c) {
            assert_eq!(lease.holder, "dead");
            assert_eq!(lease.scope, scope);
            assert!(
                claimed.insert(lease.task_id.as_str().to_owned()),
                "claimed twice: {lease:?}"
            );
        }
        assert_eq!(claimed, running);
        assert_eq!(c.claim_expired_leases(100).await.unwrap(), []);
        assert_eq!(b.claim_expired_leases(100).await.unwrap(), []);

        let some = by_b.first().or(by_c.first()).unwrap();
        let claimer = if by_b.contains(some) { &b } else { &c };
        assert!(claimer.acquire_lease(&scope, &some.task_id).await.unwrap());
        assert!(!dead.acquire_lease(&scope, &some.task_id).await.unwrap());
    })
    .await;
}

#[tokio::test]
async fn claiming_takes_at_most_the_limit() {
    on_both(async |database: &Database| {
        let dead = instance(database, "dead").await;
        let b = instance(database, "b").await;
        let scope = TaskScope::tenant("acme");
        for n in 0..5 {
            save(&dead, &scope, &unique(&format!("t{n}")), TaskState::Working).await;
        }
        sleep(LEASE + Duration::from_millis(200)).await;
        assert_eq!(b.claim_expired_leases(0).await.unwrap().len(), 0);
        assert_eq!(b.claim_expired_leases(3).await.unwrap().len(), 3);
        assert_eq!(b.claim_expired_leases(3).await.unwrap().len(), 2);
    })
    .await;
}

#[tokio::test]
async fn instances_have_distinct_ids_by_default() {
    let database = Database::sqlite();
    let (a, b) = (database.store().await, database.store().await);
    assert_ne!(a.instance_id(), b.instance_id());
    assert!(a.is_shared());
    assert_eq!(a.lease_ttl(), Duration::from_secs(30));
}

async fn next(receiver: &mut tokio::sync::broadcast::Receiver<ClusterSignal>) -> ClusterSignal {
    timeout(Duration::from_secs(5), receiver.recv())
        .await
        .expect("a signal within 5 s")
        .expect("an open channel")
}

#[tokio::test]
async fn a_signal_reaches_every_instance_over_one_postgres_schema_and_no_other() {
    let Some(database) = Database::postgres().await else {
        return;
    };
    let Some(elsewhere) = Database::postgres().await else {
        return;
    };
    let (a, b) = (
        instance(&database, "a").await,
        instance(&database, "b").await,
    );
    let stranger = instance(&elsewhere, "stranger").await;
    let (mut at_a, mut at_b) = (a.subscribe(), b.subscribe());
    let mut at_stranger = stranger.subscribe();

    let events = ClusterSignal::Events {
        task_id: TaskId::new("t"),
        last_sequence: 7,
    };
    a.publish(&events).await.unwrap();
    assert_eq!(next(&mut at_a).await, events);
    assert_eq!(next(&mut at_b).await, events);

    let cancel = ClusterSignal::Cancel {
        task_id: TaskId::new("t"),
    };
    b.publish(&cancel).await.unwrap();
    assert_eq!(next(&mut at_a).await, cancel);
    assert_eq!(next(&mut at_b).await, cancel);
    sleep(Duration::from_millis(200)).await;
    assert!(at_a.try_recv().is_err(), "each signal once");
    assert!(at_b.try_recv().is_err(), "each signal once");
    assert!(
        at_stranger.try_recv().is_err(),
        "another schema hears nothing"
    );
    drop((a, b, stranger));
    database.finish().await;
    elsewhere.finish().await;
}

#[tokio::test]
async fn signals_published_together_reach_the_other_instance_in_order() {
    let Some(database) = Database::postgres().await else {
        return;
    };
    let (a, b) = (
        instance(&database, "a").await,
        instance(&database, "b").await,
    );
    let mut at_b = b.subscribe();
    let signals: Vec<ClusterSignal> = (1..=5)
        .map(|sequence| ClusterSignal::Events {
            task_id: TaskId::new(format!("t{sequence}")),
            last_sequence: sequence,
        })
        .chain([ClusterSignal::Cancel {
            task_id: TaskId::new("t1"),
        }])
        .collect();
    a.publish_all(&signals).await.unwrap();
    for signal in &signals {
        assert_eq!(&next(&mut at_b).await, signal);
    }
    sleep(Duration::from_millis(200)).await;
    assert!(at_b.try_recv().is_err(), "each signal once");
    drop((a, b));
    database.finish().await;
}

#[tokio::test]
async fn a_sqlite_store_delivers_its_signals_to_its_own_subscribers() {
    let database = Database::sqlite();
    let store = database.store().await;
    let mut receiver = store.subscribe();
    let signal = ClusterSignal::Cancel {
        task_id: TaskId::new("t"),
    };
    store.publish(&signal).await.unwrap();
    assert_eq!(next(&mut receiver).await, signal);
}
