//! One running check, which names itself in every failure, and the sizes of the races.

use std::error::Error;
use std::fmt::{self, Debug, Display};

use a2a_types::{
    Artifact, ContextId, Message, PushConfigId, StreamResponse, Task, TaskArtifactUpdateEvent,
    TaskId, TaskPushNotificationConfig, TaskState, TaskStatus, TaskStatusUpdateEvent,
};

use super::fixtures::timestamp;
use crate::store::{
    Expected, PushConfigStore, Saved, StoreError, StoredTask, TaskEvent, TaskPage, TaskQuery,
    TaskScope, TaskStore, Version,
};

/// How many tokio tasks race in each round of the concurrency checks.
pub const RACERS: usize = 16;

/// How many rounds the concurrency checks race.
pub const ROUNDS: usize = 20;

/// Saves and returns the new version, or the store's refusal.
pub(super) async fn save_version(
    store: &dyn TaskStore,
    scope: &TaskScope,
    task: &Task,
    expected: Expected,
    events: &[StreamResponse],
) -> Result<Version, StoreError> {
    store
        .save(scope, task, expected, events)
        .await
        .map(|saved| saved.version)
}

/// Numbers logged events from 1, as the store numbers them.
pub(super) fn numbered(logged: Vec<StreamResponse>) -> Vec<TaskEvent> {
    (1..)
        .zip(logged)
        .map(|(sequence, response)| TaskEvent { sequence, response })
        .collect()
}

/// One running check: names it in every failure, and gives it task ids and tenants of its
/// own so that checks cannot see each other's tasks even in a shared database.
pub(super) struct Check {
    name: &'static str,
    pub(super) prefix: String,
}

impl Check {
    pub(super) fn new(name: &'static str) -> Self {
        Self {
            name,
            prefix: uuid::Uuid::new_v4().simple().to_string(),
        }
    }

    #[track_caller]
    pub(super) fn fail(&self, what: impl Display) -> ! {
        panic!(
            "task store conformance check `{}` failed: {what}",
            self.name
        )
    }

    #[track_caller]
    pub(super) fn ensure(&self, condition: bool, what: impl Display) {
        if !condition {
            self.fail(what);
        }
    }

    #[track_caller]
    pub(super) fn ensure_eq<T: PartialEq + Debug>(
        &self,
        actual: &T,
        expected: &T,
        what: impl Display,
    ) {
        if actual != expected {
            self.fail(format!(
                "{what}\n  expected: {expected:?}\n    actual: {actual:?}"
            ));
        }
    }

    #[track_caller]
    pub(super) fn ok<T>(&self, result: Result<T, StoreError>, what: impl Display) -> T {
        match result {
            Ok(value) => value,
            Err(err) => self.fail(format!("{what}: unexpected error: {}", Chain(&err))),
        }
    }

    #[track_caller]
    pub(super) fn expect_conflict(
        &self,
        result: Result<Version, StoreError>,
        id: &TaskId,
        what: impl Display,
    ) {
        self.expect_refusal(result, id, what, "Conflict");
    }

    #[track_caller]
    pub(super) fn expect_not_found(
        &self,
        result: Result<Version, StoreError>,
        id: &TaskId,
        what: impl Display,
    ) {
        self.expect_refusal(result, id, what, "NotFound");
    }

    /// Checks that a save failed with the `expected` variant naming task `id`.
    #[track_caller]
    pub(super) fn expect_refusal(
        &self,
        result: Result<Version, StoreError>,
        id: &TaskId,
        what: impl Display,
        expected: &str,
    ) {
        match result {
            Err(StoreError::Conflict { task_id }) if expected == "Conflict" => {
                self.ensure_eq(&task_id, id, format!("{what}: the task {expected} names"));
            }
            Err(StoreError::NotFound { task_id }) if expected == "NotFound" => {
                self.ensure_eq(&task_id, id, format!("{what}: the task {expected} names"));
            }
            Ok(version) => self.fail(format!("{what}: saved as {version:?}, expected {expected}")),
            Err(err) => self.fail(format!("{what}: {}, expected {expected}", Chain(&err))),
        }
    }

    /// Checks that exactly one racer won and every other one conflicted; returns the
    /// winner's revision and version.
    #[track_caller]
    pub(super) fn single_winner(
        &self,
        results: Vec<(usize, Result<Version, StoreError>)>,
        id: &TaskId,
        what: &str,
    ) -> (usize, Version) {
        let mut winners = Vec::new();
        for (revision, result) in results {
            match result {
                Ok(version) => winners.push((revision, version)),
                Err(StoreError::Conflict { task_id }) => {
                    self.ensure_eq(&task_id, id, "the task a racing conflict names");
                }
                Err(err) => self.fail(format!(
                    "{what} revision {revision}: {}, expected success or Conflict",
                    Chain(&err)
                )),
            }
        }
        match winners.as_slice() {
            [winner] => *winner,
            _ => self.fail(format!(
                "{RACERS} racers {what} on one version: {} won {winners:?}, expected exactly one",
                winners.len()
            )),
        }
    }

