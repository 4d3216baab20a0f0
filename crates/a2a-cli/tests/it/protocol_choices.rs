//! The switches of `a2a serve` for the places where the spec and the products it grew from
//! disagree, and the extended card from the command line, over the real binary.

use serde_json::{Value, json};

use crate::support::{SERVE_IN_MEMORY, Server, TempFile, run, user_message};

/// A JSON-RPC call with extra headers; the whole response and its HTTP status.
async fn rpc_with(
    server: &Server,
    headers: &[(&str, &str)],
    method: &str,
    params: Value,
) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("{}/", server.url))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

fn reason(response: &Value) -> &str {
    response["error"]["data"][0]["reason"]
        .as_str()
        .unwrap_or_default()
}

const EXTENDED_CARD: &str = r#"{
    "name": "Echo, extended",
    "description": "What authenticated callers may see",
    "version": "2.0.0",
    "capabilities": {"streaming": true},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "secret-skill", "name": "Secret skill",
                "description": "Only in the extended card", "tags": ["x"]}]
}"#;

#[tokio::test]
async fn an_extended_card_file_is_declared_and_served_on_both_bindings() {
    let file = TempFile::new("extended.json", EXTENDED_CARD);
    let server = Server::start(&["--extended-card", file.path()]);
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["capabilities"]["extendedAgentCard"], true, "{card}");
    // With --no-auth there is no one to authenticate: every caller gets it.
    let (_, response) = rpc_with(
        &server,
        &[("A2A-Version", "1.0")],
        "GetExtendedAgentCard",
        json!({}),
    )
    .await;
    let extended = &response["result"];
    assert_eq!(extended["name"], "Echo, extended", "{response}");
    assert_eq!(extended["skills"][0]["id"], "secret-skill");
    assert_eq!(extended["capabilities"]["extendedAgentCard"], true);
    // The interfaces it left out are the public card's, so a client can switch to it.
    assert_eq!(extended["supportedInterfaces"], card["supportedInterfaces"]);
    let rest = reqwest::Client::new()
        .get(format!("{}/extendedAgentCard", server.url))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 200);
    let rest: Value = rest.json().await.unwrap();
    assert_eq!(rest["name"], "Echo, extended");
    assert!(
        server.log().contains("authentication is off"),
        "{}",
        server.log()
    );
}

