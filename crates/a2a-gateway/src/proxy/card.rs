//! The cards the gateway serves: its own, and each agent's as seen through the gateway.

use std::sync::Arc;

use a2a_types::v03::{self, translate};
use a2a_types::{AgentCard, ProtocolBinding};
use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse as _, Response};
use http::header::{HOST, HeaderMap};
use serde_json::{Value, json};

use super::error::GatewayError;
use super::grpc::grpc_interface;
use super::rest::status_response;
use super::state::Proxy;
use crate::agent::RegisteredAgent;
use crate::registry::{enriched, validate_agent_id};

/// `GET /.well-known/agent-card.json`: KubeMQ's platform card. `capabilities` is added
/// so that A2A clients can read it as an agent card.
pub(crate) async fn platform_card(State(proxy): State<Arc<Proxy>>, headers: HeaderMap) -> Response {
    Json(json!({
        "name": "kubemq",
        "description": "KubeMQ A2A Gateway",
        "version": "latest",
        "url": public_base(&proxy, &headers),
        "skills": [],
        "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"],
        "protocolVersions": ["1.0"],
        "capabilities": {},
    }))
    .into_response()
}

/// `GET /a2a/{agent_id}/.well-known/agent-card.json`, or 404.
pub(crate) async fn agent_card(
    State(proxy): State<Arc<Proxy>>,
    Path(agent_id): Path<String>,
    headers: HeaderMap,
) -> Response {
    if validate_agent_id(&agent_id).is_err() {
        return status_response(&GatewayError::AgentNotFound { agent_id });
    }
    match proxy.find(&agent_id).await {
        Ok(agent) => {
            let through = format!("{}/a2a/{agent_id}", public_base(&proxy, &headers));
            Json(seen_through_gateway(&agent, &through)).into_response()
        }
        Err(error) => status_response(&error),
    }
}

