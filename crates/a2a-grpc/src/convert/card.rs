//! [`AgentCard`](a2a_types::AgentCard) and the types inside it except security:
//! interfaces, provider, capabilities, extensions, skills and signatures.
//!
//! The card types keep members they do not know in an `extra` map (v0.3 members such as
//! `url` or `protocolVersion`); protobuf has no place for them, so they are dropped on the
//! way out and empty on the way in.

use a2a_types::card::{AgentCardSignature, AgentExtension, AgentProvider};
use a2a_types::{
    AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Metadata, ProtocolBinding,
};

use super::ConvertError;
use super::fields::{
    convert_each, convert_map, convert_optional, convert_present, into_each, required,
};
use super::structs::{metadata_in, metadata_out};
use crate::proto;

impl From<AgentCard> for proto::AgentCard {
    fn from(card: AgentCard) -> Self {
        Self {
            name: card.name,
            description: card.description,
            supported_interfaces: into_each(card.supported_interfaces),
            provider: card.provider.map(Into::into),
            version: card.version,
            documentation_url: card.documentation_url,
            capabilities: Some(card.capabilities.into()),
            security_schemes: card
                .security_schemes
                .into_iter()
                .map(|(name, scheme)| (name, scheme.into()))
                .collect(),
            security_requirements: into_each(card.security_requirements),
            default_input_modes: card.default_input_modes,
            default_output_modes: card.default_output_modes,
            skills: into_each(card.skills),
            signatures: into_each(card.signatures),
            icon_url: card.icon_url,
        }
    }
}

impl TryFrom<proto::AgentCard> for AgentCard {
    type Error = ConvertError;

    /// Fails without a `name`, `description`, `version` or capabilities, or when anything
    /// inside fails. Security schemes come back in name order.
    fn try_from(card: proto::AgentCard) -> Result<Self, ConvertError> {
        Ok(Self {
            name: required(card.name, "name")?,
            description: required(card.description, "description")?,
            supported_interfaces: convert_each(card.supported_interfaces, "supported_interfaces")?,
            provider: convert_optional(card.provider, "provider")?,
            version: required(card.version, "version")?,
            documentation_url: card.documentation_url,
            capabilities: convert_present(card.capabilities, "capabilities")?,
            security_schemes: convert_map(card.security_schemes, "security_schemes")?,
            security_requirements: convert_each(
                card.security_requirements,
                "security_requirements",
            )?,
            default_input_modes: card.default_input_modes,
            default_output_modes: card.default_output_modes,
            skills: convert_each(card.skills, "skills")?,
            signatures: convert_each(card.signatures, "signatures")?,
            icon_url: card.icon_url,
            extra: Metadata::new(),
        })
    }
}

impl From<AgentInterface> for proto::AgentInterface {
    fn from(interface: AgentInterface) -> Self {
        Self {
            url: interface.url,
            protocol_binding: interface.protocol_binding.as_str().to_owned(),
            tenant: interface.tenant,
            protocol_version: interface.protocol_version,
        }
    }
}

impl TryFrom<proto::AgentInterface> for AgentInterface {
    type Error = ConvertError;

    /// Fails without a `url`, `protocol_binding` or `protocol_version`. Binding aliases
    /// (`grpc`, `rest`) are normalised as in JSON.
    fn try_from(interface: proto::AgentInterface) -> Result<Self, ConvertError> {
        let binding = required(interface.protocol_binding, "protocol_binding")?;
        Ok(Self {
            url: required(interface.url, "url")?,
            protocol_binding: ProtocolBinding::parse(&binding),
            tenant: interface.tenant,
            protocol_version: required(interface.protocol_version, "protocol_version")?,
            extra: Metadata::new(),
        })
    }
}

impl From<AgentProvider> for proto::AgentProvider {
    fn from(provider: AgentProvider) -> Self {
        Self {
            url: provider.url,
            organization: provider.organization,
        }
    }
}

impl TryFrom<proto::AgentProvider> for AgentProvider {
    type Error = ConvertError;

    /// Fails without a `url` or an `organization`.
    fn try_from(provider: proto::AgentProvider) -> Result<Self, ConvertError> {
        Ok(Self {
            url: required(provider.url, "url")?,
            organization: required(provider.organization, "organization")?,
        })
    }
}

impl From<AgentCapabilities> for proto::AgentCapabilities {
    fn from(capabilities: AgentCapabilities) -> Self {
        Self {
            streaming: capabilities.streaming,
            push_notifications: capabilities.push_notifications,
            extensions: into_each(capabilities.extensions),
            extended_agent_card: capabilities.extended_agent_card,
        }
    }
}

impl TryFrom<proto::AgentCapabilities> for AgentCapabilities {
    type Error = ConvertError;

    /// Never fails today (extensions have no required field); `TryFrom` for the same shape
    /// as every other message.
    fn try_from(capabilities: proto::AgentCapabilities) -> Result<Self, ConvertError> {
        Ok(Self {
            streaming: capabilities.streaming,
            push_notifications: capabilities.push_notifications,
            extensions: convert_each(capabilities.extensions, "extensions")?,
            extended_agent_card: capabilities.extended_agent_card,
            extra: Metadata::new(),
        })
    }
}

impl From<AgentExtension> for proto::AgentExtension {
    fn from(extension: AgentExtension) -> Self {
        Self {
            uri: extension.uri,
            description: extension.description,
            required: extension.required,
            params: metadata_out(extension.params),
        }
    }
}

impl TryFrom<proto::AgentExtension> for AgentExtension {
    type Error = ConvertError;

    /// Never fails: no field is required.
    fn try_from(extension: proto::AgentExtension) -> Result<Self, ConvertError> {
        Ok(Self {
            uri: extension.uri,
            description: extension.description,
            required: extension.required,
            params: metadata_in(extension.params),
        })
    }
}

impl From<AgentSkill> for proto::AgentSkill {
    fn from(skill: AgentSkill) -> Self {
        Self {
            id: skill.id,
            name: skill.name,
            description: skill.description,
            tags: skill.tags,
            examples: skill.examples,
            input_modes: skill.input_modes,
            output_modes: skill.output_modes,
            security_requirements: into_each(skill.security_requirements),
        }
    }
}

impl TryFrom<proto::AgentSkill> for AgentSkill {
    type Error = ConvertError;

    /// Fails without an `id`, `name` or `description`. Empty `tags` are accepted, as in JSON.
    fn try_from(skill: proto::AgentSkill) -> Result<Self, ConvertError> {
        Ok(Self {
            id: required(skill.id, "id")?,
            name: required(skill.name, "name")?,
            description: required(skill.description, "description")?,
            tags: skill.tags,
            examples: skill.examples,
            input_modes: skill.input_modes,
            output_modes: skill.output_modes,
            security_requirements: convert_each(
                skill.security_requirements,
                "security_requirements",
            )?,
            extra: Metadata::new(),
        })
    }
}

impl From<AgentCardSignature> for proto::AgentCardSignature {
    fn from(signature: AgentCardSignature) -> Self {
        Self {
            protected: signature.protected,
            signature: signature.signature,
            header: metadata_out(signature.header),
        }
    }
}

impl TryFrom<proto::AgentCardSignature> for AgentCardSignature {
    type Error = ConvertError;

    /// Fails without `protected` or `signature`.
    fn try_from(signature: proto::AgentCardSignature) -> Result<Self, ConvertError> {
        Ok(Self {
            protected: required(signature.protected, "protected")?,
            signature: required(signature.signature, "signature")?,
            header: metadata_in(signature.header),
        })
    }
}
