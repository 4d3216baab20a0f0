//! [`TaskQuery`] and [`TaskPage`]: what `TaskStore::list` takes and returns.

use a2a_types::{ContextId, Task, TaskId, TaskState, Timestamp};

/// Filters and paging for [`TaskStore::list`](super::TaskStore::list). Validation (page size
/// range, opaque page tokens) is the handler's job: a store gets checked values.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskQuery {
    /// Only tasks of this context.
    pub context_id: Option<ContextId>,
    /// Only tasks in one of these states; empty means every state.
    pub states: Vec<TaskState>,
    /// Only tasks whose status timestamp is at or after this instant (inclusive, although the
    /// field's name says "after").
    pub status_timestamp_after: Option<Timestamp>,
    /// At most this many tasks (at least 1).
    pub page_size: usize,
    /// Start after this position of the ordering; `None` for the first page.
    pub after: Option<TaskCursor>,
}

impl Default for TaskQuery {
    fn default() -> Self {
        Self {
            context_id: None,
            states: Vec::new(),
            status_timestamp_after: None,
            page_size: 50,
            after: None,
        }
    }
}

impl TaskQuery {
    /// True when `task` passes the filters (paging aside).
    #[must_use]
    pub fn matches(&self, task: &Task) -> bool {
        self.matches_fields(
            &task.context_id,
            task.status.state,
            task.status.timestamp.as_ref(),
        )
    }

    /// [`TaskQuery::matches`] on the three fields the filters read, for stores that keep
    /// them apart from the task.
    #[must_use]
    pub fn matches_fields(
        &self,
        context_id: &ContextId,
        state: TaskState,
        timestamp: Option<&Timestamp>,
    ) -> bool {
        self.matches_parts(context_id.as_str(), state, timestamp)
    }

    /// [`TaskQuery::matches_fields`] with the context id as text.
    pub(crate) fn matches_parts(
        &self,
        context_id: &str,
        state: TaskState,
        timestamp: Option<&Timestamp>,
    ) -> bool {
        self.context_id
            .as_ref()
            .is_none_or(|context| context_id == context.as_str())
            && (self.states.is_empty() || self.states.contains(&state))
            && self
                .status_timestamp_after
                .as_ref()
                .is_none_or(|after| timestamp.is_some_and(|timestamp| timestamp >= after))
    }
}

/// A position in the list order (status timestamp descending, then task id descending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCursor {
    /// The status timestamp of the last task returned, in Unix milliseconds (tasks without a
    /// timestamp sort as 0).
    pub timestamp_millis: i64,
    /// The id of the last task returned.
    pub task_id: TaskId,
}

impl TaskCursor {
    /// The cursor that points at `task`.
    #[must_use]
    pub fn of(task: &Task) -> Self {
        Self {
            timestamp_millis: sort_millis(task),
            task_id: task.id.clone(),
        }
    }

    /// True when `task` comes after this cursor in the list order.
    #[must_use]
    pub fn precedes(&self, task: &Task) -> bool {
        self.precedes_key(sort_millis(task), &task.id)
    }

    /// [`TaskCursor::precedes`] on a task's list-order key (status timestamp in Unix
    /// milliseconds, 0 without one; task id).
    #[must_use]
    pub fn precedes_key(&self, timestamp_millis: i64, task_id: &TaskId) -> bool {
        self.precedes_parts(timestamp_millis, task_id.as_str())
    }

    /// [`TaskCursor::precedes_key`] with the task id as text.
    pub(crate) fn precedes_parts(&self, timestamp_millis: i64, task_id: &str) -> bool {
        timestamp_millis < self.timestamp_millis
            || (timestamp_millis == self.timestamp_millis && task_id < self.task_id.as_str())
    }
}

/// The list-order key of a task.
#[must_use]
pub(crate) fn sort_millis(task: &Task) -> i64 {
    task.status
        .timestamp
        .as_ref()
        .map_or(0, Timestamp::unix_millis)
}

/// One page of [`TaskStore::list`](super::TaskStore::list).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskPage {
    /// The tasks, in list order.
    pub tasks: Vec<Task>,
    /// How many tasks match the filters in all pages.
    pub total_size: usize,
    /// The cursor of the next page, `None` on the last page.
    pub next: Option<TaskCursor>,
}
