//! The event log kept with each task: appended in `save`, read with `events`.

use a2a_server::store::{Expected, StoreError, TaskScope, TaskStore};
use a2a_store_sql::SqlStore;
use a2a_types::{StreamResponse, TaskId, TaskState, TaskStatus, TaskStatusUpdateEvent};

use crate::support::{Database, on_both, task, unique};

fn status_event(id: &TaskId, n: usize) -> StreamResponse {
    let mut status = TaskStatus::new(TaskState::Working);
    status.message = Some(a2a_types::Message::agent_text(format!("step {n}")));
    // No timestamp: the wire keeps milliseconds, so a stored copy would compare unequal.
    status.timestamp = None;
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id: id.clone(),
        context_id: a2a_types::ContextId::new("context"),
        status,
        metadata: None,
    })
}

fn events(id: &TaskId, range: std::ops::Range<usize>) -> Vec<StreamResponse> {
    range.map(|n| status_event(id, n)).collect()
}

async fn sequences(store: &SqlStore, scope: &TaskScope, id: &TaskId, after: u64) -> Vec<u64> {
    store
        .events(scope, id, after, usize::MAX)
        .await
        .unwrap()
        .unwrap()
        .iter()
        .map(|event| event.sequence)
        .collect()
}

#[tokio::test]
async fn a_save_of_more_events_than_one_statement_holds_keeps_them_all_in_order() {
    on_both(async |database: &Database| {
        let store = database.store().await;
        let scope = TaskScope::tenant("acme");
        let task = task(&unique("t"), TaskState::Working);
        let many = events(&task.id, 0..250);
        let saved = store
            .save(&scope, &task, Expected::Absent, &many)
            .await
            .unwrap();
        assert_eq!(saved.last_sequence, 250);
        let more = events(&task.id, 250..253);
        let saved = store
            .save(&scope, &task, Expected::Version(saved.version), &more)
            .await
            .unwrap();
        assert_eq!(saved.last_sequence, 253);

        let logged = store
            .events(&scope, &task.id, 0, usize::MAX)
            .await
            .unwrap()
            .unwrap();
        let expected: Vec<(u64, StreamResponse)> =
            (1..=253).zip(many.into_iter().chain(more)).collect();
        let got: Vec<(u64, StreamResponse)> = logged
            .into_iter()
            .map(|event| (event.sequence, event.response))
            .collect();
        assert_eq!(got.len(), expected.len());
        assert!(got == expected, "the log is not the events saved, in order");
        let stored = store.load(&scope, &task.id).await.unwrap().unwrap();
        assert_eq!(stored.last_sequence, 253);
    })
    .await;
}

#[tokio::test]
async fn events_reads_a_window_of_the_log() {
    on_both(async |database: &Database| {
        let store = database.store().await;
        let scope = TaskScope::tenant("acme").with_owner("alice");
        let task = task(&unique("t"), TaskState::Working);
        store
            .save(&scope, &task, Expected::Absent, &events(&task.id, 0..10))
            .await
            .unwrap();

        let window = store.events(&scope, &task.id, 3, 4).await.unwrap().unwrap();
        let window: Vec<u64> = window.iter().map(|event| event.sequence).collect();
        assert_eq!(window, [4, 5, 6, 7]);
        assert_eq!(sequences(&store, &scope, &task.id, 10).await, [0_u64; 0]);
        assert_eq!(sequences(&store, &scope, &task.id, 99).await, [0_u64; 0]);
        assert_eq!(
            store.events(&scope, &task.id, 0, 0).await.unwrap(),
            Some(Vec::new()),
            "a limit of 0 reads nothing from a task that exists"
        );
        assert_eq!(
            store
                .events(&TaskScope::tenant("acme"), &task.id, 0, 10)
                .await
                .unwrap(),
            None,
            "another owner sees no task"
        );
        assert_eq!(
            store
                .events(&scope, &TaskId::new(unique("missing")), 0, 0)
                .await
                .unwrap(),
            None
        );
    })
    .await;
}

#[tokio::test]
async fn a_refused_save_appends_no_event() {
    on_both(async |database: &Database| {
        let store = database.store().await;
        let scope = TaskScope::tenant("acme");
        let task = task(&unique("t"), TaskState::Working);
        let first = store
            .save(&scope, &task, Expected::Absent, &events(&task.id, 0..2))
            .await
            .unwrap();
        let second = store
            .save(
                &scope,
                &task,
                Expected::Version(first.version),
                &events(&task.id, 2..3),
            )
            .await
            .unwrap();

        let stale = store
            .save(
                &scope,
                &task,
                Expected::Version(first.version),
                &events(&task.id, 3..5),
            )
            .await;
        assert!(
            matches!(stale, Err(StoreError::Conflict { .. })),
            "{stale:?}"
        );
        let again = store
            .save(&scope, &task, Expected::Absent, &events(&task.id, 3..5))
            .await;
        assert!(
            matches!(again, Err(StoreError::Conflict { .. })),
            "{again:?}"
        );
        let elsewhere = store
            .save(
                &TaskScope::tenant("globex"),
                &task,
                Expected::Version(second.version),
                &events(&task.id, 3..5),
            )
            .await;
        assert!(
            matches!(elsewhere, Err(StoreError::NotFound { .. })),
            "{elsewhere:?}"
        );

        assert_eq!(sequences(&store, &scope, &task.id, 0).await, [1, 2, 3]);
        let stored = store.load(&scope, &task.id).await.unwrap().unwrap();
        assert_eq!(stored.last_sequence, 3);
        assert_eq!(stored.version, second.version);
    })
    .await;
}

#[tokio::test]
async fn the_log_survives_a_restart() {
    let database = Database::sqlite();
    let scope = TaskScope::tenant("acme");
    let task = task("t", TaskState::Working);
    {
        let store = database.store().await;
        store
            .save(&scope, &task, Expected::Absent, &events(&task.id, 0..3))
            .await
            .unwrap();
        store.close().await;
    }
    let store = database.store().await;
    assert_eq!(sequences(&store, &scope, &task.id, 0).await, [1, 2, 3]);
    assert_eq!(
        store.load(&scope, &task.id).await.unwrap().unwrap().task,
        task
    );
}
