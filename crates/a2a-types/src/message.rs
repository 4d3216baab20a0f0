//! [`Message`]: one turn of communication between a client and an agent.

use serde::{Deserialize, Serialize};

use crate::wire::{empty_as_none, is_unset, nullable};
use crate::{ContextId, MessageId, Metadata, Part, Role, TaskId, part};

/// A message (proto `Message`): sent by the client (`ROLE_USER`) or by the agent
/// (`ROLE_AGENT`), made of one or more parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Created by the sender; required.
    #[serde(alias = "message_id")]
    pub message_id: MessageId,
    /// The conversation; optional from clients, always set by agents.
    #[serde(
        default,
        alias = "context_id",
        skip_serializing_if = "is_unset",
        deserialize_with = "empty_as_none"
    )]
    pub context_id: Option<ContextId>,
    /// The task this message belongs to, when one exists.
    #[serde(
        default,
        alias = "task_id",
        skip_serializing_if = "is_unset",
        deserialize_with = "empty_as_none"
    )]
    pub task_id: Option<TaskId>,
    /// Who sent it; required. An unknown role reads as `ROLE_UNSPECIFIED`.
    #[serde(deserialize_with = "crate::enums::unknown_as_unspecified")]
    pub role: Role,
    /// The content; required, at least one part.
    pub parts: Vec<Part>,
    /// Extension data keyed by extension URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// URIs of the extensions present in this message.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub extensions: Vec<String>,
    /// Other tasks this message refers to.
    #[serde(
        default,
        alias = "reference_task_ids",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub reference_task_ids: Vec<TaskId>,
}

impl Message {
    /// A message from `role` with the given parts and a fresh message id.
    #[must_use]
    pub fn new(role: Role, parts: Vec<Part>) -> Self {
        Self {
            message_id: MessageId::generate(),
            context_id: None,
            task_id: None,
            role,
            parts,
            metadata: None,
            extensions: Vec::new(),
            reference_task_ids: Vec::new(),
        }
    }

    /// A user message holding one text part.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, vec![Part::text(text)])
    }

    /// An agent message holding one text part.
    pub fn agent_text(text: impl Into<String>) -> Self {
        Self::new(Role::Agent, vec![Part::text(text)])
    }

    /// Sets the context id.
    #[must_use]
    pub fn with_context_id(mut self, context_id: impl Into<ContextId>) -> Self {
        self.context_id = Some(context_id.into());
        self
    }

    /// Sets the task id.
    #[must_use]
    pub fn with_task_id(mut self, task_id: impl Into<TaskId>) -> Self {
        self.task_id = Some(task_id.into());
        self
    }

    /// The text parts joined with newlines.
    #[must_use]
    pub fn text(&self) -> String {
        part::join_text(&self.parts)
    }
}
