//! Which A2A versions an agent serves over JSON-RPC, read from its registered card.

use std::sync::OnceLock;

use a2a_types::ProtocolBinding;
use a2a_types::v03::translate;
use serde_json::Value;

/// The JSON-RPC URLs of an agent per protocol version, read from its registered card.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Spoken {
    /// The first JSON-RPC interface of version 1.x.
    pub(crate) v1: Option<String>,
    /// Where it answers v0.3 JSON-RPC.
    pub(crate) v03: Option<String>,
}

impl Spoken {
    /// The versions `card` declares. A v1.0 card (with `supportedInterfaces`) serves v1.0
    /// on its 1.x JSON-RPC interfaces and v0.3 on its 0.x ones, or at its top-level `url`
    /// when it carries the v0.3 members beside (a card that serves both); a v0.3 card
    /// serves v0.3 only. A KubeMQ record, or a card neither version reads, declares
    /// nothing.
    pub(crate) fn of(card: &Value) -> Self {
        let mut spoken = Self::default();
        let has_interfaces = card
            .get("supportedInterfaces")
            .and_then(Value::as_array)
            .is_some_and(|interfaces| !interfaces.is_empty());
        let declares_v03 = card
            .get("protocolVersion")
            .and_then(Value::as_str)
            .is_some_and(|version| major(version) == Some("0"));
        if has_interfaces {
            if let Ok(read) = translate::card_to_v1(card.clone()) {
                spoken.add(&read);
            }
            if declares_v03 && spoken.v03.is_none() {
                let mut legacy = card.clone();
                if let Some(members) = legacy.as_object_mut() {
                    members.remove("supportedInterfaces");
                }
                if let Ok(read) = translate::card_to_v1(legacy) {
                    spoken.v03 = jsonrpc_url(&read, "0");
                }
            }
        } else if declares_v03 && let Ok(read) = translate::card_to_v1(card.clone()) {
            spoken.v03 = jsonrpc_url(&read, "0");
        }
        spoken
    }

    fn add(&mut self, card: &a2a_types::AgentCard) {
        self.v1 = jsonrpc_url(card, "1");
        self.v03 = jsonrpc_url(card, "0");
    }
}

/// The URL of the first JSON-RPC interface of `card` whose version has this major.
fn jsonrpc_url(card: &a2a_types::AgentCard, wanted: &str) -> Option<String> {
    card.supported_interfaces
        .iter()
        .find(|interface| {
            matches!(interface.protocol_binding, ProtocolBinding::JsonRpc)
                && major(&interface.protocol_version) == Some(wanted)
        })
        .map(|interface| interface.url.clone())
}

fn major(version: &str) -> Option<&str> {
    version.trim().split('.').next()
}

/// [`Spoken`], worked out from the card once per agent record.
#[derive(Debug, Clone, Default)]
pub(crate) struct SpokenOnce(OnceLock<Spoken>);

impl SpokenOnce {
    pub(crate) fn get(&self, card: &Value) -> &Spoken {
        self.0.get_or_init(|| Spoken::of(card))
    }
}

/// Derived from the card, so two records with equal cards are equal whether or not it was
/// worked out yet.
impl PartialEq for SpokenOnce {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
