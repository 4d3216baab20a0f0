//! `a2a serve` with authentication (issue 7): on by default and closed until credentials
//! are configured; `--api-key` and `--bearer-token` declared in the card
//! and accepted; the client commands present them; secrets never in the card or the log.

use serde_json::json;

use crate::client_mock::cli;
use crate::support::Server;

#[tokio::test]
async fn without_credentials_every_call_is_refused_with_a_warning_at_start() {
    // `--no-auth` is what the test support adds when no auth flag is given; `--no-auth=false`
    // is the default, spelled out so the support leaves it alone.
    let server = Server::start(&["--no-auth=false"]);
    assert!(
        server.log().contains("every operation is refused with 401"),
        "{}",
        server.log()
    );
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["name"], "Echo", "the card stays public");
    let run = cli(&["send", &server.url, "hello"]);
    let line = run.failed(1);
    assert!(line.contains("authentication"), "{line}");
}

#[tokio::test]
async fn an_api_key_is_declared_in_the_card_and_accepted_from_the_client() {
    let server = Server::start(&["--api-key", "k-0123456789"]);
    let card = server.get("/.well-known/agent-card.json").await;
    // The 1.0 scheme, with its v0.3 members beside it for v0.3 clients.
    assert_eq!(
        card["securitySchemes"]["apiKey"],
        json!({"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"},
            "type": "apiKey", "in": "header", "name": "X-API-Key"})
    );
    assert_eq!(
        card["securityRequirements"],
        json!([{"schemes": {"apiKey": {}}}])
    );
    assert!(!card.to_string().contains("k-0123456789"));

    let text = cli(&["send", &server.url, "hello", "--api-key", "k-0123456789"])
        .ok()
        .to_owned();
    assert!(text.ends_with("hello\n"), "{text}");
    for binding in ["jsonrpc", "rest"] {
        let run = cli(&[
            "send",
            &server.url,
            "hi",
            "--api-key",
            "wrong",
            "--binding",
            binding,
        ]);
        let line = run.failed(1);
        assert!(line.contains("API key is not valid"), "{binding}: {line}");
        assert!(!line.contains("wrong"), "{line}");
    }
    let line = cli(&["list", &server.url]).failed(1).to_owned();
    assert!(line.contains("X-API-Key"), "{line}");
    assert!(!server.log().contains("k-0123456789"), "{}", server.log());
}

#[tokio::test]
async fn a_bearer_token_works_and_each_credential_is_an_alternative() {
    let server = Server::start(&["--bearer-token", "tok-abcdef", "--api-key", "k-1"]);
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(
        card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"],
        json!({"scheme": "Bearer"})
    );
    cli(&["send", &server.url, "one", "--bearer", "tok-abcdef"]).ok();
    cli(&["send", &server.url, "two", "--api-key", "k-1"]).ok();
    let line = cli(&["send", &server.url, "three", "--bearer", "tok-abcdeX"])
        .failed(1)
        .to_owned();
    assert!(line.contains("bearer token is not valid"), "{line}");
    // Static credentials carry no identity, so both are one caller: the tasks are shared.
    let listed = cli(&["list", &server.url, "--json", "--api-key", "k-1"]).json_lines();
    assert_eq!(
        listed[0]["tasks"].as_array().map(Vec::len),
        Some(2),
        "{listed:?}"
    );
}
