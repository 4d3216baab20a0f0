//! [`AgentCard`], with its [`AgentProvider`] and [`AgentCardSignature`]s.

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::StringList;
use super::{AgentCapabilities, AgentInterface, AgentSkill, SecurityRequirement, SecurityScheme};
use crate::Metadata;
use crate::wire::nullable;

/// The self-description an agent publishes (proto `AgentCard`).
///
/// Reading keeps every member this version does not know in [`AgentCard::extra`] and writes
/// it back, so legacy v0.3 members (`url`, `protocolVersion`, `preferredTransport`,
/// `supportsAuthenticatedExtendedCard`, `security`, …) survive a round trip. A legacy
/// `security` list is also read into [`AgentCard::security_requirements`] when the card has
/// none of its own. Required lists are always written, even empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", remote = "Self")]
pub struct AgentCard {
    /// The agent's name; required.
    pub name: String,
    /// What the agent does; required.
    pub description: String,
    /// Endpoints, the preferred one first; required.
    #[serde(default, alias = "supported_interfaces", deserialize_with = "nullable")]
    pub supported_interfaces: Vec<AgentInterface>,
    /// Who runs the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<AgentProvider>,
    /// The agent's own version (not the protocol's); required.
    pub version: String,
    /// Documentation URL.
    #[serde(
        default,
        alias = "documentation_url",
        skip_serializing_if = "Option::is_none"
    )]
    pub documentation_url: Option<String>,
    /// Optional features; required.
    pub capabilities: AgentCapabilities,
    /// Scheme name to scheme.
    #[serde(
        default,
        alias = "security_schemes",
        skip_serializing_if = "IndexMap::is_empty",
        deserialize_with = "nullable"
    )]
    pub security_schemes: IndexMap<String, SecurityScheme>,
    /// Alternatives (OR) of scheme sets (AND).
    #[serde(
        default,
        alias = "security_requirements",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub security_requirements: Vec<SecurityRequirement>,
    /// Media types accepted by every skill; required.
    #[serde(default, alias = "default_input_modes", deserialize_with = "nullable")]
    pub default_input_modes: Vec<String>,
    /// Media types produced by every skill; required.
    #[serde(default, alias = "default_output_modes", deserialize_with = "nullable")]
    pub default_output_modes: Vec<String>,
    /// What the agent can do; required.
    #[serde(default, deserialize_with = "nullable")]
    pub skills: Vec<AgentSkill>,
    /// JWS signatures over the card.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub signatures: Vec<AgentCardSignature>,
    /// Icon URL.
    #[serde(default, alias = "icon_url", skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
    /// Members this version does not know, written back unchanged.
    #[serde(flatten)]
    pub extra: Metadata,
}

impl AgentCard {
    /// A card with the three fields a card built from parameters needs; every
    /// list empty and no security schemes.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        version: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            supported_interfaces: Vec::new(),
            provider: None,
            version: version.into(),
            documentation_url: None,
            capabilities: AgentCapabilities::default(),
            security_schemes: IndexMap::new(),
            security_requirements: Vec::new(),
            default_input_modes: Vec::new(),
            default_output_modes: Vec::new(),
            skills: Vec::new(),
            signatures: Vec::new(),
            icon_url: None,
            extra: Metadata::new(),
        }
    }

    /// Adds an interface.
    #[must_use]
    pub fn with_interface(mut self, interface: AgentInterface) -> Self {
        self.supported_interfaces.push(interface);
        self
    }

    /// Adds a skill.
    #[must_use]
    pub fn with_skill(mut self, skill: AgentSkill) -> Self {
        self.skills.push(skill);
        self
    }

    /// The v0.3 top-level `url`, when the card carries one.
    #[must_use]
    pub fn legacy_url(&self) -> Option<&str> {
        self.extra.get("url").and_then(Value::as_str)
    }

    /// The v0.3 top-level `protocolVersion`, when the card carries one.
    #[must_use]
    pub fn legacy_protocol_version(&self) -> Option<&str> {
        self.extra.get("protocolVersion").and_then(Value::as_str)
    }
}

/// Reads a v0.3 `security` list (`[{"oauth": ["read"]}, {"apiKey": []}]`).
fn legacy_security(value: &Value) -> Option<Vec<SecurityRequirement>> {
    value
        .as_array()?
        .iter()
        .map(|alternative| {
            let schemes = alternative
                .as_object()?
                .iter()
                .map(|(name, scopes)| {
                    let list = scopes
                        .as_array()?
                        .iter()
                        .map(|scope| scope.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>()?;
                    Some((name.clone(), StringList { list }))
                })
                .collect::<Option<IndexMap<_, _>>>()?;
            Some(SecurityRequirement { schemes })
        })
        .collect()
}

impl Serialize for AgentCard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        AgentCard::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for AgentCard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut card = AgentCard::deserialize(deserializer)?;
        if card.security_requirements.is_empty()
            && let Some(requirements) = card.extra.get("security").and_then(legacy_security)
        {
            card.security_requirements = requirements;
        }
        Ok(card)
    }
}

/// Who runs the agent (proto `AgentProvider`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentProvider {
    /// The organization's URL; required.
    pub url: String,
    /// The organization's name; required.
    pub organization: String,
}

/// A JWS signature over the card (proto `AgentCardSignature`), carried unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentCardSignature {
    /// base64url of the protected JWS header; required.
    pub protected: String,
    /// base64url of the signature bytes; required.
    pub signature: String,
    /// The unprotected JWS header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Metadata>,
}
