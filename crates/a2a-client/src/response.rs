//! [`ResponseExt`]: the task id, context id, state and kind of a result, whatever its shape.

use a2a_types::{ContextId, SendMessageResponse, StreamResponse, Task, TaskId, TaskState};

/// What kind of result a response is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResponseKind {
    /// A task (or task snapshot).
    Task,
    /// A direct message.
    Message,
    /// A task status update.
    StatusUpdate,
    /// A task artifact update.
    ArtifactUpdate,
}

/// Uniform accessors on results.
///
/// ```
/// use a2a_client::{ResponseExt, ResponseKind};
/// use a2a_types::{SendMessageResponse, Task, TaskState};
///
/// let answer = SendMessageResponse::Task(Task::new("t1".into(), "c1".into(), TaskState::Completed));
/// assert_eq!(answer.kind(), ResponseKind::Task);
/// assert_eq!(answer.state(), Some(TaskState::Completed));
/// assert_eq!(answer.context_id().map(|id| id.as_str()), Some("c1"));
/// ```
pub trait ResponseExt {
    /// The task this result belongs to, if any.
    fn task_id(&self) -> Option<&TaskId>;
    /// The context this result belongs to, if any.
    fn context_id(&self) -> Option<&ContextId>;
    /// The task state it carries, if any.
    fn state(&self) -> Option<TaskState>;
    /// Which kind of result it is.
    fn kind(&self) -> ResponseKind;
}

impl ResponseExt for SendMessageResponse {
    fn task_id(&self) -> Option<&TaskId> {
        match self {
            Self::Task(task) => Some(&task.id),
            Self::Message(message) => message.task_id.as_ref(),
        }
    }

    fn context_id(&self) -> Option<&ContextId> {
        match self {
            Self::Task(task) => non_empty(&task.context_id),
            Self::Message(message) => message.context_id.as_ref(),
        }
    }

    fn state(&self) -> Option<TaskState> {
        match self {
            Self::Task(task) => Some(task.status.state),
            Self::Message(_) => None,
        }
    }

    fn kind(&self) -> ResponseKind {
        match self {
            Self::Task(_) => ResponseKind::Task,
            Self::Message(_) => ResponseKind::Message,
        }
    }
}

impl ResponseExt for StreamResponse {
    fn task_id(&self) -> Option<&TaskId> {
        StreamResponse::task_id(self)
    }

    fn context_id(&self) -> Option<&ContextId> {
        match self {
            Self::Task(task) => non_empty(&task.context_id),
            Self::Message(message) => message.context_id.as_ref(),
            Self::StatusUpdate(event) => Some(&event.context_id),
            Self::ArtifactUpdate(event) => Some(&event.context_id),
        }
    }

    fn state(&self) -> Option<TaskState> {
        match self {
            Self::Task(task) => Some(task.status.state),
            Self::StatusUpdate(event) => Some(event.status.state),
            Self::Message(_) | Self::ArtifactUpdate(_) => None,
        }
    }

    fn kind(&self) -> ResponseKind {
        match self {
            Self::Task(_) => ResponseKind::Task,
            Self::Message(_) => ResponseKind::Message,
            Self::StatusUpdate(_) => ResponseKind::StatusUpdate,
            Self::ArtifactUpdate(_) => ResponseKind::ArtifactUpdate,
        }
    }
}

impl ResponseExt for Task {
    fn task_id(&self) -> Option<&TaskId> {
        Some(&self.id)
    }

    fn context_id(&self) -> Option<&ContextId> {
        non_empty(&self.context_id)
    }

    fn state(&self) -> Option<TaskState> {
        Some(self.status.state)
    }

    fn kind(&self) -> ResponseKind {
        ResponseKind::Task
    }
}

fn non_empty(id: &ContextId) -> Option<&ContextId> {
    (!id.is_empty()).then_some(id)
}
