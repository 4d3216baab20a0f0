//! Which of a card's interfaces the client talks to, and in which protocol version.

use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
use serde_json::Value;

use super::Binding;
use crate::{ClientError, ProtocolVersion};

/// The interface to use and the version to speak.
///
/// Unless `version` forces one, the card's interfaces for protocol 1.x are used when there is
/// one (a card that serves both versions is spoken in 1.0), else its JSONRPC or HTTP+JSON
/// interfaces for 0.3 (v0.3 over gRPC is not spoken). Among the interfaces of the version:
///
/// 1. for each binding of `preferred` in turn, the card's first interface of that binding;
/// 2. else the first JSONRPC or HTTP+JSON interface in card order;
/// 3. else the first GRPC interface.
///
/// The HTTP bindings come before gRPC unless the caller prefers gRPC: they need no second
/// port, and a card that offers both expects most clients to speak HTTP.
///
/// Forced to 0.3, a card that lists only 1.x interfaces is read through the v0.3 members it
/// may carry beside them (`url`, `preferredTransport`, `additionalInterfaces`).
///
/// # Errors
/// [`ClientError::NoUsableInterface`] when there is none, or `preferred` names a binding this
/// client does not speak.
pub(crate) fn pick_interface(
    card: &AgentCard,
    preferred: &[ProtocolBinding],
    version: Option<ProtocolVersion>,
) -> Result<(AgentInterface, Binding, ProtocolVersion), ClientError> {
    if let Some(unknown) = preferred
        .iter()
        .find(|binding| Binding::from_protocol(binding).is_none())
    {
        return Err(ClientError::NoUsableInterface {
            reason: format!("this client does not speak the {unknown} binding"),
        });
    }
    let v1 = || pick_of_version(&card.supported_interfaces, preferred, ProtocolVersion::V1_0);
    let v03 = || {
        pick_of_version(&card.supported_interfaces, preferred, ProtocolVersion::V0_3)
            .or_else(|| pick_of_version(&legacy_interfaces(card), preferred, ProtocolVersion::V0_3))
    };
    let (chosen, version, reason) = match version {
        None => match v1() {
            Some(chosen) => (Some(chosen), ProtocolVersion::V1_0, ""),
            None => (
                v03(),
                ProtocolVersion::V0_3,
                "the card has no JSONRPC, HTTP+JSON or GRPC interface for protocol 1.x, nor a \
                 JSONRPC or HTTP+JSON one for 0.3",
            ),
        },
        Some(ProtocolVersion::V1_0) => (
            v1(),
            ProtocolVersion::V1_0,
            "the card has no JSONRPC, HTTP+JSON or GRPC interface for protocol 1.x",
        ),
        Some(ProtocolVersion::V0_3) => (
            v03(),
            ProtocolVersion::V0_3,
            "the card has no JSONRPC or HTTP+JSON interface for protocol 0.3",
        ),
    };
    chosen
        .map(|(interface, binding)| (interface, binding, version))
        .ok_or_else(|| ClientError::NoUsableInterface {
            reason: reason.into(),
        })
}

/// The interface among `interfaces` for `version`, by the order above.
fn pick_of_version(
    interfaces: &[AgentInterface],
    preferred: &[ProtocolBinding],
    version: ProtocolVersion,
) -> Option<(AgentInterface, Binding)> {
    let usable = || {
        interfaces.iter().filter_map(|interface| {
            let binding = Binding::from_protocol(&interface.protocol_binding)?;
            let speaks =
                ProtocolVersion::of_interface(&interface.protocol_version) == Some(version);
            // v0.3 is spoken over the HTTP bindings only.
            let spoken = speaks && (version == ProtocolVersion::V1_0 || binding != Binding::Grpc);
            spoken.then_some((interface, binding))
        })
    };
    let is_http = |binding: Binding| match binding {
        Binding::JsonRpc | Binding::HttpJson => true,
        Binding::Grpc => false,
    };
    preferred
        .iter()
        .find_map(|wanted| usable().find(|(interface, _)| &interface.protocol_binding == wanted))
        .or_else(|| usable().find(|(_, binding)| is_http(*binding)))
        .or_else(|| usable().next())
        .map(|(interface, binding)| (interface.clone(), binding))
}

