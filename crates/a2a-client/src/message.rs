//! Small constructors for the messages a client sends: the `messageId` (a UUID v4)
//! and `ROLE_USER` are filled in.
//!
//! ```
//! use a2a_client::message;
//!
//! let hello = message::text("Hello, agent");
//! let follow_up = message::draft()
//!     .text("Under 200 EUR a night.")
//!     .task_id("task-1")
//!     .into_request();
//! assert_eq!(follow_up.message.task_id.as_ref().map(|id| id.as_str()), Some("task-1"));
//! # let _ = hello;
//! ```

use a2a_types::{
    ContextId, Message, Metadata, Part, Role, SendMessageConfiguration, SendMessageRequest, TaskId,
};

/// A user message holding one text part.
pub fn text(text: impl Into<String>) -> Message {
    Message::user_text(text)
}

/// A user message made of `parts`.
#[must_use]
pub fn parts(parts: Vec<Part>) -> Message {
    Message::new(Role::User, parts)
}

/// A user message holding one structured-data part.
#[must_use]
pub fn data(data: serde_json::Value) -> Message {
    parts(vec![Part::data(data)])
}

/// A `SendMessage` request for a one-text-part user message.
pub fn request(text: impl Into<String>) -> SendMessageRequest {
    SendMessageRequest::new(self::text(text))
}

/// Starts a user message to fill in part by part.
pub fn draft() -> MessageDraft {
    MessageDraft {
        message: Message::new(Role::User, Vec::new()),
        configuration: None,
        metadata: None,
    }
}

/// A user message (and the request carrying it) being put together; see [`draft`].
#[derive(Debug, Clone)]
#[must_use]
pub struct MessageDraft {
    message: Message,
    configuration: Option<SendMessageConfiguration>,
    metadata: Option<Metadata>,
}

impl MessageDraft {
    /// Adds a text part.
    pub fn text(self, text: impl Into<String>) -> Self {
        self.part(Part::text(text))
    }

    /// Adds a structured-data part.
    pub fn data(self, data: serde_json::Value) -> Self {
        self.part(Part::data(data))
    }

    /// Adds a part.
    pub fn part(mut self, part: Part) -> Self {
        self.message.parts.push(part);
        self
    }

    /// Continues this task.
    pub fn task_id(mut self, task_id: impl Into<TaskId>) -> Self {
        self.message.task_id = Some(task_id.into());
        self
    }

    /// Joins this context.
    pub fn context_id(mut self, context_id: impl Into<ContextId>) -> Self {
        self.message.context_id = Some(context_id.into());
        self
    }

    /// Refers to another task.
    pub fn reference_task(mut self, task_id: impl Into<TaskId>) -> Self {
        self.message.reference_task_ids.push(task_id.into());
        self
    }

    /// Marks an extension as present in the message.
    pub fn extension(mut self, uri: impl Into<String>) -> Self {
        self.message.extensions.push(uri.into());
        self
    }

    /// Sets one message metadata entry.
    pub fn message_metadata(mut self, key: impl Into<String>, value: serde_json::Value) -> Self {
        self.message
            .metadata
            .get_or_insert_with(Metadata::new)
            .insert(key.into(), value);
        self
    }

    /// Sets one request metadata entry (used by [`into_request`](Self::into_request)).
    pub fn metadata(mut self, key: impl Into<String>, value: serde_json::Value) -> Self {
        self.metadata
            .get_or_insert_with(Metadata::new)
            .insert(key.into(), value);
        self
    }

    /// Answer as soon as the task exists instead of when it finishes (used by
    /// [`into_request`](Self::into_request)).
    pub fn return_immediately(mut self, immediately: bool) -> Self {
        self.configuration
            .get_or_insert_with(SendMessageConfiguration::default)
            .return_immediately = immediately;
        self
    }

    /// At most this many history messages in the returned task.
    pub fn history_length(mut self, length: i32) -> Self {
        self.configuration
            .get_or_insert_with(SendMessageConfiguration::default)
            .history_length = Some(length);
        self
    }

    /// The media types accepted in the answer.
    pub fn accepted_output_modes<I, S>(mut self, modes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.configuration
            .get_or_insert_with(SendMessageConfiguration::default)
            .accepted_output_modes = modes.into_iter().map(Into::into).collect();
        self
    }

    /// The message.
    #[must_use]
    pub fn build(self) -> Message {
        self.message
    }

    /// A `SendMessage` request carrying the message, configuration and metadata.
    #[must_use]
    pub fn into_request(self) -> SendMessageRequest {
        SendMessageRequest {
            tenant: String::new(),
            message: self.message,
            configuration: self.configuration,
            metadata: self.metadata,
        }
    }
}

impl From<MessageDraft> for Message {
    fn from(draft: MessageDraft) -> Self {
        draft.build()
    }
}

impl From<MessageDraft> for SendMessageRequest {
    fn from(draft: MessageDraft) -> Self {
        draft.into_request()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_get_an_id_and_the_user_role() {
        let message = draft().text("a").data(serde_json::json!({"b": 1})).build();
        assert_eq!(message.role, Role::User);
        assert_eq!(message.message_id.as_str().len(), 36);
        assert_eq!(message.parts.len(), 2);
        assert_ne!(text("x").message_id, text("x").message_id);
    }

    #[test]
    fn drafts_carry_request_options() {
        let request = draft()
            .text("hi")
            .return_immediately(true)
            .history_length(0)
            .metadata("k", serde_json::json!("v"))
            .into_request();
        let configuration = request.configuration.unwrap();
        assert!(configuration.return_immediately);
        assert_eq!(configuration.history_length, Some(0));
        assert_eq!(request.metadata.unwrap()["k"], "v");
    }
}
