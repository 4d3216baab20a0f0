//! The agent card as served: with or without the v0.3 twins and members.

use a2a_types::card::{AgentCard, AgentInterface, ProtocolBinding};
use a2a_types::v03;

use crate::config::ProtocolVersions;

/// The `protocolVersion` of the v0.3 interfaces the served card lists.
const INTERFACE_VERSION: &str = "0.3";

/// The card as served: with v0.3 on, every 1.0 JSON-RPC and HTTP+JSON interface gets a
/// v0.3 twin at the same URL (after the 1.0 ones, so 1.0 clients pick 1.0) and the card
/// the v0.3 top-level members ([`v03::dual_protocol_card`]); with v0.3 off, v0.3 twins of
/// served interfaces and every v0.3 member ([`v03::v1_only_card`]) are left out, so a
/// strict v1.0 reader accepts the card. A signed card is served as it is: its signatures cover
/// it as given.
pub(crate) fn served_card(card: &AgentCard, versions: ProtocolVersions) -> AgentCard {
    if !card.signatures.is_empty() {
        return card.clone();
    }
    let served = |interface: &AgentInterface| {
        interface.is_v1()
            && matches!(
                interface.protocol_binding,
                ProtocolBinding::JsonRpc | ProtocolBinding::HttpJson
            )
    };
    let twin_of = |legacy: &AgentInterface, interface: &AgentInterface| {
        !legacy.is_v1()
            && legacy.url == interface.url
            && legacy.protocol_binding == interface.protocol_binding
    };
    let mut card = card.clone();
    if !versions.v0_3 {
        let v1: Vec<AgentInterface> = card
            .supported_interfaces
            .iter()
            .filter(|interface| served(interface))
            .cloned()
            .collect();
        card.supported_interfaces
            .retain(|interface| !v1.iter().any(|served| twin_of(interface, served)));
        return v03::v1_only_card(&card);
    }
    let twins: Vec<AgentInterface> = card
        .supported_interfaces
        .iter()
        .filter(|interface| served(interface))
        .filter(|interface| {
            !card
                .supported_interfaces
                .iter()
                .any(|legacy| twin_of(legacy, interface))
        })
        .map(|interface| {
            let mut twin =
                AgentInterface::new(interface.url.clone(), interface.protocol_binding.clone());
            INTERFACE_VERSION.clone_into(&mut twin.protocol_version);
            twin
        })
        .collect();
    card.supported_interfaces.extend(twins);
    v03::dual_protocol_card(&card)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_served_card_lists_v03_twins_only_when_on() {
        let mut card: AgentCard = serde_json::from_value(serde_json::json!({
            "name": "a", "description": "d", "version": "1",
            "supportedInterfaces": [
                {"url": "http://h/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "http://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
            ],
            "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
        }))
        .unwrap();
        let both = served_card(&card, ProtocolVersions::BOTH);
        let versions: Vec<&str> = both
            .supported_interfaces
            .iter()
            .map(|interface| interface.protocol_version.as_str())
            .collect();
        assert_eq!(versions, ["1.0", "1.0", "0.3", "0.3"]);
        let json = serde_json::to_value(&both).unwrap();
        assert_eq!(json["url"], "http://h/a2a");
        assert_eq!(json["preferredTransport"], "JSONRPC");
        assert_eq!(json["protocolVersion"], "0.3");

        card.supported_interfaces = both.supported_interfaces.clone();
        let only = served_card(&card, ProtocolVersions::V1_ONLY);
        assert_eq!(only.supported_interfaces.len(), 2);
        assert!(only.supported_interfaces.iter().all(AgentInterface::is_v1));
        assert!(serde_json::to_value(&only).unwrap().get("url").is_none());
    }
}
