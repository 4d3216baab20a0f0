use a2a_types::{ContextId, StreamResponse, Task, TaskId, TaskState};
use tokio::time::advance;

use super::*;
use crate::store::{Expected, StoreError, StoredTask, TaskPage, TaskQuery, TaskStore, Version};

const HOUR: Duration = Duration::from_secs(60 * 60);
const MILLISECOND: Duration = Duration::from_millis(1);

fn scope() -> TaskScope {
    TaskScope::tenant("acme").with_owner("alice")
}

fn task(id: &str, state: TaskState) -> Task {
    Task::new(TaskId::new(id), ContextId::new("context"), state)
}

fn store_with(completed_task_ttl: Duration, max_stored_tasks: usize) -> InMemoryTaskStore {
    InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
        completed_task_ttl,
        max_stored_tasks,
        ..InMemoryTaskStoreConfig::default()
    })
}

fn status(task: &Task) -> StreamResponse {
    StreamResponse::StatusUpdate(a2a_types::TaskStatusUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: task.status.clone(),
        metadata: None,
    })
}

/// Saves a task through WORKING (two events) to COMPLETED (one event).
async fn finish_with_three_events(store: &InMemoryTaskStore) -> Task {
    let working = task("t", TaskState::Working);
    let saved = store
        .save(
            &scope(),
            &working,
            Expected::Absent,
            &[StreamResponse::Task(working.clone()), status(&working)],
        )
        .await
        .unwrap();
    let done = task("t", TaskState::Completed);
    let saved = store
        .save(
            &scope(),
            &done,
            Expected::Version(saved.version),
            &[status(&done)],
        )
        .await
        .unwrap();
    assert_eq!(saved.last_sequence, 3);
    done
}

#[tokio::test]
async fn a_finished_tasks_log_is_compacted_to_its_final_status() {
    let store = InMemoryTaskStore::new();
    let done = finish_with_three_events(&store).await;
    let id = TaskId::new("t");
    let stored = store.load(&scope(), &id).await.unwrap().unwrap();
    assert_eq!(stored.last_sequence, 3);
    let after_one = store.events(&scope(), &id, 1, 10).await.unwrap().unwrap();
    assert_eq!(after_one.len(), 1, "only the final event is left");
    assert_eq!(after_one[0].sequence, 3);
    // Compared as JSON: the wire keeps timestamps to the millisecond.
    assert_eq!(
        serde_json::to_value(&after_one[0].response).unwrap(),
        serde_json::to_value(status(&done)).unwrap()
    );
    assert!(
        store
            .events(&scope(), &id, 3, 10)
            .await
            .unwrap()
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .events(&scope(), &id, 0, 0)
            .await
            .unwrap()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn finished_logs_are_kept_whole_when_configured() {
    let store = InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
        keep_finished_event_logs: true,
        ..InMemoryTaskStoreConfig::default()
    });
    finish_with_three_events(&store).await;
    let all = store
        .events(&scope(), &TaskId::new("t"), 0, 10)
        .await
        .unwrap()
        .unwrap();
    let sequences: Vec<u64> = all.iter().map(|event| event.sequence).collect();
    assert_eq!(sequences, [1, 2, 3]);
}

/// Saves task `id` in `state`, without events; the new version or the refusal.
async fn save(
    store: &InMemoryTaskStore,
    id: &str,
    state: TaskState,
    expected: Expected,
) -> Result<Version, StoreError> {
    let saved = store.save(&scope(), &task(id, state), expected, &[]).await;
    saved.map(|saved| saved.version)
}

async fn create(store: &InMemoryTaskStore, id: &str, state: TaskState) -> Version {
    save(store, id, state, Expected::Absent).await.unwrap()
}

/// Task `id`, which must be there.
async fn stored(store: &InMemoryTaskStore, id: &str) -> StoredTask {
    let loaded = store.load(&scope(), &TaskId::new(id)).await.unwrap();
    loaded.unwrap_or_else(|| panic!("task {id} is not stored"))
}

async fn move_to(store: &InMemoryTaskStore, id: &str, state: TaskState) {
    let version = stored(store, id).await.version;
    save(store, id, state, Expected::Version(version))
        .await
        .unwrap();
}

async fn loadable(store: &InMemoryTaskStore, id: &str) -> bool {
    store
        .load(&scope(), &TaskId::new(id))
        .await
        .unwrap()
        .is_some()
}

/// Whether the store still holds `id`, without the eviction a read would do.
fn holds(store: &InMemoryTaskStore, id: &str) -> bool {
    store.lock().get(id).is_some()
}

fn held(store: &InMemoryTaskStore) -> usize {
    store.lock().by_id.len()
}

async fn listed(store: &InMemoryTaskStore) -> TaskPage {
    store.list(&scope(), &TaskQuery::default()).await.unwrap()
}

