//! [`AgentCapabilities`] and the [`AgentExtension`]s a card declares.

use serde::{Deserialize, Serialize};

use crate::Metadata;
use crate::wire::{is_false, nullable};

/// Optional features the agent supports (proto `AgentCapabilities`). A capability that is
/// `false` or absent is not supported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// `SendStreamingMessage` and `SubscribeToTask` are supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    /// Push-notification configs and webhooks are supported.
    #[serde(
        default,
        alias = "push_notifications",
        skip_serializing_if = "Option::is_none"
    )]
    pub push_notifications: Option<bool>,
    /// Declared extensions.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub extensions: Vec<AgentExtension>,
    /// `GetExtendedAgentCard` is supported.
    #[serde(
        default,
        alias = "extended_agent_card",
        skip_serializing_if = "Option::is_none"
    )]
    pub extended_agent_card: Option<bool>,
    /// Members this version does not know (e.g. v0.3 `stateTransitionHistory`), kept.
    #[serde(flatten)]
    pub extra: Metadata,
}

impl AgentCapabilities {
    /// True when streaming is declared.
    #[must_use]
    pub fn supports_streaming(&self) -> bool {
        self.streaming == Some(true)
    }

    /// True when push notifications are declared.
    #[must_use]
    pub fn supports_push_notifications(&self) -> bool {
        self.push_notifications == Some(true)
    }

    /// True when the extended agent card is declared.
    #[must_use]
    pub fn supports_extended_agent_card(&self) -> bool {
        self.extended_agent_card == Some(true)
    }
}

/// An extension the agent supports (proto `AgentExtension`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentExtension {
    /// The extension's URI (should carry a version).
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub uri: String,
    /// How this agent uses it; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub description: String,
    /// Clients must activate it.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "nullable"
    )]
    pub required: bool,
    /// Extension-specific configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Metadata>,
}