    /// Saves and expects success.
    pub(super) async fn save(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        task: &Task,
        expected: Expected,
        events: &[StreamResponse],
        what: impl Display,
    ) -> Saved {
        self.ok(
            store.save(scope, task, expected, events).await,
            format_args!("{what} (task {})", task.id),
        )
    }

    /// Creates `task` with `events` and expects success.
    pub(super) async fn create_with(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        task: &Task,
        events: &[StreamResponse],
        what: impl Display,
    ) -> Saved {
        self.save(store, scope, task, Expected::Absent, events, what)
            .await
    }

    /// Saves `task` over `version` with `events` and expects success.
    pub(super) async fn update(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        task: &Task,
        version: Version,
        events: &[StreamResponse],
        what: impl Display,
    ) -> Saved {
        self.save(store, scope, task, Expected::Version(version), events, what)
            .await
    }

    /// Loads and expects the task to be there.
    pub(super) async fn load(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        id: &TaskId,
        what: impl Display,
    ) -> StoredTask {
        let loaded = self.ok(
            store.load(scope, id).await,
            format_args!("loading task {id} {what}"),
        );
        match loaded {
            Some(stored) => stored,
            None => self.fail(format!("loading task {id} {what}: not found")),
        }
    }

    /// Events of `task` numbered `range`: status and artifact updates alternating, told
    /// apart by their text.
    pub(super) fn events(task: &Task, range: std::ops::Range<usize>) -> Vec<StreamResponse> {
        range
            .map(|n| {
                if n % 2 == 0 {
                    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                        task_id: task.id.clone(),
                        context_id: task.context_id.clone(),
                        status: TaskStatus {
                            state: TaskState::Working,
                            message: Some(Message::agent_text(format!("step {n}"))),
                            timestamp: Some(timestamp("2025-01-01T10:00:00.123Z")),
                        },
                        metadata: None,
                    })
                } else {
                    StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                        task_id: task.id.clone(),
                        context_id: task.context_id.clone(),
                        artifact: Artifact::from_text(format!("chunk {n}")).with_id("out"),
                        append: n > 1,
                        last_chunk: false,
                        metadata: None,
                    })
                }
            })
            .collect()
    }

    /// Loads task `id` and checks its last sequence number; returns what was loaded.
    pub(super) async fn expect_last_sequence(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        id: &TaskId,
        expected: u64,
        what: impl Display,
    ) -> StoredTask {
        let stored = self.load(store, scope, id, &what).await;
        self.ensure_eq(
            &stored.last_sequence,
            &expected,
            format_args!("last sequence loaded {what}"),
        );
        stored
    }

    /// Checks that `events` finds no task `id` under `scope`.
    pub(super) async fn expect_no_events(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        id: &TaskId,
        what: impl Display,
    ) {
        let found = self.ok(
            store.events(scope, id, 0, 10).await,
            format_args!("reading the events {what}"),
        );
        self.ensure_eq(&found, &None, format_args!("the events {what}"));
    }

    /// Checks the whole event log of task `id`.
    pub(super) async fn expect_log(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        id: &TaskId,
        expected: &[TaskEvent],
        what: impl Display,
    ) {
        self.expect_events(store, scope, id, (0, usize::MAX), expected, what)
            .await;
    }

    /// Checks `events(after, limit)` for `window` = `(after, limit)`.
    pub(super) async fn expect_events(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        id: &TaskId,
        (after, limit): (u64, usize),
        expected: &[TaskEvent],
        what: impl Display,
    ) {
        let found = self.ok(
            store.events(scope, id, after, limit).await,
            format_args!("reading the events of task {id}: {what}"),
        );
        let Some(found) = found else {
            self.fail(format!("reading the events of task {id}: {what}: no task"));
        };
        let sequences: Vec<u64> = found.iter().map(|event| event.sequence).collect();
        let expected_sequences: Vec<u64> = expected.iter().map(|event| event.sequence).collect();
        self.ensure_eq(
            &sequences,
            &expected_sequences,
            format_args!("the sequence numbers of {what}"),
        );
        self.ensure_eq(
            &found.as_slice(),
            &expected,
            format_args!("the events of {what}"),
        );
    }

    pub(super) fn push_config(task_id: &TaskId, id: &str, url: &str) -> TaskPushNotificationConfig {
        let mut config = TaskPushNotificationConfig::new(url);
        config.id = Some(PushConfigId::new(id));
        config.task_id = Some(task_id.clone());
        config
    }

    pub(super) async fn save_config(
        &self,
        store: &dyn PushConfigStore,
        scope: &TaskScope,
        config: &TaskPushNotificationConfig,
        max_per_task: usize,
        what: impl Display,
    ) {
        let Some(task_id) = &config.task_id else {
            self.fail("the suite made a push config without a task id");
        };
        self.ok(
            store
                .save_push_config(scope, task_id, config, max_per_task, 0)
                .await,
            format_args!("{what}: saving push config {:?}", config.id),
        );
    }

    pub(super) async fn expect_config(
        &self,
        store: &dyn PushConfigStore,
        scope: &TaskScope,
        task_id: &TaskId,
        id: &str,
        expected: Option<&TaskPushNotificationConfig>,
        what: impl Display,
    ) {
        let found = self.ok(
            store
                .get_push_config(scope, task_id, &PushConfigId::new(id))
                .await,
            format_args!("getting push config {id}: {what}"),
        );
        self.ensure_eq(
            &found.as_ref(),
            &expected,
            format_args!("push config {id} of task {task_id}: {what}"),
        );
    }

    pub(super) async fn expect_configs(
        &self,
        store: &dyn PushConfigStore,
        scope: &TaskScope,
        task_id: &TaskId,
        expected: &[&TaskPushNotificationConfig],
        what: impl Display,
    ) {
        let found = self.ok(
            store.list_push_configs(scope, task_id).await,
            format_args!("listing the push configs of task {task_id}: {what}"),
        );
        let found: Vec<&TaskPushNotificationConfig> = found.iter().collect();
        self.ensure_eq(
            &found.as_slice(),
            &expected,
            format_args!("the push configs of task {task_id}: {what}"),
        );
    }

    pub(super) async fn create(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        task: &Task,
    ) -> Version {
        self.ok(
            save_version(store, scope, task, Expected::Absent, &[]).await,
            format!("creating task {}", task.id),
        )
    }

    pub(super) async fn list(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        query: &TaskQuery,
    ) -> TaskPage {
        self.ok(
            store.list(scope, query).await,
            format!("listing {scope:?} with {query:?}"),
        )
    }

    pub(super) async fn expect_stored(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        task: &Task,
        version: Version,
        what: impl Display,
    ) {
        let loaded = self.ok(
            store.load(scope, &task.id).await,
            format_args!("loading task {} {what}", task.id),
        );
        let Some(loaded) = loaded else {
            self.fail(format!("loading task {} {what}: not found", task.id));
        };
        let expected = StoredTask {
            task: task.clone(),
            version,
            // No check here saves events; the event-log checks look at sequences.
            last_sequence: loaded.last_sequence,
        };
        self.ensure_eq(
            &loaded,
            &expected,
            format_args!("loading task {} {what}", task.id),
        );
        self.ensure_eq(
            &self.json(&loaded.task),
            &self.json(task),
            format_args!("the JSON of task {} {what}", task.id),
        );
    }

    pub(super) async fn expect_absent(
        &self,
        store: &dyn TaskStore,
        scope: &TaskScope,
        id: &TaskId,
        what: impl Display,
    ) {
        let loaded = self.ok(
            store.load(scope, id).await,
            format_args!("loading task {id} {what}"),
        );
        if let Some(found) = loaded {
            self.fail(format!(
                "loading task {id} {what}: found {found:?}, expected None"
            ));
        }
    }

    #[track_caller]
    pub(super) fn expect_ids(&self, page: &TaskPage, expected: &[TaskId], what: impl Display) {
        let ids: Vec<&TaskId> = page.tasks.iter().map(|task| &task.id).collect();
        let expected: Vec<&TaskId> = expected.iter().collect();
        self.ensure_eq(&ids, &expected, format_args!("the tasks of {what}"));
    }

    #[track_caller]
    pub(super) fn json(&self, task: &Task) -> serde_json::Value {
        match serde_json::to_value(task) {
            Ok(value) => value,
            Err(err) => self.fail(format!("encoding task {}: {err}", task.id)),
        }
    }

    pub(super) fn id(&self, name: &str) -> TaskId {
        TaskId::new(format!("{}-{name}", self.prefix))
    }

    pub(super) fn ids(&self, names: &[&str]) -> Vec<TaskId> {
        names.iter().map(|name| self.id(name)).collect()
    }

    pub(super) fn scope(&self, tenant: &str, owner: Option<&str>) -> TaskScope {
        let scope = TaskScope::tenant(format!("{}-{tenant}", self.prefix));
        match owner {
            Some(owner) => scope.with_owner(owner),
            None => scope,
        }
    }

    /// A working task `name` with the suite's usual status timestamp.
    pub(super) fn working(&self, name: &str) -> Task {
        self.task_in(name, TaskState::Working)
    }

    /// A task `name` in `state` with the suite's usual status timestamp.
    pub(super) fn task_in(&self, name: &str, state: TaskState) -> Task {
        self.task(name, state, Some("2025-01-01T10:00:00.000Z"))
    }

    /// A task of context `context` with no artifacts, history or metadata.
    pub(super) fn task(&self, name: &str, state: TaskState, stamp: Option<&str>) -> Task {
        Task {
            id: self.id(name),
            context_id: ContextId::new("context"),
            status: TaskStatus {
                state,
                message: None,
                timestamp: stamp.map(timestamp),
            },
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
        }
    }
}

/// Formats an error with its chain of sources, which is where a backend's cause sits.
pub(super) struct Chain<'a>(pub(super) &'a StoreError);

impl Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}