#[test]
fn defaults_follow_sto_06_and_sto_07() {
    let config = InMemoryTaskStoreConfig::default();
    assert_eq!(config.completed_task_ttl, Duration::from_millis(3_600_000));
    assert_eq!(config.max_stored_tasks, 10_000);
    assert_eq!(InMemoryTaskStore::default().config(), &config);
}

#[tokio::test(start_paused = true)]
async fn a_terminal_task_expires_one_ttl_after_it_became_terminal() {
    let store = InMemoryTaskStore::new();
    create(&store, "t", TaskState::Working).await;
    advance(HOUR / 2).await;
    move_to(&store, "t", TaskState::Completed).await;

    advance(HOUR - MILLISECOND).await;
    assert!(loadable(&store, "t").await);
    assert_eq!(listed(&store).await.total_size, 1);

    advance(MILLISECOND).await;
    assert!(!loadable(&store, "t").await);
    assert!(!holds(&store, "t"), "the read evicts the expired task");
    let page = listed(&store).await;
    assert!(page.tasks.is_empty());
    assert_eq!(page.total_size, 0);
}

#[tokio::test(start_paused = true)]
async fn list_leaves_out_and_evicts_expired_tasks() {
    let store = InMemoryTaskStore::new();
    create(&store, "done", TaskState::Failed).await;
    create(&store, "running", TaskState::Working).await;
    advance(HOUR).await;

    let page = listed(&store).await;
    let ids: Vec<_> = page.tasks.iter().map(|task| task.id.as_str()).collect();
    assert_eq!(ids, ["running"]);
    assert_eq!(page.total_size, 1);
    assert!(!holds(&store, "done"));
}

#[tokio::test(start_paused = true)]
async fn tasks_that_are_not_terminal_never_expire() {
    let store = InMemoryTaskStore::new();
    for (id, state) in [
        ("submitted", TaskState::Submitted),
        ("working", TaskState::Working),
        ("input", TaskState::InputRequired),
        ("auth", TaskState::AuthRequired),
    ] {
        create(&store, id, state).await;
    }
    advance(HOUR * 24 * 365).await;
    for id in ["submitted", "working", "input", "auth"] {
        assert!(loadable(&store, id).await, "{id}");
    }
}

#[tokio::test(start_paused = true)]
async fn every_terminal_state_expires() {
    let store = InMemoryTaskStore::new();
    for (id, state) in [
        ("completed", TaskState::Completed),
        ("failed", TaskState::Failed),
        ("canceled", TaskState::Canceled),
        ("rejected", TaskState::Rejected),
    ] {
        create(&store, id, state).await;
    }
    advance(HOUR).await;
    for id in ["completed", "failed", "canceled", "rejected"] {
        assert!(!loadable(&store, id).await, "{id}");
    }
}

#[tokio::test(start_paused = true)]
async fn saving_a_terminal_task_again_does_not_extend_its_life() {
    let store = InMemoryTaskStore::new();
    create(&store, "t", TaskState::Completed).await;
    advance(HOUR / 2).await;
    move_to(&store, "t", TaskState::Canceled).await;
    advance(HOUR / 2).await;
    assert!(!loadable(&store, "t").await);
}

#[tokio::test(start_paused = true)]
async fn an_expired_task_can_be_created_again_with_a_greater_version() {
    let store = InMemoryTaskStore::new();
    let first = create(&store, "t", TaskState::Completed).await;
    advance(HOUR).await;
    let second = create(&store, "t", TaskState::Working).await;
    assert!(second > first);
    let stored = stored(&store, "t").await;
    assert_eq!(stored.task.status.state, TaskState::Working);
}

#[tokio::test(start_paused = true)]
async fn saving_an_expired_task_by_version_is_not_found() {
    let store = InMemoryTaskStore::new();
    let version = create(&store, "t", TaskState::Completed).await;
    advance(HOUR).await;
    let result = save(
        &store,
        "t",
        TaskState::Completed,
        Expected::Version(version),
    )
    .await;
    assert!(
        matches!(result, Err(StoreError::NotFound { .. })),
        "{result:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_cleanup_pass_evicts_expired_tasks_every_100_saves() {
    let store = InMemoryTaskStore::new();
    create(&store, "old", TaskState::Completed).await;
    advance(HOUR).await;
    for n in 2..CLEANUP_INTERVAL {
        create(&store, &format!("t{n}"), TaskState::Working).await;
    }
    assert!(holds(&store, "old"), "99 saves: no cleanup yet");

    create(&store, "t100", TaskState::Working).await;
    assert!(!holds(&store, "old"), "the 100th save runs the cleanup");
    assert_eq!(held(&store), 99);
}

#[tokio::test(start_paused = true)]
async fn the_cleanup_pass_runs_every_configured_number_of_saves() {
    let store = InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
        cleanup_interval: 3,
        ..InMemoryTaskStoreConfig::default()
    });
    create(&store, "old", TaskState::Completed).await;
    advance(HOUR).await;
    create(&store, "t2", TaskState::Working).await;
    assert!(holds(&store, "old"), "2 saves: no cleanup yet");
    create(&store, "t3", TaskState::Working).await;
    assert!(!holds(&store, "old"), "the 3rd save runs the cleanup");

    let every_save = InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
        cleanup_interval: 0,
        ..InMemoryTaskStoreConfig::default()
    });
    create(&every_save, "old", TaskState::Completed).await;
    advance(HOUR).await;
    create(&every_save, "t2", TaskState::Working).await;
    assert!(
        !holds(&every_save, "old"),
        "0 runs the cleanup after every save"
    );
}

