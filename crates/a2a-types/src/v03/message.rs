//! v0.3 [`Message`], [`Part`] (text, file, data) and [`Artifact`], with their conversions.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::convert::{ConversionError, non_empty, non_empty_str, try_each};
use crate::wire::base64_bytes;
use crate::{ArtifactId, ContextId, MessageId, Metadata, PartContent, TaskId};

/// Who sent a message: `user` or `agent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `user`: sent by the client.
    User,
    /// `agent`: sent by the agent.
    Agent,
}

/// A message (`kind: "message"`).
///
/// `messageId` and `role` are required by v0.3, but hand-written requests often leave them
/// out (`{"parts": [{"text": "Hello?"}]}`): they are read as empty and absent, written back
/// only when set, and the v1.0 side decides whether to accept such a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "message", rename_all = "camelCase")]
pub struct Message {
    /// Created by the sender; empty when the sender left it out.
    #[serde(default, skip_serializing_if = "MessageId::is_empty")]
    pub message_id: MessageId,
    /// Who sent it; absent when the sender left it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// The content.
    pub parts: Vec<Part>,
    /// The conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<ContextId>,
    /// The task this message belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<TaskId>,
    /// Other tasks this message refers to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_task_ids: Option<Vec<TaskId>>,
    /// URIs of the extensions present in this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    /// Extension data and other key/values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A part of a message or artifact, told apart by `kind`: `text`, `file` or `data`.
///
/// A part without `kind` is read by the member it carries (`text`, `file` or `data`);
/// parts are always written with their `kind`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Part {
    /// `kind: "text"`.
    Text(TextPart),
    /// `kind: "file"`.
    File(FilePart),
    /// `kind: "data"`.
    Data(DataPart),
}

/// A text part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "text")]
pub struct TextPart {
    /// The text.
    pub text: String,
    /// Part metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A file part: inline bytes or a URI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "file")]
pub struct FilePart {
    /// The file.
    pub file: FileContent,
    /// Part metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A structured-data part; v0.3 data is always a JSON object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "data")]
pub struct DataPart {
    /// The data.
    pub data: Metadata,
    /// Part metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The file of a [`FilePart`]: exactly one of `bytes` and `uri`, with an optional name and
/// MIME type.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FileContent {
    /// Inline content.
    Bytes(FileWithBytes),
    /// Content at a URI.
    Uri(FileWithUri),
}

/// A file carried inline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileWithBytes {
    /// The content in base64, kept as received (checked when converted to v1.0).
    pub bytes: String,
    /// A MIME type such as `application/pdf`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// A file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A file referenced by URI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileWithUri {
    /// Where the content is.
    pub uri: String,
    /// A MIME type such as `application/pdf`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// A file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// An output of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// Unique within the task.
    pub artifact_id: ArtifactId,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The content.
    pub parts: Vec<Part>,
    /// Artifact metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// URIs of the extensions that contributed to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
}

/// The `kind` of a JSON object: its `kind` member, else the one `infer` finds from the
/// members present.
pub(super) fn kind_of<E: de::Error>(
    value: &Value,
    what: &str,
    infer: fn(&Metadata) -> Option<&'static str>,
) -> Result<String, E> {
    let Value::Object(object) = value else {
        return Err(E::custom(format!("expected a {what} object")));
    };
    match object.get("kind") {
        Some(Value::String(kind)) => Ok(kind.clone()),
        Some(other) => Err(E::custom(format!(
            "{what}: `kind` must be a string, found {other}"
        ))),
        None => infer(object)
            .map(str::to_owned)
            .ok_or_else(|| E::custom(format!("{what}: missing `kind`"))),
    }
}

/// Reads `value` as `T`, turning the JSON error into the caller's.
/// The error names the member at fault, as a path from `value`.
pub(super) fn from_value<T: de::DeserializeOwned, E: de::Error>(value: Value) -> Result<T, E> {
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        if path == "." {
            E::custom(err.into_inner())
        } else {
            E::custom(format!("{path}: {}", err.into_inner()))
        }
    })
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let kind = kind_of(&value, "Part", |object| {
            ["text", "file", "data"]
                .into_iter()
                .find(|member| object.contains_key(*member))
        })?;
        match kind.as_str() {
            "text" => from_value(value).map(Part::Text),
            "file" => from_value(value).map(Part::File),
            "data" => from_value(value).map(Part::Data),
            other => Err(de::Error::custom(format!(
                "Part: unknown kind {other:?}, expected \"text\", \"file\" or \"data\""
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for FileContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let (bytes, uri) = match &value {
            Value::Object(object) => (object.contains_key("bytes"), object.contains_key("uri")),
            _ => return Err(de::Error::custom("expected a file object")),
        };
        match (bytes, uri) {
            (true, false) => from_value(value).map(FileContent::Bytes),
            (false, true) => from_value(value).map(FileContent::Uri),
            (true, true) => Err(de::Error::custom(
                "file: only one of `bytes` and `uri` may be set, found both",
            )),
            (false, false) => Err(de::Error::custom(
                "file: exactly one of `bytes` and `uri` must be set, found none",
            )),
        }
    }
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextPart {
            text: text.into(),
            metadata: None,
        })
    }

    /// The part's metadata.
    #[must_use]
    pub fn metadata(&self) -> Option<&Metadata> {
        match self {
            Self::Text(part) => part.metadata.as_ref(),
            Self::File(part) => part.metadata.as_ref(),
            Self::Data(part) => part.metadata.as_ref(),
        }
    }
}

impl From<Role> for crate::Role {
    fn from(role: Role) -> Self {
        match role {
            Role::User => Self::User,
            Role::Agent => Self::Agent,
        }
    }
}

