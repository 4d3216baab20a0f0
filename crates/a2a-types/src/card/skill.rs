//! [`AgentSkill`]: something the agent can do.

use serde::{Deserialize, Serialize};

use super::SecurityRequirement;
use crate::Metadata;
use crate::wire::nullable;

/// A capability of the agent (proto `AgentSkill`).
///
/// `tags` is required and always written, even empty; on input an absent list reads as
/// empty (the spec wants required lists non-empty, but its own examples break that).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSkill {
    /// Unique id; required.
    pub id: String,
    /// Human-readable name; required.
    pub name: String,
    /// What it does; required.
    pub description: String,
    /// Keywords; required.
    #[serde(default, deserialize_with = "nullable")]
    pub tags: Vec<String>,
    /// Sample prompts.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub examples: Vec<String>,
    /// Accepted media types, overriding the card's defaults.
    #[serde(
        default,
        alias = "input_modes",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub input_modes: Vec<String>,
    /// Produced media types, overriding the card's defaults.
    #[serde(
        default,
        alias = "output_modes",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub output_modes: Vec<String>,
    /// Security for this skill (same shape as the card's).
    #[serde(
        default,
        alias = "security_requirements",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub security_requirements: Vec<SecurityRequirement>,
    /// Members this version does not know, written back unchanged.
    #[serde(flatten)]
    pub extra: Metadata,
}

impl AgentSkill {
    /// A skill with the required fields.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: description.into(),
            tags: Vec::new(),
            examples: Vec::new(),
            input_modes: Vec::new(),
            output_modes: Vec::new(),
            security_requirements: Vec::new(),
            extra: Metadata::new(),
        }
    }
}