/// The v0.3 interfaces a card lists in its v0.3 members (`url`, `preferredTransport`,
/// `additionalInterfaces`), which a card serving both versions carries beside
/// `supportedInterfaces`; none when it has no `url`.
fn legacy_interfaces(card: &AgentCard) -> Vec<AgentInterface> {
    let Ok(Value::Object(mut value)) = serde_json::to_value(card) else {
        return Vec::new();
    };
    if !value.get("url").is_some_and(Value::is_string) {
        return Vec::new();
    }
    value.remove("supportedInterfaces");
    a2a_types::v03::translate::card_to_v1(Value::Object(value))
        .map(|legacy| legacy.supported_interfaces)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(interfaces: &[(&str, ProtocolBinding, &str)]) -> AgentCard {
        let mut card = AgentCard::new("a", "b", "1");
        for (url, binding, version) in interfaces {
            let mut interface = AgentInterface::new(*url, binding.clone());
            interface.protocol_version = (*version).to_owned();
            card = card.with_interface(interface);
        }
        card
    }

    fn picked(card: &AgentCard, preferred: &[ProtocolBinding]) -> (String, Binding) {
        let (interface, binding, version) = pick_interface(card, preferred, None).unwrap();
        assert_eq!(version, ProtocolVersion::V1_0);
        (interface.url, binding)
    }

    #[test]
    fn http_bindings_win_in_card_order_unless_another_is_preferred() {
        let card = card(&[
            ("grpc.example:443", ProtocolBinding::Grpc, "1.0"),
            ("https://a/old", ProtocolBinding::JsonRpc, "0.3"),
            ("https://a/rest", ProtocolBinding::HttpJson, "1.0"),
            ("https://a/rpc", ProtocolBinding::JsonRpc, "1.1"),
        ]);
        assert_eq!(
            picked(&card, &[]),
            ("https://a/rest".into(), Binding::HttpJson)
        );
        assert_eq!(
            picked(&card, &[ProtocolBinding::JsonRpc]),
            ("https://a/rpc".into(), Binding::JsonRpc)
        );
        assert_eq!(
            picked(&card, &[ProtocolBinding::Grpc]),
            ("grpc.example:443".into(), Binding::Grpc)
        );
    }

    #[test]
    fn the_preference_order_is_followed_and_falls_back_to_the_default() {
        let card = card(&[
            ("https://a/rest", ProtocolBinding::HttpJson, "1.0"),
            ("grpc.example:443", ProtocolBinding::Grpc, "1.0"),
        ]);
        let order = [ProtocolBinding::JsonRpc, ProtocolBinding::Grpc];
        assert_eq!(
            picked(&card, &order),
            ("grpc.example:443".into(), Binding::Grpc)
        );
        assert_eq!(
            picked(&card, &[ProtocolBinding::JsonRpc]),
            ("https://a/rest".into(), Binding::HttpJson)
        );
    }

    #[test]
    fn a_card_with_only_grpc_is_spoken_over_grpc() {
        let card = card(&[
            ("old.example:443", ProtocolBinding::Grpc, "0.3"),
            ("grpc.example:443", ProtocolBinding::Grpc, "1.0"),
        ]);
        assert_eq!(
            picked(&card, &[]),
            ("grpc.example:443".into(), Binding::Grpc)
        );
    }

    #[test]
    fn custom_bindings_and_cards_without_a_usable_interface_are_refused() {
        let card = card(&[
            ("https://a/rpc", ProtocolBinding::JsonRpc, "0.2"),
            ("old.example:443", ProtocolBinding::Grpc, "0.3"),
        ]);
        assert!(matches!(
            pick_interface(&card, &[], None),
            Err(ClientError::NoUsableInterface { .. })
        ));
        let custom = ProtocolBinding::Other("urn:custom".into());
        assert!(matches!(
            pick_interface(&card, &[custom], None),
            Err(ClientError::NoUsableInterface { .. })
        ));
    }

    #[test]
    fn a_card_offering_only_03_is_spoken_in_03_and_a_dual_card_in_10() {
        let only = card(&[
            ("https://a/rest", ProtocolBinding::HttpJson, "0.3"),
            ("https://a/rpc", ProtocolBinding::JsonRpc, "0.3"),
        ]);
        let (interface, binding, version) = pick_interface(&only, &[], None).unwrap();
        assert_eq!(
            (interface.url.as_str(), binding, version),
            ("https://a/rest", Binding::HttpJson, ProtocolVersion::V0_3)
        );
        let (_, binding, _) = pick_interface(&only, &[ProtocolBinding::JsonRpc], None).unwrap();
        assert_eq!(binding, Binding::JsonRpc);
        assert!(pick_interface(&only, &[], Some(ProtocolVersion::V1_0)).is_err());

        let dual = card(&[
            ("https://a/rpc", ProtocolBinding::JsonRpc, "0.3"),
            ("https://a/rpc", ProtocolBinding::JsonRpc, "1.0"),
        ]);
        let (_, _, version) = pick_interface(&dual, &[], None).unwrap();
        assert_eq!(version, ProtocolVersion::V1_0);
        let (_, _, version) = pick_interface(&dual, &[], Some(ProtocolVersion::V0_3)).unwrap();
        assert_eq!(version, ProtocolVersion::V0_3);
    }

    #[test]
    fn forced_to_03_a_dual_card_is_read_through_its_v03_members() {
        let v1 = AgentCard::new("a", "b", "1").with_interface(AgentInterface::new(
            "https://a/rpc",
            ProtocolBinding::JsonRpc,
        ));
        let dual = a2a_types::v03::dual_protocol_card(&v1);
        let (interface, binding, version) =
            pick_interface(&dual, &[], Some(ProtocolVersion::V0_3)).unwrap();
        assert_eq!(
            (interface.url.as_str(), binding, version),
            ("https://a/rpc", Binding::JsonRpc, ProtocolVersion::V0_3)
        );
        assert!(pick_interface(&v1, &[], Some(ProtocolVersion::V0_3)).is_err());
    }
}
