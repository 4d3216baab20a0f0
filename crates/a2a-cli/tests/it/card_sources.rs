//! The card `a2a serve` publishes, from its sources: a card in a pre-1.0 spelling accepted
//! with a warning, a card naming interfaces this server does not serve refused at start-up, a
//! card from a URL or inline JSON, and its cache max-age.

use std::time::Duration;

use serde_json::json;

use crate::support::{SERVE_IN_MEMORY, Server, TempFile, eventually, run};

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
async fn a_card_naming_a_binding_not_served_fails_start_up_unless_narrowed() {
    let mut card = camel_example_card();
    card["supportedInterfaces"] = json!([
        {"url": "http://localhost:8080/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "localhost:50051", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        {"url": "kafka://broker/agent", "protocolBinding": "urn:example:kafka", "protocolVersion": "1.0"},
        {"url": "http://localhost:8080/v2", "protocolBinding": "JSONRPC", "protocolVersion": "2.0"}
    ]);
    let file = TempFile::new("agent-card.json", &card.to_string());
    let mut args = SERVE_IN_MEMORY.to_vec();
    args.extend(["--card", file.path()]);
    let output = run(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        !String::from_utf8_lossy(&output.stdout).contains("listening on"),
        "{stderr}"
    );
    assert!(
        stderr.contains("GRPC interface at localhost:50051"),
        "{stderr}"
    );
    assert!(stderr.contains("--grpc-bind"), "{stderr}");
    assert!(
        stderr.contains("urn:example:kafka interface at kafka://broker/agent"),
        "{stderr}"
    );
    assert!(
        stderr.contains("interface at http://localhost:8080/v2"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("interface at http://localhost:8080/a2a "),
        "{stderr}"
    );
    assert!(stderr.contains("--protocol-binding"), "{stderr}");

    // Serving only the JSON-RPC binding, the card is narrowed to the interfaces served.
    let mut narrowed = card.clone();
    narrowed["supportedInterfaces"] = json!([
        {"url": "http://localhost:8080/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "localhost:50051", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
    ]);
    let file = TempFile::new("agent-card.json", &narrowed.to_string());
    let server = Server::start(&["--card", file.path(), "--protocol-binding", "jsonrpc"]);
    let served = server.get("/.well-known/agent-card.json").await;
    let bindings: Vec<&str> = served["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|interface| interface["protocolBinding"].as_str())
        .collect();
    assert!(
        bindings.iter().all(|binding| *binding == "JSONRPC"),
        "{served}"
    );
}

#[tokio::test]
async fn a_card_given_inline_is_served_with_its_cache_max_age() {
    let card = camel_example_card().to_string();
    let server = Server::start(&["--card-json", &card, "--card-max-age", "90s"]);
    let response = reqwest::get(format!("{}/.well-known/agent-card.json", server.url))
        .await
        .unwrap();
    assert_eq!(
        response.headers()["cache-control"].to_str().unwrap(),
        "max-age=90"
    );
    let served: serde_json::Value = response.json().await.unwrap();
    assert_eq!(served["name"], "my-agent");
    assert_eq!(served["provider"]["organization"], "Example");
    let log = start_up_log(&server).await;
    assert!(log.contains("--card-json: provider.name"), "{log}");
}

#[tokio::test]
async fn a_card_from_a_url_is_fetched_at_start_and_served() {
    let upstream = Server::start(&["--card-json", &camel_example_card().to_string()]);
    // A bare origin means its well-known card.
    let server = Server::start(&["--card-url", &upstream.url]);
    let response = reqwest::get(format!("{}/.well-known/agent-card.json", server.url))
        .await
        .unwrap();
    assert_eq!(
        response.headers()["cache-control"].to_str().unwrap(),
        "max-age=3600"
    );
    let served: serde_json::Value = response.json().await.unwrap();
    assert_eq!(served["name"], "my-agent");
    assert_eq!(served["skills"][0]["id"], "greet");
    // Served on this server: the card's interface path is routed here.
    let reply = server
        .post(
            "/message:send",
            &json!({"message": crate::support::user_message("m-2", "hi")}),
        )
        .await;
    assert_eq!(reply.0, 200, "{}", reply.1);
}

#[test]
fn a_card_url_that_does_not_answer_or_two_card_sources_are_refused() {
    let output = crate::support::run(&[
        "serve",
        "--no-auth",
        "--store",
        "memory",
        "--bind",
        "127.0.0.1:0",
        "--card-url",
        "http://user:hunter2@127.0.0.1:9/card.json",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot fetch the card at http://127.0.0.1:9/card.json"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");

    let output = crate::support::run(&["serve", "--card", "card.json", "--card-json", "{}"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("give one card source"), "{stderr}");
}
