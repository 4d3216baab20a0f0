//! The agent card every test instance serves.

use a2a_types::{AgentCapabilities, AgentCard, AgentInterface, ProtocolBinding};

/// A card serving JSON-RPC at `/a2a` and HTTP+JSON at `/rest`, with streaming.
pub fn card() -> AgentCard {
    let mut card = AgentCard::new(
        "Cluster agent",
        "An agent served by several instances",
        "1.0.0",
    )
    .with_interface(AgentInterface::new(
        "http://localhost/a2a",
        ProtocolBinding::JsonRpc,
    ))
    .with_interface(AgentInterface::new(
        "http://localhost/rest",
        ProtocolBinding::HttpJson,
    ));
    card.capabilities = AgentCapabilities {
        streaming: Some(true),
        push_notifications: Some(true),
        ..AgentCapabilities::default()
    };
    card.default_input_modes = vec!["text/plain".into()];
    card.default_output_modes = vec!["text/plain".into()];
    card
}
