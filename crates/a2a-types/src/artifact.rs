//! [`Artifact`]: an output a task produces.

use serde::{Deserialize, Serialize};

use crate::wire::nullable;
use crate::{ArtifactId, Metadata, Part, part};

/// An output of a task (proto `Artifact`), made of one or more parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// Unique within the task; required.
    #[serde(alias = "artifact_id")]
    pub artifact_id: ArtifactId,
    /// A human-readable name; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub name: String,
    /// A description; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub description: String,
    /// The content; required, at least one part.
    pub parts: Vec<Part>,
    /// Artifact metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// URIs of the extensions that contributed to this artifact.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub extensions: Vec<String>,
}

impl Artifact {
    /// An artifact with the given parts and a fresh artifact id.
    #[must_use]
    pub fn new(parts: Vec<Part>) -> Self {
        Self {
            artifact_id: ArtifactId::generate(),
            name: String::new(),
            description: String::new(),
            parts,
            metadata: None,
            extensions: Vec::new(),
        }
    }

    /// An artifact holding one text part.
    pub fn from_text(text: impl Into<String>) -> Self {
        Self::new(vec![Part::text(text)])
    }

    /// Sets the name.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the artifact id.
    #[must_use]
    pub fn with_id(mut self, artifact_id: impl Into<ArtifactId>) -> Self {
        self.artifact_id = artifact_id.into();
        self
    }

    /// The text parts joined with newlines.
    #[must_use]
    pub fn text(&self) -> String {
        part::join_text(&self.parts)
    }
}