#[tokio::test]
async fn the_extended_card_is_for_authenticated_callers_when_authentication_is_on() {
    let file = TempFile::new("extended.json", EXTENDED_CARD);
    let server = Server::start(&["--extended-card", file.path(), "--api-key", "k-0123456789"]);
    let (status, _) = rpc_with(
        &server,
        &[("A2A-Version", "1.0")],
        "GetExtendedAgentCard",
        json!({}),
    )
    .await;
    assert_eq!(status, 401);
    let (status, response) = rpc_with(
        &server,
        &[("A2A-Version", "1.0"), ("X-API-Key", "k-0123456789")],
        "GetExtendedAgentCard",
        json!({}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(response["result"]["skills"][0]["id"], "secret-skill");
    // The schemes the file left out are the public card's.
    assert!(
        response["result"]["securitySchemes"]
            .as_object()
            .is_some_and(|schemes| !schemes.is_empty()),
        "{response}"
    );
}

#[tokio::test]
async fn the_conformance_agent_declares_and_serves_an_extended_card_of_its_own() {
    let server = Server::start(&["--agent", "conformance"]);
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["capabilities"]["extendedAgentCard"], true);
    let extended = server.call("GetExtendedAgentCard", json!({})).await;
    assert_eq!(extended["name"], card["name"]);
    let skills: Vec<&str> = extended["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["id"].as_str().unwrap())
        .collect();
    assert_eq!(skills, ["tck", "tck-extended"]);
}

#[test]
fn an_unreadable_extended_card_is_a_usage_error() {
    let output = run(&[
        SERVE_IN_MEMORY.as_slice(),
        &["--extended-card", "/nonexistent/extended.json"],
    ]
    .concat());
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/nonexistent/extended.json"), "{stderr}");
}

#[tokio::test]
async fn strict_extensions_refuse_an_undeclared_extension_with_extension_support_required() {
    let unknown = [
        ("A2A-Version", "1.0"),
        ("A2A-Extensions", "https://example.com/ext/unknown/v1"),
    ];
    let params = json!({"message": user_message("m-1", "hi")});
    // By default an extension the card does not declare is ignored.
    let lenient = Server::start(&[]);
    let (_, response) = rpc_with(&lenient, &unknown, "SendMessage", params.clone()).await;
    assert!(response.get("result").is_some(), "{response}");

    let strict = Server::start(&["--strict-extensions"]);
    let (status, response) = rpc_with(&strict, &unknown, "SendMessage", params.clone()).await;
    assert_eq!(status, 200);
    assert_eq!(response["error"]["code"], -32008, "{response}");
    assert_eq!(reason(&response), "EXTENSION_SUPPORT_REQUIRED");
    assert_eq!(
        response["error"]["data"][0]["metadata"]["extension"],
        "https://example.com/ext/unknown/v1"
    );
    let rest = reqwest::Client::new()
        .post(format!("{}/message:send", strict.url))
        .header("A2A-Version", "1.0")
        .header("A2A-Extensions", "https://example.com/ext/unknown/v1")
        .json(&params)
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 400);
    let body: Value = rest.json().await.unwrap();
    assert_eq!(
        body["error"]["details"][0]["reason"],
        "EXTENSION_SUPPORT_REQUIRED"
    );
}

#[tokio::test]
async fn the_version_switch_and_the_message_id_switch_accept_what_the_spec_refuses() {
    let message = json!({"role": "ROLE_USER", "parts": [{"text": "hi"}]});
    let strict = Server::start(&[]);
    let (_, response) = rpc_with(&strict, &[], "SendMessage", json!({"message": message})).await;
    assert_eq!(reason(&response), "VERSION_NOT_SUPPORTED", "{response}");
    let (_, response) = rpc_with(
        &strict,
        &[("A2A-Version", "1.0")],
        "SendMessage",
        json!({"message": message}),
    )
    .await;
    assert_eq!(reason(&response), "INVALID_PARAMS", "{response}");

    let lenient = Server::start(&["--assume-version", "1.0", "--lenient-message-id"]);
    let (_, response) = rpc_with(&lenient, &[], "SendMessage", json!({"message": message})).await;
    assert_eq!(
        response["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{response}"
    );
}

/// The HTTP statuses of two cancels of one task waiting for input, over HTTP+JSON.
async fn cancel_twice(server: &Server) -> Vec<u16> {
    let http = reqwest::Client::new();
    let asked = server.send("tck-input-required-c", "x", json!({})).await;
    assert_eq!(
        asked["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{asked}"
    );
    let task_id = asked["task"]["id"].as_str().unwrap();
    let mut statuses = Vec::new();
    for _ in 0..2 {
        let response = http
            .post(format!("{}/tasks/{task_id}:cancel", server.url))
            .header("A2A-Version", "1.0")
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        statuses.push(response.status().as_u16());
    }
    statuses
}

#[tokio::test]
async fn idempotent_cancel_and_the_status_profile_decide_what_a_second_cancel_gets() {
    let spec = Server::start(&["--agent", "conformance"]);
    assert_eq!(cancel_twice(&spec).await, [200, 400]);
    let camel = Server::start(&["--agent", "conformance", "--rest-status-profile", "camel"]);
    assert_eq!(cancel_twice(&camel).await, [200, 409]);
    let idempotent = Server::start(&["--agent", "conformance", "--idempotent-cancel"]);
    assert_eq!(cancel_twice(&idempotent).await, [200, 200]);
}

/// The errors the strict v1.0 card schema finds in `card` (none when it passes).
fn v1_schema_errors(card: &Value) -> Vec<String> {
    let schema: Value =
        serde_json::from_str(include_str!("../fixtures/agent-card-v1.schema.json")).unwrap();
    let validator = jsonschema::Validator::new(&schema).unwrap();
    validator
        .iter_errors(card)
        .map(|error| error.to_string())
        .collect()
}

/// The v0.3 members a card serving both versions carries at its top level.
const V03_CARD_MEMBERS: [&str; 6] = [
    "url",
    "preferredTransport",
    "protocolVersion",
    "additionalInterfaces",
    "supportsAuthenticatedExtendedCard",
    "security",
];

#[tokio::test]
async fn protocol_versions_1_0_serves_a_card_the_strict_v1_schema_accepts() {
    // An API key gives the card a security scheme, whose v0.3 members must go too.
    let server = Server::start(&[
        "--agent",
        "conformance",
        "--protocol-versions",
        "1.0",
        "--api-key",
        "k-123456",
    ]);
    let card = server.get("/.well-known/agent-card.json").await;
    assert!(
        !card["securitySchemes"].as_object().unwrap().is_empty(),
        "{card}"
    );
    assert_eq!(card["capabilities"]["extendedAgentCard"], true, "{card}");
    let errors = v1_schema_errors(&card);
    assert!(errors.is_empty(), "{errors:#?}\n{card:#}");
    for member in V03_CARD_MEMBERS {
        assert!(card.get(member).is_none(), "{member}: {card}");
    }
    assert!(card["capabilities"].get("stateTransitionHistory").is_none());
    for interface in card["supportedInterfaces"].as_array().unwrap() {
        assert_eq!(interface["protocolVersion"], "1.0", "{card}");
    }
}

#[tokio::test]
async fn the_default_card_is_the_union_v03_clients_discover_the_agent_by() {
    let server = Server::start(&["--agent", "conformance", "--api-key", "k-123456"]);
    let card = server.get("/.well-known/agent-card.json").await;
    for member in [
        "url",
        "preferredTransport",
        "protocolVersion",
        "additionalInterfaces",
    ] {
        assert!(card.get(member).is_some(), "{member}: {card}");
    }
    assert_eq!(card["supportsAuthenticatedExtendedCard"], true, "{card}");
    assert_eq!(
        card["securitySchemes"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap()["type"],
        "apiKey",
        "{card}"
    );
    // Which is why a strict v1.0 schema refuses it.
    let errors = v1_schema_errors(&card);
    assert!(!errors.is_empty(), "{card:#}");
    // A v1.0 reader still reads it.
    let typed: a2a_types::AgentCard = serde_json::from_value(card).unwrap();
    assert!(
        typed
            .supported_interfaces
            .iter()
            .any(|interface| interface.is_v1())
    );
}
