//! [`ProtocolVersion`]: which generation of A2A the client speaks to an agent.

/// The A2A protocol version a client speaks.
///
/// Unset on the builder, the card decides: an interface for 1.x is used when the card offers
/// one (a card that serves both versions is spoken in 1.0), else an interface for 0.3. The
/// client's callers use the v1.0 types either way; v0.3 requests and answers are translated
/// at the edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// A2A v1.0 (JSON-RPC, HTTP+JSON or gRPC).
    V1_0,
    /// A2A v0.3, over JSON-RPC or its HTTP+JSON (REST) binding; not over gRPC.
    V0_3,
}

impl ProtocolVersion {
    /// `1.0` or `0.3`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V1_0 => "1.0",
            Self::V0_3 => "0.3",
        }
    }

    /// The version for `1.0`, `1`, `0.3` (patch numbers are ignored: `0.3.0`).
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let mut numbers = text.trim().split('.');
        match (numbers.next(), numbers.next()) {
            (Some("1"), Some("0") | None) => Some(Self::V1_0),
            (Some("0"), Some("3")) => Some(Self::V0_3),
            _ => None,
        }
    }

    /// The version an interface's `protocolVersion` names, when this client speaks it: any
    /// 1.x is 1.0, any 0.3.x is 0.3.
    pub(crate) fn of_interface(protocol_version: &str) -> Option<Self> {
        let mut numbers = protocol_version.trim().split('.');
        match (numbers.next(), numbers.next()) {
            (Some("1"), _) => Some(Self::V1_0),
            (Some("0"), Some("3")) => Some(Self::V0_3),
            _ => None,
        }
    }
}

impl std::fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_without_patch_numbers() {
        assert_eq!(ProtocolVersion::parse("1.0"), Some(ProtocolVersion::V1_0));
        assert_eq!(ProtocolVersion::parse("0.3"), Some(ProtocolVersion::V0_3));
        assert_eq!(ProtocolVersion::parse("0.3.0"), Some(ProtocolVersion::V0_3));
        assert_eq!(ProtocolVersion::parse("0.2"), None);
        assert_eq!(
            ProtocolVersion::of_interface("1.1"),
            Some(ProtocolVersion::V1_0)
        );
        assert_eq!(ProtocolVersion::of_interface("0.2.5"), None);
    }
}
