//! The conversation's ids between turns: its context, the task it continues, the next message id.

use a2a_types::{ContextId, Message, MessageId, TaskId};

use crate::progress::Progress;

/// The conversation's ids between turns.
#[derive(Debug, Default)]
pub(super) struct Session {
    pub(super) context_id: Option<ContextId>,
    /// The task the next message continues: set while it waits for input.
    pub(super) task_id: Option<TaskId>,
    /// The latest task, kept for `/task` after it ended.
    pub(super) last_task_id: Option<TaskId>,
    /// The id for the next message, when the user chose one.
    pub(super) next_message_id: Option<String>,
}

impl Session {
    pub(super) fn message(&mut self, text: &str) -> Message {
        let mut message = Message::user_text(text);
        if let Some(message_id) = self.next_message_id.take() {
            message.message_id = MessageId::new(message_id);
        }
        message.context_id = self.context_id.clone();
        message.task_id = self.task_id.clone();
        message
    }

    /// Keeps the context; keeps the task only while it can go on (not in a final state).
    pub(super) fn after_turn(&mut self, progress: &Progress) {
        if progress.context_id.is_some() {
            self.context_id = progress.context_id.clone();
        }
        if progress.task_id.is_some() {
            self.last_task_id = progress.task_id.clone();
        }
        let goes_on = progress.state.is_some_and(|state| !state.is_terminal());
        self.task_id = if goes_on {
            progress.task_id.clone()
        } else {
            None
        };
    }
}
