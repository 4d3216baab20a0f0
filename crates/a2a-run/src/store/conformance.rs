//! The conformance suite every [`RunStore`] must pass: call [`run_all`] from the store's
//! tests with an empty store (or one whose runs do not collide: every check makes fresh
//! task ids).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use a2a_server::store::{Expected, StoreError, TaskScope};
use a2a_types::TaskId;

use super::RunStore;
use crate::run::{CallState, ChatMessage, OpenCall, Run, RunStatus, StopReason, ToolCall};

fn scope(tenant: &str, owner: Option<&str>) -> TaskScope {
    TaskScope {
        tenant: tenant.to_owned(),
        owner: owner.map(str::to_owned),
    }
}

fn sample_run() -> Run {
    let mut run = Run::new(
        TaskId::generate(),
        "definition-1".to_owned(),
        vec![
            ChatMessage::System {
                text: "be brief".to_owned(),
            },
            ChatMessage::User {
                text: "list the files, ünïcode ok".to_owned(),
            },
        ],
    );
    run.status = RunStatus::Suspended;
    run.steps = 1;
    run.open_calls.push(OpenCall {
        call: ToolCall {
            id: "call-1".to_owned(),
            name: "write_file".to_owned(),
            arguments: serde_json::json!({"path": "a.txt", "text": "x"}),
        },
        state: CallState::AwaitingApproval {
            approval_id: "approval-1".to_owned(),
        },
    });
    run
}

/// Runs every check.
pub async fn run_all(store: &dyn RunStore) {
    round_trip(store).await;
    compare_and_swap(store).await;
    scope_isolation(store).await;
    delete(store).await;
}

/// A saved run loads exactly as saved, and each save returns a greater version.
pub async fn round_trip(store: &dyn RunStore) {
    let owner = scope("t1", Some("alice"));
    let mut run = sample_run();
    let first = store.save(&owner, &run, Expected::Absent).await.unwrap();
    let loaded = store.load(&owner, &run.task_id).await.unwrap().unwrap();
    assert_eq!(loaded.run, run);
    assert_eq!(loaded.version, first);

    run.status = RunStatus::Stopped {
        reason: StopReason::Drained,
    };
    run.transcript.push(ChatMessage::Tool {
        call_id: "call-1".to_owned(),
        content: "done".to_owned(),
    });
    let second = store
        .save(&owner, &run, Expected::Version(first))
        .await
        .unwrap();
    assert!(second > first);
    let loaded = store.load(&owner, &run.task_id).await.unwrap().unwrap();
    assert_eq!(loaded.run, run);
    assert_eq!(loaded.version, second);
}

/// A save naming a stale version, or creating a run that exists, stores nothing.
pub async fn compare_and_swap(store: &dyn RunStore) {
    let owner = scope("", None);
    let run = sample_run();
    let first = store.save(&owner, &run, Expected::Absent).await.unwrap();
    let again = store.save(&owner, &run, Expected::Absent).await;
    assert!(
        matches!(again, Err(StoreError::Conflict { .. })),
        "{again:?}"
    );

    let mut changed = run.clone();
    changed.steps = 7;
    let second = store
        .save(&owner, &changed, Expected::Version(first))
        .await
        .unwrap();
    let mut stale = run.clone();
    stale.steps = 9;
    let refused = store.save(&owner, &stale, Expected::Version(first)).await;
    assert!(
        matches!(refused, Err(StoreError::Conflict { .. })),
        "{refused:?}"
    );
    let loaded = store.load(&owner, &run.task_id).await.unwrap().unwrap();
    assert_eq!(loaded.run.steps, 7);
    assert_eq!(loaded.version, second);

    let missing = sample_run();
    let refused = store.save(&owner, &missing, Expected::Version(first)).await;
    assert!(
        matches!(refused, Err(StoreError::NotFound { .. })),
        "{refused:?}"
    );
}

/// A run is invisible, unsavable and undeletable under another tenant or owner.
pub async fn scope_isolation(store: &dyn RunStore) {
    let alice = scope("t1", Some("alice"));
    let run = sample_run();
    let version = store.save(&alice, &run, Expected::Absent).await.unwrap();
    for other in [
        scope("t1", Some("bob")),
        scope("t1", None),
        scope("t2", Some("alice")),
    ] {
        assert!(store.load(&other, &run.task_id).await.unwrap().is_none());
        let refused = store.save(&other, &run, Expected::Version(version)).await;
        assert!(
            matches!(refused, Err(StoreError::NotFound { .. })),
            "{refused:?}"
        );
        let refused = store.save(&other, &run, Expected::Absent).await;
        assert!(
            matches!(refused, Err(StoreError::Conflict { .. })),
            "{refused:?}"
        );
        assert!(!store.delete(&other, &run.task_id).await.unwrap());
    }
    assert!(store.load(&alice, &run.task_id).await.unwrap().is_some());
}

/// A deleted run is gone; deleting it again finds nothing.
pub async fn delete(store: &dyn RunStore) {
    let owner = scope("t1", Some("carol"));
    let run = sample_run();
    store.save(&owner, &run, Expected::Absent).await.unwrap();
    assert!(store.delete(&owner, &run.task_id).await.unwrap());
    assert!(store.load(&owner, &run.task_id).await.unwrap().is_none());
    assert!(!store.delete(&owner, &run.task_id).await.unwrap());
    store.save(&owner, &run, Expected::Absent).await.unwrap();
}
