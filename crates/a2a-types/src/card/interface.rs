//! [`AgentInterface`]: one endpoint of the agent, and its [`ProtocolBinding`].

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Metadata;
use crate::wire::nullable;

/// Where and how the agent can be reached (proto `AgentInterface`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInterface {
    /// The endpoint URL (gRPC may use `host:port`); required.
    pub url: String,
    /// The protocol binding; required.
    #[serde(alias = "protocol_binding")]
    pub protocol_binding: ProtocolBinding,
    /// When set, clients copy it into the `tenant` of every request to this interface.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub tenant: String,
    /// `Major.Minor`, e.g. `1.0`; required.
    #[serde(alias = "protocol_version")]
    pub protocol_version: String,
    /// Members this version does not know, written back unchanged.
    #[serde(flatten)]
    pub extra: Metadata,
}

impl AgentInterface {
    /// A v1.0 interface for `binding` at `url`.
    pub fn new(url: impl Into<String>, binding: ProtocolBinding) -> Self {
        Self {
            url: url.into(),
            protocol_binding: binding,
            tenant: String::new(),
            protocol_version: crate::PROTOCOL_VERSION.to_owned(),
            extra: Metadata::new(),
        }
    }

    /// True when the interface speaks protocol major version 1.
    #[must_use]
    pub fn is_v1(&self) -> bool {
        self.protocol_version.split('.').next() == Some("1")
    }
}

/// A protocol binding name: an open string on the wire, with the three the spec defines.
///
/// Reading normalises the aliases `jsonrpc`, `rest`, `http+json` and `grpc` in any case
/// to their spec names; anything else is kept verbatim as [`ProtocolBinding::Other`], which
/// is also why the enum is not `#[non_exhaustive]`: it already covers every binding.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ProtocolBinding {
    /// `JSONRPC`.
    JsonRpc,
    /// `HTTP+JSON` (REST).
    HttpJson,
    /// `GRPC`.
    Grpc,
    /// A custom binding (should be a URI).
    Other(String),
}

impl ProtocolBinding {
    /// The canonical wire name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Self::JsonRpc => "JSONRPC",
            Self::HttpJson => "HTTP+JSON",
            Self::Grpc => "GRPC",
            Self::Other(name) => name,
        }
    }

    /// Reads a binding name, normalising the known aliases.
    #[must_use]
    pub fn parse(name: &str) -> Self {
        match name.trim().to_ascii_uppercase().as_str() {
            "JSONRPC" | "JSON-RPC" => Self::JsonRpc,
            "HTTP+JSON" | "REST" | "HTTP_JSON" => Self::HttpJson,
            "GRPC" => Self::Grpc,
            _ => Self::Other(name.to_owned()),
        }
    }
}

impl fmt::Display for ProtocolBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ProtocolBinding {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolBinding {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Self::parse(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_aliases_are_normalised() {
        for (text, binding) in [
            ("rest", ProtocolBinding::HttpJson),
            ("HTTP+JSON", ProtocolBinding::HttpJson),
            ("jsonrpc", ProtocolBinding::JsonRpc),
            ("JSONRPC", ProtocolBinding::JsonRpc),
            ("grpc", ProtocolBinding::Grpc),
        ] {
            assert_eq!(ProtocolBinding::parse(text), binding, "{text}");
        }
        assert_eq!(
            ProtocolBinding::parse("https://example.com/bindings/mqtt"),
            ProtocolBinding::Other("https://example.com/bindings/mqtt".into())
        );
    }
}