#[tokio::test(start_paused = true)]
async fn a_zero_ttl_keeps_terminal_tasks() {
    let store = store_with(Duration::ZERO, 0);
    create(&store, "t", TaskState::Completed).await;
    advance(HOUR * 24 * 365).await;
    assert!(loadable(&store, "t").await);
}

#[tokio::test(start_paused = true)]
async fn a_full_store_evicts_the_task_that_became_terminal_first() {
    let store = store_with(HOUR, 3);
    create(&store, "a", TaskState::Working).await;
    advance(MILLISECOND).await;
    create(&store, "b", TaskState::Completed).await;
    advance(MILLISECOND).await;
    // Created first but terminal last: the order is by the time of becoming terminal.
    move_to(&store, "a", TaskState::Failed).await;
    create(&store, "c", TaskState::Working).await;

    create(&store, "d", TaskState::Working).await;
    assert!(!holds(&store, "b"));
    assert!(holds(&store, "a"));
    assert_eq!(held(&store), 3);

    create(&store, "e", TaskState::Working).await;
    assert!(!holds(&store, "a"));
    assert_eq!(held(&store), 3);
}

#[tokio::test(start_paused = true)]
async fn tasks_that_became_terminal_at_the_same_instant_are_evicted_in_save_order() {
    let store = store_with(HOUR, 3);
    create(&store, "z", TaskState::Completed).await;
    create(&store, "y", TaskState::Completed).await;
    create(&store, "x", TaskState::Completed).await;

    create(&store, "w", TaskState::Working).await;
    assert!(!holds(&store, "z"));
    create(&store, "v", TaskState::Working).await;
    assert!(!holds(&store, "y"));
    assert!(holds(&store, "x"));
}

#[tokio::test]
async fn nothing_is_evicted_when_no_task_is_terminal() {
    let store = store_with(HOUR, 2);
    for id in ["a", "b", "c", "d"] {
        create(&store, id, TaskState::Working).await;
    }
    assert_eq!(held(&store), 4, "the store goes over the cap");
    for id in ["a", "b", "c", "d"] {
        assert!(loadable(&store, id).await, "{id}");
    }
}

#[tokio::test]
async fn an_over_full_store_shrinks_to_the_cap_once_tasks_are_terminal() {
    let store = store_with(HOUR, 2);
    for id in ["a", "b", "c"] {
        create(&store, id, TaskState::Working).await;
    }
    move_to(&store, "b", TaskState::Completed).await;
    move_to(&store, "a", TaskState::Completed).await;

    create(&store, "d", TaskState::Working).await;
    assert!(!holds(&store, "a"));
    assert!(!holds(&store, "b"));
    assert_eq!(held(&store), 2);
}

#[tokio::test]
async fn saving_an_existing_task_in_a_full_store_evicts_nothing() {
    let store = store_with(HOUR, 2);
    create(&store, "a", TaskState::Completed).await;
    create(&store, "b", TaskState::Working).await;
    move_to(&store, "b", TaskState::Completed).await;
    assert!(holds(&store, "a"));
    assert_eq!(held(&store), 2);
}

#[tokio::test]
async fn a_zero_cap_means_unlimited() {
    let store = store_with(HOUR, 0);
    for n in 0..50 {
        create(&store, &format!("t{n}"), TaskState::Completed).await;
    }
    assert_eq!(held(&store), 50);
}

#[tokio::test]
async fn a_failed_save_does_not_count_toward_the_cap() {
    let store = store_with(HOUR, 2);
    create(&store, "a", TaskState::Completed).await;
    create(&store, "b", TaskState::Working).await;
    let result = save(&store, "b", TaskState::Working, Expected::Absent).await;
    assert!(
        matches!(result, Err(StoreError::Conflict { .. })),
        "{result:?}"
    );
    assert!(holds(&store, "a"), "a conflicting create evicts nothing");
}

