//! `a2a card URL`: the summary, the JSON, and where the card is looked for.

use serde_json::Value;

use crate::client_mock::cli;
use crate::support::Server;

#[test]
fn the_summary_names_the_agent_its_interfaces_capabilities_and_skills() {
    let server = Server::start(&["--agent", "echo"]);
    let run = cli(&["card", &server.url]);
    let text = run.ok();
    assert!(text.starts_with("Echo v"), "{text}");
    for expected in [
        "Answers every message with an artifact holding its text.",
        &format!("  JSONRPC    {}", server.url),
        &format!("  HTTP+JSON  {}", server.url),
        "streaming: yes  push notifications: no  extended card: no",
        "  Echo (echo)  Repeats the message text as an artifact",
        "Security\n  none required",
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} missing from:\n{text}"
        );
    }
    assert!(
        !text.contains('\x1b'),
        "no colours when stdout is not a terminal"
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn json_prints_the_card_as_served() {
    let server = Server::start(&["--agent", "echo"]);
    let run = cli(&["card", &server.url, "--json"]);
    let lines = run.json_lines();
    assert_eq!(lines.len(), 1);
    let card = &lines[0];
    assert_eq!(card["name"], "Echo");
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
}

#[test]
fn the_card_url_itself_works_too() {
    let server = Server::start(&["--agent", "conformance"]);
    let url = format!("{}/.well-known/agent-card.json", server.url);
    let run = cli(&["card", &url, "--json"]);
    assert_eq!(
        run.json_lines()[0]["name"],
        Value::from("A2A conformance agent")
    );
}