/// The gateway's base URL: the configured one, else `http://` and the request's `Host`.
fn public_base(proxy: &Proxy, headers: &HeaderMap) -> String {
    if let Some(url) = &proxy.config.public_url {
        return url.trim_end_matches('/').to_owned();
    }
    let host = headers
        .get(HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or("localhost");
    format!("http://{host}")
}

/// Where the gateway serves an agent's card exactly as the agent signed and registered it,
/// under `/a2a/{agent_id}`: the signatures on the card served at the well-known path cover
/// this card, not the one rewritten to point at the gateway.
pub(crate) const SIGNED_CARD_PATH: &str = "/.well-known/signed-agent-card.json";

/// `GET /a2a/{agent_id}/.well-known/signed-agent-card.json`: the registered card of a signed
/// agent as registered (its signatures verify over it), or 404 when the agent is unknown or
/// its card carries no signatures.
pub(crate) async fn signed_agent_card(
    State(proxy): State<Arc<Proxy>>,
    Path(agent_id): Path<String>,
) -> Response {
    if validate_agent_id(&agent_id).is_err() {
        return status_response(&GatewayError::AgentNotFound { agent_id });
    }
    match proxy.find(&agent_id).await {
        Ok(agent)
            if agent
                .card
                .get("signatures")
                .and_then(Value::as_array)
                .is_some_and(|signatures| !signatures.is_empty()) =>
        {
            Json(agent.card.clone()).into_response()
        }
        Ok(_) => (
            http::StatusCode::NOT_FOUND,
            Json(json!({"error": format!("agent {agent_id} registered an unsigned card")})),
        )
            .into_response(),
        Err(error) => status_response(&error),
    }
}

/// The registered document as a client of the gateway should see it, where `through` is
/// `{gateway}/a2a/{agent_id}`.
///
/// An A2A v1.0 card (one with `supportedInterfaces`) is the card as registered with its
/// JSON-RPC and HTTP+JSON interfaces, and a v0.3 top-level `url`, pointing at `through`:
/// clients must not learn the agent's own address. An agent with a gRPC 1.x interface is
/// offered over JSON-RPC and HTTP+JSON too, whichever it lacks, since the gateway
/// translates both to gRPC. Interfaces the gateway cannot carry (gRPC itself, custom) are
/// dropped. The agent's `signatures` are kept as they are: they cover the card as the agent
/// registered it, served at [`SIGNED_CARD_PATH`], not this rewritten one. Anything else is a KubeMQ record, returned as the registry's enriched record,
/// exactly as `GET /agents/{id}` shows it.
///
/// Since the gateway translates between A2A versions on `/a2a/{agent_id}`, the card offers
/// both: a v1.0 card gains a v0.3 JSON-RPC interface and the v0.3 top-level members
/// (`url`, `protocolVersion`, `preferredTransport`) when it lacks them, and a v0.3 card
/// is served as a card of both versions ([`v03::dual_protocol_card`]) with JSON-RPC
/// interfaces at `through`.
fn seen_through_gateway(agent: &RegisteredAgent, through: &str) -> Value {
    if agent.card.get("supportedInterfaces").is_none()
        && let Some(card) = v03_card_through(agent, through)
    {
        return card;
    }
    let mut card = agent.card.clone();
    let grpc_version = grpc_interface(&agent.card)
        .and_then(|interface| interface.get("protocolVersion")?.as_str())
        .map(str::to_owned);
    let Some(Value::Array(interfaces)) = card.get_mut("supportedInterfaces") else {
        return enriched(agent);
    };
    interfaces.retain_mut(|interface| {
        let carried = interface
            .get("protocolBinding")
            .cloned()
            .and_then(|binding| serde_json::from_value::<ProtocolBinding>(binding).ok())
            .is_some_and(|binding| match binding {
                ProtocolBinding::JsonRpc | ProtocolBinding::HttpJson => true,
                ProtocolBinding::Grpc | ProtocolBinding::Other(_) => false,
            });
        if carried && let Some(entry) = interface.as_object_mut() {
            entry.insert("url".to_owned(), through.into());
        }
        carried
    });
    if let Some(version) = grpc_version {
        for binding in [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson] {
            let name = binding.as_str();
            let offered = interfaces.iter().any(|interface| {
                interface.get("protocolBinding").and_then(Value::as_str) == Some(name)
            });
            if !offered {
                interfaces.push(json!({
                    "url": through, "protocolBinding": name, "protocolVersion": version,
                }));
            }
        }
    }
    let offers_jsonrpc = interfaces.iter().any(|interface| {
        interface.get("protocolBinding").and_then(Value::as_str)
            == Some(ProtocolBinding::JsonRpc.as_str())
    });
    let offers_v03 = interfaces.iter().any(|interface| {
        interface.get("protocolBinding").and_then(Value::as_str)
            == Some(ProtocolBinding::JsonRpc.as_str())
            && interface
                .get("protocolVersion")
                .and_then(Value::as_str)
                .is_some_and(|version| version.starts_with("0."))
    });
    // The gateway translates v0.3 on the JSON-RPC route, to JSON-RPC and gRPC agents alike.
    let translated = offers_jsonrpc;
    if translated && !offers_v03 {
        interfaces.push(json!({
            "url": through, "protocolBinding": ProtocolBinding::JsonRpc.as_str(),
            "protocolVersion": V03_INTERFACE_VERSION,
        }));
    }
    if let Some(object) = card.as_object_mut() {
        if object.contains_key("url") || translated {
            object.insert("url".to_owned(), through.into());
        }
        if translated {
            object
                .entry("protocolVersion")
                .or_insert_with(|| v03::PROTOCOL_VERSION.into());
            object
                .entry("preferredTransport")
                .or_insert_with(|| ProtocolBinding::JsonRpc.as_str().into());
        }
    }
    card
}

/// The `protocolVersion` of the v0.3 JSON-RPC interface a card offers through the gateway.
const V03_INTERFACE_VERSION: &str = "0.3";

/// A v0.3 card (no `supportedInterfaces`, a `protocolVersion` 0.x) as a card of both
/// versions whose JSON-RPC interfaces are `through`; `None` for anything else (a KubeMQ
/// record).
fn v03_card_through(agent: &RegisteredAgent, through: &str) -> Option<Value> {
    agent.spoken().v03.as_ref()?;
    let card = translate::card_to_v1(agent.card.clone()).ok()?;
    let mut card = serde_json::to_value(card).ok()?;
    let object = card.as_object_mut()?;
    object.insert(
        "supportedInterfaces".to_owned(),
        json!([
            {"url": through, "protocolBinding": ProtocolBinding::JsonRpc.as_str(), "protocolVersion": "1.0"},
            {"url": through, "protocolBinding": ProtocolBinding::JsonRpc.as_str(), "protocolVersion": V03_INTERFACE_VERSION}
        ]),
    );
    object.remove("signatures");
    let card: AgentCard = serde_json::from_value(card).ok()?;
    serde_json::to_value(v03::dual_protocol_card(&card)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const THROUGH: &str = "http://gw/a2a/echo";

    #[test]
    fn a_v1_card_points_at_the_gateway_for_the_bindings_it_carries() {
        let agent = RegisteredAgent::new(
            "echo",
            "Echo",
            json!({
                "name": "Echo",
                "url": "http://10.0.0.5/a2a",
                "supportedInterfaces": [
                    {"url": "http://10.0.0.5/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                    {"url": "http://10.0.0.5/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
                    {"url": "10.0.0.5:50051", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
                ],
                "signatures": [{"protected": "x", "signature": "y"}]
            }),
        );
        let card = seen_through_gateway(&agent, THROUGH);
        let interfaces = card["supportedInterfaces"].as_array().unwrap();
        // gRPC dropped; JSON-RPC in v0.3 added, which the gateway translates.
        assert_eq!(interfaces.len(), 3);
        assert_eq!(interfaces[2]["protocolVersion"], "0.3");
        assert!(
            interfaces
                .iter()
                .all(|interface| interface["url"] == THROUGH)
        );
        assert_eq!(interfaces[1]["protocolBinding"], "HTTP+JSON");
        assert_eq!(card["url"], THROUGH);
        // The agent's signatures, unchanged: they cover the card as registered.
        assert_eq!(
            card["signatures"],
            json!([{"protected": "x", "signature": "y"}])
        );
    }

    #[test]
    fn a_grpc_only_card_is_offered_over_json_rpc_and_http_json() {
        let agent = RegisteredAgent::new(
            "echo",
            "Echo",
            json!({
                "name": "Echo",
                "supportedInterfaces": [
                    {"url": "10.0.0.5:50051", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
                ]
            }),
        );
        let card = seen_through_gateway(&agent, THROUGH);
        assert_eq!(
            card["supportedInterfaces"],
            json!([
                {"url": THROUGH, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": THROUGH, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
                {"url": THROUGH, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
            ])
        );
    }

    #[test]
    fn a_card_served_through_the_gateway_offers_both_versions() {
        let mut agent = RegisteredAgent::new(
            "echo",
            "Echo",
            json!({
                "name": "Echo", "description": "", "version": "1",
                "supportedInterfaces": [
                    {"url": "http://10.0.0.5/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
                ],
                "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
            }),
        );
        agent.jsonrpc_url = Some("http://10.0.0.5/a2a".to_owned());
        let card = seen_through_gateway(&agent, THROUGH);
        assert_eq!(
            card["supportedInterfaces"],
            json!([
                {"url": THROUGH, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": THROUGH, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
            ])
        );
        assert_eq!(card["url"], THROUGH);
        assert_eq!(card["protocolVersion"], "0.3.0");
        assert_eq!(card["preferredTransport"], "JSONRPC");

        // A v0.3 card: both versions, at the gateway, the agent's address nowhere.
        let mut agent = RegisteredAgent::new(
            "old",
            "Old",
            json!({
                "name": "Old", "description": "", "version": "1", "url": "http://10.0.0.6/",
                "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC",
                "capabilities": {"streaming": true}, "defaultInputModes": ["text"],
                "defaultOutputModes": ["text"], "skills": []
            }),
        );
        agent.jsonrpc_url = Some("http://10.0.0.6/".to_owned());
        let card = seen_through_gateway(&agent, THROUGH);
        let versions: Vec<&str> = card["supportedInterfaces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|interface| {
                assert_eq!(interface["url"], THROUGH);
                interface["protocolVersion"].as_str().unwrap()
            })
            .collect();
        assert_eq!(versions, ["1.0", "0.3"]);
        assert_eq!(card["url"], THROUGH);
        assert_eq!(card["capabilities"]["streaming"], true);
        assert!(!card.to_string().contains("10.0.0.6"), "{card}");
    }

    #[test]
    fn a_kubemq_record_is_the_enriched_record() {
        let agent = RegisteredAgent::new(
            "echo",
            "Echo",
            json!({"name": "Echo", "url": "http://10.0.0.5:8000"}),
        );
        assert_eq!(seen_through_gateway(&agent, THROUGH), enriched(&agent));
    }
}