#[test]
fn debug_shows_the_settings_and_the_number_of_tasks() {
    let text = format!("{:?}", InMemoryTaskStore::new());
    assert!(text.contains("max_stored_tasks: 10000"), "{text}");
    assert!(text.contains("stored_tasks: 0"), "{text}");
}

#[tokio::test]
async fn stuck_tasks_are_the_submitted_and_working_ones_older_than_the_ttl_of_any_scope() {
    let store = InMemoryTaskStore::new();
    let minute_ago = a2a_types::Timestamp::parse("2026-01-01T00:00:00Z").unwrap();
    let now = a2a_types::Timestamp::parse("2026-01-01T00:01:00Z").unwrap();
    for (id, state, scope) in [
        ("working", TaskState::Working, scope()),
        ("submitted", TaskState::Submitted, TaskScope::default()),
        ("input", TaskState::InputRequired, scope()),
        ("auth", TaskState::AuthRequired, scope()),
        ("done", TaskState::Completed, scope()),
    ] {
        let mut old = task(id, state);
        old.status.timestamp = Some(minute_ago);
        store
            .save(&scope, &old, Expected::Absent, &[])
            .await
            .unwrap();
    }
    let mut fresh = task("fresh", TaskState::Working);
    fresh.status.timestamp = Some(now);
    store
        .save(&scope(), &fresh, Expected::Absent, &[])
        .await
        .unwrap();
    let mut unstamped = task("unstamped", TaskState::Working);
    unstamped.status.timestamp = None;
    store
        .save(&scope(), &unstamped, Expected::Absent, &[])
        .await
        .unwrap();

    let mut stuck = store
        .stuck_tasks(&now, Duration::from_secs(30), 100)
        .await
        .unwrap();
    stuck.sort();
    assert_eq!(
        stuck,
        vec![
            (TaskScope::default(), TaskId::new("submitted")),
            (scope(), TaskId::new("working")),
        ]
    );
    let none = store
        .stuck_tasks(&now, Duration::from_secs(60), 100)
        .await
        .unwrap();
    assert!(none.is_empty(), "not older than the TTL: {none:?}");
    let one = store
        .stuck_tasks(&now, Duration::from_secs(30), 1)
        .await
        .unwrap();
    assert_eq!(one.len(), 1, "the limit holds");
}

/// Ids JSON escapes are kept before the JSON rather than found in it; an empty context
/// is left out of the JSON. Either way the task is found, listed and filtered by them.
#[tokio::test]
async fn ids_that_json_escapes_and_empty_contexts_are_found_and_filtered_on() {
    let store = InMemoryTaskStore::new();
    let odd = Task::new(
        TaskId::new("t\"1\\"),
        ContextId::new("c\n\"2"),
        TaskState::Working,
    );
    let plain = Task::new(
        TaskId::new("t-2"),
        ContextId::new("c-2"),
        TaskState::Working,
    );
    let bare = Task::new(TaskId::new("t-3"), ContextId::new(""), TaskState::Working);
    for task in [&odd, &plain, &bare] {
        store
            .save(&scope(), task, Expected::Absent, &[])
            .await
            .unwrap();
    }
    {
        let tasks = store.lock();
        let spans = |id: &str| tasks.get(id).map(|entry| entry.spans.before);
        assert_eq!(spans("t\"1\\"), Some(true));
        assert_eq!(spans("t-2"), Some(false));
        assert_eq!(spans("t-3"), Some(false));
        assert_eq!(tasks.get("t\"1\\").map(Entry::context_id), Some("c\n\"2"));
        assert_eq!(tasks.get("t-3").map(Entry::context_id), Some(""));
    }
    for task in [&odd, &plain, &bare] {
        let loaded = stored(&store, task.id.as_str()).await.task;
        assert_eq!(
            (&loaded.id, &loaded.context_id),
            (&task.id, &task.context_id)
        );
        assert_eq!(
            store.locate(&task.id).await.unwrap(),
            Some(scope()),
            "{}",
            task.id
        );
    }
    for context in ["c\n\"2", "c-2", ""] {
        let query = TaskQuery {
            context_id: Some(ContextId::new(context)),
            ..TaskQuery::default()
        };
        let page = store.list(&scope(), &query).await.unwrap();
        let ids: Vec<_> = page.tasks.iter().map(|task| task.id.as_str()).collect();
        let expected: Vec<_> = [&odd, &plain, &bare]
            .iter()
            .filter(|task| task.context_id.as_str() == context)
            .map(|task| task.id.as_str())
            .collect();
        assert_eq!(ids, expected, "context {context:?}");
    }
}

/// A stored finished task costs one small entry beside its JSON: the entry is kept small
/// enough for the allocator's 160-byte class.
#[test]
fn an_entry_fits_in_160_bytes() {
    assert!(
        std::mem::size_of::<Entry>() <= 160,
        "{}",
        std::mem::size_of::<Entry>()
    );
}