impl Role {
    /// The v0.3 role for a v1.0 role; `None` for `ROLE_UNSPECIFIED`, which v0.3 cannot
    /// spell (the member is then left out).
    #[must_use]
    pub fn from_v1(role: crate::Role) -> Option<Self> {
        match role {
            crate::Role::User => Some(Self::User),
            crate::Role::Agent => Some(Self::Agent),
            crate::Role::Unspecified => None,
        }
    }
}

/// The member name a v1.0 data part's non-object value is wrapped in: v0.3 data is always
/// an object, so `[1, 2]` travels as `{"value": [1, 2]}`.
pub const WRAPPED_DATA_MEMBER: &str = "value";

/// Fails on bytes that are not base64 (standard or URL-safe, padded or not).
impl TryFrom<Part> for crate::Part {
    type Error = ConversionError;

    fn try_from(part: Part) -> Result<Self, ConversionError> {
        Ok(match part {
            Part::Text(TextPart { text, metadata }) => {
                let mut part = crate::Part::text(text);
                part.metadata = metadata;
                part
            }
            Part::Data(DataPart { data, metadata }) => {
                let mut part = crate::Part::data(Value::Object(data));
                part.metadata = metadata;
                part
            }
            Part::File(FilePart { file, metadata }) => {
                let (content, mime_type, name) = match file {
                    FileContent::Bytes(file) => {
                        let bytes = base64_bytes::decode(&file.bytes).map_err(|()| {
                            ConversionError::new("file.bytes", "not a valid base64 string")
                        })?;
                        (PartContent::Raw(bytes), file.mime_type, file.name)
                    }
                    FileContent::Uri(file) => {
                        (PartContent::Url(file.uri), file.mime_type, file.name)
                    }
                };
                crate::Part {
                    content,
                    metadata,
                    filename: name.unwrap_or_default(),
                    media_type: mime_type.unwrap_or_default(),
                }
            }
        })
    }
}

/// Raw bytes and URLs become file parts (filename → `name`, media type → `mimeType`);
/// a text or data part loses its filename and media type, which v0.3 cannot carry there;
/// data that is not a JSON object is wrapped as `{"value": …}` ([`WRAPPED_DATA_MEMBER`]).
impl From<crate::Part> for Part {
    fn from(part: crate::Part) -> Self {
        let crate::Part {
            content,
            metadata,
            filename,
            media_type,
        } = part;
        match content {
            PartContent::Text(text) => Self::Text(TextPart { text, metadata }),
            PartContent::Data(Value::Object(data)) => Self::Data(DataPart { data, metadata }),
            PartContent::Data(other) => Self::Data(DataPart {
                data: Metadata::from_iter([(WRAPPED_DATA_MEMBER.to_owned(), other)]),
                metadata,
            }),
            PartContent::Raw(bytes) => Self::File(FilePart {
                file: FileContent::Bytes(FileWithBytes {
                    bytes: STANDARD.encode(bytes),
                    mime_type: non_empty_str(media_type),
                    name: non_empty_str(filename),
                }),
                metadata,
            }),
            PartContent::Url(uri) => Self::File(FilePart {
                file: FileContent::Uri(FileWithUri {
                    uri,
                    mime_type: non_empty_str(media_type),
                    name: non_empty_str(filename),
                }),
                metadata,
            }),
        }
    }
}

/// Fails on a part that does not convert. An absent role becomes `ROLE_UNSPECIFIED` and an
/// absent `messageId` an empty id, for the v1.0 side to refuse or fill in.
impl TryFrom<Message> for crate::Message {
    type Error = ConversionError;

    fn try_from(message: Message) -> Result<Self, ConversionError> {
        Ok(Self {
            message_id: message.message_id,
            context_id: message.context_id.filter(|id| !id.is_empty()),
            task_id: message.task_id.filter(|id| !id.is_empty()),
            role: message
                .role
                .map_or(crate::Role::Unspecified, crate::Role::from),
            parts: try_each(message.parts).map_err(|err| err.within("parts"))?,
            metadata: message.metadata,
            extensions: message.extensions.unwrap_or_default(),
            reference_task_ids: message.reference_task_ids.unwrap_or_default(),
        })
    }
}

impl From<crate::Message> for Message {
    fn from(message: crate::Message) -> Self {
        Self {
            message_id: message.message_id,
            role: Role::from_v1(message.role),
            parts: message.parts.into_iter().map(Part::from).collect(),
            context_id: message.context_id,
            task_id: message.task_id,
            reference_task_ids: non_empty(message.reference_task_ids),
            extensions: non_empty(message.extensions),
            metadata: message.metadata,
        }
    }
}

impl TryFrom<Artifact> for crate::Artifact {
    type Error = ConversionError;

    fn try_from(artifact: Artifact) -> Result<Self, ConversionError> {
        Ok(Self {
            artifact_id: artifact.artifact_id,
            name: artifact.name.unwrap_or_default(),
            description: artifact.description.unwrap_or_default(),
            parts: try_each(artifact.parts).map_err(|err| err.within("parts"))?,
            metadata: artifact.metadata,
            extensions: artifact.extensions.unwrap_or_default(),
        })
    }
}

impl From<crate::Artifact> for Artifact {
    fn from(artifact: crate::Artifact) -> Self {
        Self {
            artifact_id: artifact.artifact_id,
            name: non_empty_str(artifact.name),
            description: non_empty_str(artifact.description),
            parts: artifact.parts.into_iter().map(Part::from).collect(),
            metadata: artifact.metadata,
            extensions: non_empty(artifact.extensions),
        }
    }
}
