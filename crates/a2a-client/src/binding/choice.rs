//! Which of a card's interfaces the client talks to.

use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};

use super::Binding;
use crate::ClientError;

/// The interface to use, among the card's interfaces for protocol 1.x:
///
/// 1. for each binding of `preferred` in turn, the card's first interface of that binding;
/// 2. else the first JSONRPC or HTTP+JSON interface in card order;
/// 3. else the first GRPC interface.
///
/// The HTTP bindings come before gRPC unless the caller prefers gRPC: they need no second
/// port, and a card that offers both expects most clients to speak HTTP.
///
/// # Errors
/// [`ClientError::NoUsableInterface`] when there is none, or `preferred` names a binding this
/// client does not speak.
pub(crate) fn pick_interface<'a>(
    card: &'a AgentCard,
    preferred: &[ProtocolBinding],
) -> Result<(&'a AgentInterface, Binding), ClientError> {
    if let Some(unknown) = preferred
        .iter()
        .find(|binding| Binding::from_protocol(binding).is_none())
    {
        return Err(ClientError::NoUsableInterface {
            reason: format!("this client does not speak the {unknown} binding"),
        });
    }
    let usable = || {
        card.supported_interfaces.iter().filter_map(|interface| {
            let binding = Binding::from_protocol(&interface.protocol_binding)?;
            interface.is_v1().then_some((interface, binding))
        })
    };
    let is_http = |binding: Binding| match binding {
        Binding::JsonRpc | Binding::HttpJson => true,
        Binding::Grpc => false,
    };
    let chosen = preferred
        .iter()
        .find_map(|wanted| usable().find(|(interface, _)| &interface.protocol_binding == wanted))
        .or_else(|| usable().find(|(_, binding)| is_http(*binding)))
        .or_else(|| usable().next());
    chosen.ok_or_else(|| ClientError::NoUsableInterface {
        reason: "the card has no JSONRPC, HTTP+JSON or GRPC interface for protocol 1.x".into(),
    })
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
        let (interface, binding) = pick_interface(card, preferred).unwrap();
        (interface.url.clone(), binding)
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
    fn custom_bindings_and_cards_without_a_1x_interface_are_refused() {
        let card = card(&[("https://a/rpc", ProtocolBinding::JsonRpc, "0.3")]);
        assert!(matches!(
            pick_interface(&card, &[]),
            Err(ClientError::NoUsableInterface { .. })
        ));
        let custom = ProtocolBinding::Other("urn:custom".into());
        assert!(matches!(
            pick_interface(&card, &[custom]),
            Err(ClientError::NoUsableInterface { .. })
        ));
    }
}
