//! The served card: from a file, from parameters, and both.

use serde_json::json;

use crate::support::{Server, TempFile, interface_bindings};

const CARD: &str = "/.well-known/agent-card.json";

fn card_file(interfaces: &serde_json::Value) -> TempFile {
    let card = json!({
        "name": "Filed agent",
        "description": "Described in the file",
        "version": "1.0.0",
        "supportedInterfaces": interfaces,
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "filed", "name": "Filed", "description": "From the file", "tags": []}],
        "documentationUrl": "https://example.com/docs"
    });
    TempFile::new("card.json", &card.to_string())
}

#[tokio::test]
async fn a_card_file_is_served_with_interfaces_added_when_it_names_none() {
    let file = card_file(&json!([]));
    let server = Server::start(&["--card", file.path()]);
    let card = server.get(CARD).await;
    assert_eq!(card["name"], "Filed agent");
    assert_eq!(card["skills"][0]["id"], "filed");
    assert_eq!(card["documentationUrl"], "https://example.com/docs");
    let bindings = interface_bindings(&card);
    assert_eq!(bindings, ["JSONRPC", "HTTP+JSON"]);
    let task = server.send("m1", "from the file", json!({})).await;
    assert_eq!(task["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn parameters_override_the_files_name_description_and_version_only() {
    let file = card_file(&json!([]));
    let server = Server::start(&[
        "--card",
        file.path(),
        "--name",
        "Renamed",
        "--description",
        "Described by a flag",
        "--version",
        "2.0.0",
    ]);
    let card = server.get(CARD).await;
    assert_eq!(card["name"], "Renamed");
    assert_eq!(card["description"], "Described by a flag");
    assert_eq!(card["version"], "2.0.0");
    assert_eq!(
        card["skills"][0]["id"], "filed",
        "the rest stays the file's"
    );
}

#[tokio::test]
async fn parameters_alone_build_a_card() {
    let server = Server::start(&["--name", "Param agent", "--description", "Only flags"]);
    let card = server.get(CARD).await;
    assert_eq!(card["name"], "Param agent");
    assert_eq!(card["description"], "Only flags");
    assert!(card["version"].is_string());
    assert!(
        card.get("securitySchemes").is_none(),
        "a card built from parameters has no security schemes"
    );
}

#[tokio::test]
async fn a_card_files_own_interfaces_decide_the_routes() {
    let file = card_file(&json!([
        {"url": "http://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]));
    let server = Server::start(&["--card", file.path()]);
    let card = server.get(CARD).await;
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        "http://agent.example.com/a2a"
    );
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                      "params": {"message": crate::support::user_message("m1", "x")}});
    let (status, text) = server.post("/a2a", &body).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("TASK_STATE_COMPLETED"), "{text}");
}

#[tokio::test]
async fn the_base_path_prefixes_the_routes_and_the_card_urls() {
    let server = Server::start(&["--base-path", "/agents/echo"]);
    let card = server.get("/agents/echo/.well-known/agent-card.json").await;
    let url = format!("{}/agents/echo", server.url);
    assert_eq!(card["supportedInterfaces"][0]["url"], url.as_str());
    let body = json!({"message": crate::support::user_message("m1", "x")});
    let (status, text) = server.post("/agents/echo/message:send", &body).await;
    assert_eq!(status, 200, "{text}");
}
