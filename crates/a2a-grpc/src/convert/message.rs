//! [`Part`](a2a_types::Part), [`Message`](a2a_types::Message),
//! [`Artifact`](a2a_types::Artifact) and [`Role`](a2a_types::Role).

use a2a_types::{ArtifactId, ContextId, MessageId, PartContent, TaskId};

use super::ConvertError;
use super::fields::{convert_non_empty, into_each, non_empty, required};
use super::structs::{json_to_value, metadata_in, metadata_out, value_to_json};
use crate::proto;
use crate::proto::part::Content;

impl From<a2a_types::Role> for proto::Role {
    fn from(role: a2a_types::Role) -> Self {
        match role {
            a2a_types::Role::Unspecified => Self::Unspecified,
            a2a_types::Role::User => Self::User,
            a2a_types::Role::Agent => Self::Agent,
        }
    }
}

impl TryFrom<proto::Role> for a2a_types::Role {
    type Error = ConvertError;

    /// Never fails: both sides have the same three values. A [`proto::Message`] still
    /// refuses `ROLE_UNSPECIFIED`, which proto3 cannot tell from an absent role.
    fn try_from(role: proto::Role) -> Result<Self, ConvertError> {
        Ok(match role {
            proto::Role::Unspecified => Self::Unspecified,
            proto::Role::User => Self::User,
            proto::Role::Agent => Self::Agent,
        })
    }
}

/// Reads an `i32` role field; a number the enum does not define is `ROLE_UNSPECIFIED`, as
/// the protocol lets an unknown role read.
pub(crate) fn role_field(number: i32, field: &str) -> Result<a2a_types::Role, ConvertError> {
    match proto::Role::try_from(number) {
        Ok(role) => a2a_types::Role::try_from(role).map_err(|e| e.within(field)),
        Err(_) => Ok(a2a_types::Role::Unspecified),
    }
}

/// The `content` member for `content`.
///
/// `PartContent` is `#[non_exhaustive]` in a2a-types, so the compiler cannot flag a kind
/// added there. Such a kind has no member here until the proto grows one; it is sent with
/// no content, which every peer refuses, rather than disguised as another kind.
fn content_out(content: PartContent) -> Option<Content> {
    Some(match content {
        PartContent::Text(text) => Content::Text(text),
        PartContent::Raw(bytes) => Content::Raw(bytes),
        PartContent::Url(url) => Content::Url(url),
        PartContent::Data(data) => Content::Data(json_to_value(data)),
        _ => return None,
    })
}

impl From<Content> for PartContent {
    fn from(content: Content) -> Self {
        match content {
            Content::Text(text) => Self::Text(text),
            Content::Raw(bytes) => Self::Raw(bytes),
            Content::Url(url) => Self::Url(url),
            Content::Data(data) => Self::Data(value_to_json(data)),
        }
    }
}

impl From<a2a_types::Part> for proto::Part {
    fn from(part: a2a_types::Part) -> Self {
        Self {
            content: content_out(part.content),
            metadata: metadata_out(part.metadata),
            filename: part.filename,
            media_type: part.media_type,
        }
    }
}

impl TryFrom<proto::Part> for a2a_types::Part {
    type Error = ConvertError;

    /// Fails when no member of the `content` oneof is set.
    fn try_from(part: proto::Part) -> Result<Self, ConvertError> {
        let content = part.content.ok_or_else(|| {
            ConvertError::new("content", "exactly one of text, raw, url, data must be set")
        })?;
        Ok(Self {
            content: content.into(),
            metadata: metadata_in(part.metadata),
            filename: part.filename,
            media_type: part.media_type,
        })
    }
}

impl From<a2a_types::Message> for proto::Message {
    fn from(message: a2a_types::Message) -> Self {
        Self {
            message_id: message.message_id.into_string(),
            context_id: message
                .context_id
                .map(ContextId::into_string)
                .unwrap_or_default(),
            task_id: message.task_id.map(TaskId::into_string).unwrap_or_default(),
            role: proto::Role::from(message.role).into(),
            parts: into_each(message.parts),
            metadata: metadata_out(message.metadata),
            extensions: message.extensions,
            reference_task_ids: message
                .reference_task_ids
                .into_iter()
                .map(TaskId::into_string)
                .collect(),
        }
    }
}

impl TryFrom<proto::Message> for a2a_types::Message {
    type Error = ConvertError;

    /// Fails without a `message_id`, a role, or parts, or when a part fails.
    fn try_from(message: proto::Message) -> Result<Self, ConvertError> {
        let role = role_field(message.role, "role")?;
        if role == a2a_types::Role::Unspecified {
            return Err(ConvertError::missing("role"));
        }
        Ok(Self {
            message_id: MessageId::new(required(message.message_id, "message_id")?),
            context_id: non_empty(message.context_id).map(ContextId::new),
            task_id: non_empty(message.task_id).map(TaskId::new),
            role,
            parts: convert_non_empty(message.parts, "parts")?,
            metadata: metadata_in(message.metadata),
            extensions: message.extensions,
            reference_task_ids: message
                .reference_task_ids
                .into_iter()
                .map(TaskId::new)
                .collect(),
        })
    }
}

impl From<a2a_types::Artifact> for proto::Artifact {
    fn from(artifact: a2a_types::Artifact) -> Self {
        Self {
            artifact_id: artifact.artifact_id.into_string(),
            name: artifact.name,
            description: artifact.description,
            parts: into_each(artifact.parts),
            metadata: metadata_out(artifact.metadata),
            extensions: artifact.extensions,
        }
    }
}

impl TryFrom<proto::Artifact> for a2a_types::Artifact {
    type Error = ConvertError;

    /// Fails without an `artifact_id` or parts, or when a part fails.
    fn try_from(artifact: proto::Artifact) -> Result<Self, ConvertError> {
        Ok(Self {
            artifact_id: ArtifactId::new(required(artifact.artifact_id, "artifact_id")?),
            name: artifact.name,
            description: artifact.description,
            parts: convert_non_empty(artifact.parts, "parts")?,
            metadata: metadata_in(artifact.metadata),
            extensions: artifact.extensions,
        })
    }
}
