//! [`Progress`]: what a command has learned about its task from the answers so far: ids,
//! the latest state and its message. It decides the exit code of `send` and `subscribe`,
//! and what `chat` sends next.

use a2a_types::{ContextId, Message, SendMessageResponse, StreamResponse, Task, TaskId, TaskState};

use crate::error::TaskEnded;

/// The latest known ids and state of one exchange.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Progress {
    /// The task, once the agent made one.
    pub(crate) task_id: Option<TaskId>,
    /// The conversation.
    pub(crate) context_id: Option<ContextId>,
    /// The task's latest state; `None` before any, and for a direct message reply.
    pub(crate) state: Option<TaskState>,
    /// The latest status message's text.
    pub(crate) status_text: String,
}

impl Progress {
    /// Takes in one stream event.
    pub(crate) fn observe(&mut self, event: &StreamResponse) {
        match event {
            StreamResponse::Task(task) => self.observe_task(task),
            StreamResponse::Message(message) => self.observe_message(message),
            StreamResponse::StatusUpdate(update) => {
                self.task_id = Some(update.task_id.clone());
                self.set_context(&update.context_id);
                self.state = Some(update.status.state);
                self.status_text = update.status.text();
            }
            StreamResponse::ArtifactUpdate(update) => {
                self.task_id = Some(update.task_id.clone());
                self.set_context(&update.context_id);
            }
        }
    }

    /// Takes in the answer to `SendMessage`.
    pub(crate) fn observe_response(&mut self, response: &SendMessageResponse) {
        match response {
            SendMessageResponse::Task(task) => self.observe_task(task),
            SendMessageResponse::Message(message) => self.observe_message(message),
        }
    }

    /// Takes in a task snapshot.
    pub(crate) fn observe_task(&mut self, task: &Task) {
        self.task_id = Some(task.id.clone());
        self.set_context(&task.context_id);
        self.state = Some(task.status.state);
        self.status_text = task.status.text();
    }

    fn observe_message(&mut self, message: &Message) {
        if let Some(context_id) = &message.context_id {
            self.set_context(context_id);
        }
        if let Some(task_id) = &message.task_id {
            self.task_id = Some(task_id.clone());
        }
    }

    fn set_context(&mut self, context_id: &ContextId) {
        if !context_id.is_empty() {
            self.context_id = Some(context_id.clone());
        }
    }

    /// `Err` when the task ended FAILED, REJECTED or CANCELED: the command then exits 1.
    pub(crate) fn outcome(&self) -> Result<(), TaskEnded> {
        let (Some(task_id), Some(state)) = (&self.task_id, self.state) else {
            return Ok(());
        };
        match state {
            TaskState::Failed | TaskState::Rejected | TaskState::Canceled => Err(TaskEnded {
                task_id: task_id.clone(),
                state,
                status_text: self.status_text.clone(),
            }),
            TaskState::Unspecified
            | TaskState::Submitted
            | TaskState::Working
            | TaskState::Completed
            | TaskState::InputRequired
            | TaskState::AuthRequired => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use a2a_types::{TaskStatus, TaskStatusUpdateEvent};

    use super::*;

    fn update(state: TaskState, text: &str) -> StreamResponse {
        StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: TaskId::new("t"),
            context_id: ContextId::new("c"),
            status: TaskStatus::new(state).with_message(Message::agent_text(text)),
            metadata: None,
        })
    }

    #[test]
    fn the_latest_status_decides_the_outcome() {
        let cases = [
            (TaskState::Completed, true),
            (TaskState::InputRequired, true),
            (TaskState::Working, true),
            (TaskState::Failed, false),
            (TaskState::Rejected, false),
            (TaskState::Canceled, false),
        ];
        for (state, ok) in cases {
            let mut progress = Progress::default();
            progress.observe(&update(state, "why"));
            assert_eq!(progress.outcome().is_ok(), ok, "{state:?}");
        }
    }

    #[test]
    fn a_failure_names_the_task_state_and_reason() {
        let mut progress = Progress::default();
        progress.observe(&update(TaskState::Rejected, "not today\nmore"));
        let error = progress.outcome().unwrap_err().to_string();
        assert_eq!(error, "task t ended REJECTED: not today");
    }

    #[test]
    fn a_direct_reply_keeps_the_context_and_has_no_state() {
        let mut progress = Progress::default();
        let reply = Message::agent_text("hi").with_context_id("c1");
        progress.observe(&StreamResponse::Message(reply));
        assert_eq!(progress.context_id, Some(ContextId::new("c1")));
        assert_eq!((progress.task_id, progress.state), (None, None));
    }
}
