//! The card `a2a serve` publishes, from its sources: a card in a pre-1.0 spelling accepted
//! with a warning, and the interfaces it names that this server does not serve warned about.

use std::time::Duration;

use serde_json::json;

use crate::support::{Server, TempFile, eventually};

/// The server's log once its start-up summary is written (the warnings come before it).
async fn start_up_log(server: &Server) -> String {
    eventually(Duration::from_secs(5), || async {
        Some(server.log()).filter(|log| log.contains("serving"))
    })
    .await
    .expect("a start-up log line")
}

/// The example card of Camel's consumer guide, as printed there.
fn camel_example_card() -> serde_json::Value {
    json!({
        "protocolVersion": "1.0",
        "name": "my-agent",
        "description": "A simple Camel A2A agent",
        "url": "http://localhost:8080",
        "version": "1.0.0",
        "provider": {"name": "Example", "url": "https://example.com"},
        "capabilities": {"streaming": false, "pushNotifications": false, "extendedAgentCard": false},
        "supportedInterfaces": [
            {"url": "http://localhost:8080", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
        ],
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{
            "id": "greet", "name": "Greeting", "description": "Returns a greeting message",
            "tags": ["greeting"], "examples": ["Say hello to Ada"],
            "inputModes": ["text/plain"], "outputModes": ["text/plain"]
        }]
    })
}

#[tokio::test]
async fn a_card_with_provider_name_is_served_with_organization_and_a_warning() {
    let file = TempFile::new("agent-card.json", &camel_example_card().to_string());
    let server = Server::start(&["--card", file.path()]);
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["provider"]["organization"], "Example", "{card}");
    assert_eq!(card["provider"]["url"], "https://example.com");
    assert!(card["provider"].get("name").is_none(), "{card}");
    // The legacy members the card type keeps are kept.
    assert_eq!(card["url"], "http://localhost:8080");
    let log = start_up_log(&server).await;
    assert!(log.contains("provider.name"), "{log}");
    assert!(log.contains("provider.organization"), "{log}");
    let reply = server
        .post(
            "/message:send",
            &json!({"message": crate::support::user_message("m-1", "hi")}),
        )
        .await;
    assert_eq!(reply.0, 200, "{}", reply.1);
}

#[tokio::test]
async fn interfaces_of_a_binding_not_served_are_warned_about_at_start() {
    let mut card = camel_example_card();
    card["supportedInterfaces"] = json!([
        {"url": "http://localhost:8080/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "localhost:50051", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        {"url": "kafka://broker/agent", "protocolBinding": "urn:example:kafka", "protocolVersion": "1.0"},
        {"url": "http://localhost:8080/v2", "protocolBinding": "JSONRPC", "protocolVersion": "2.0"}
    ]);
    let file = TempFile::new("agent-card.json", &card.to_string());
    let server = Server::start(&["--card", file.path()]);
    let served = server.get("/.well-known/agent-card.json").await;
    assert_eq!(served["name"], "my-agent");
    let log = start_up_log(&server).await;
    assert!(log.contains("GRPC interface at localhost:50051"), "{log}");
    assert!(log.contains("--grpc-bind"), "{log}");
    assert!(
        log.contains("urn:example:kafka interface at kafka://broker/agent"),
        "{log}"
    );
    assert!(
        log.contains("interface at http://localhost:8080/v2"),
        "{log}"
    );
    assert!(
        !log.contains("interface at http://localhost:8080/a2a "),
        "{log}"
    );
}
