//! CORS over the socket: off by default; when on, preflights on every path
//! and an allowed origin on every response.

use a2a_server::cors::CorsConfig;
use a2a_server::{A2aServer, ServerConfig};
use reqwest::Method;
use serde_json::json;

use crate::support::{BindingEcho, RawResponse, TestServer, send_params, standard_card};

const ORIGIN: (&str, &str) = ("Origin", "https://app.example");

async fn serve_with(cors: Option<CorsConfig>) -> TestServer {
    let mut config = ServerConfig::default();
    config.cors = cors;
    TestServer::start_with(A2aServer::builder(standard_card(), BindingEcho).config(config)).await
}

async fn preflight(server: &TestServer, path: &str, origin: &str) -> RawResponse {
    let headers = [
        ("Origin", origin),
        ("Access-Control-Request-Method", "POST"),
        (
            "Access-Control-Request-Headers",
            "content-type, a2a-version",
        ),
    ];
    server.send(Method::OPTIONS, path, &headers, None).await
}

async fn send_message(server: &TestServer, origin: &str) -> RawResponse {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": send_params("hi", json!({})),
    });
    let headers = [
        ("Origin", origin),
        ("A2A-Version", "1.0"),
        ("Content-Type", "application/json"),
    ];
    server
        .send(
            Method::POST,
            "/a2a",
            &headers,
            Some(body.to_string().into_bytes()),
        )
        .await
}

#[tokio::test]
async fn cors_is_off_unless_configured() {
    let server = serve_with(None).await;
    let response = send_message(&server, ORIGIN.1).await;
    assert_eq!(response.status, 200);
    let preflight = preflight(&server, "/a2a", ORIGIN.1).await;
    for response in [&response, &preflight] {
        let cors: Vec<_> = response
            .headers
            .keys()
            .filter(|name| name.as_str().starts_with("access-control-"))
            .collect();
        assert!(cors.is_empty(), "no CORS headers expected: {cors:?}");
    }
}

#[tokio::test]
async fn every_path_answers_preflights_with_the_default_headers() {
    let server = serve_with(Some(CorsConfig::default())).await;
    let paths = [
        "/a2a",
        "/rest/message:send",
        "/rest/tasks/some-task",
        "/.well-known/agent-card.json",
        "/not-an-a2a-path",
    ];
    for path in paths {
        let response = preflight(&server, path, ORIGIN.1).await;
        assert_eq!(response.status, 200, "{path}");
        assert!(response.body.is_empty(), "{path}");
        assert_eq!(response.header("access-control-allow-origin"), Some("*"));
        let methods = response.header("access-control-allow-methods").unwrap();
        assert!(
            methods.contains("POST") && methods.contains("GET"),
            "{methods}"
        );
        let headers = response.header("access-control-allow-headers").unwrap();
        for needed in [
            "A2A-Version",
            "A2A-Extensions",
            "Authorization",
            "Content-Type",
        ] {
            assert!(headers.contains(needed), "{needed} missing from {headers}");
        }
        assert_eq!(response.header("access-control-max-age"), Some("3600"));
        assert_eq!(response.header("access-control-allow-credentials"), None);
    }
}

#[tokio::test]
async fn responses_carry_the_allowed_origin() {
    let server = serve_with(Some(CorsConfig::default())).await;
    let sent = send_message(&server, ORIGIN.1).await;
    assert_eq!(sent.status, 200);
    let card = server
        .send(Method::GET, "/.well-known/agent-card.json", &[ORIGIN], None)
        .await;
    let missing = server
        .send(
            Method::GET,
            "/rest/tasks/unknown",
            &[ORIGIN, ("A2A-Version", "1.0")],
            None,
        )
        .await;
    assert_eq!(missing.status, 404);
    for response in [&sent, &card, &missing] {
        assert_eq!(response.header("access-control-allow-origin"), Some("*"));
    }
}

#[tokio::test]
async fn a_listed_origin_is_echoed_and_others_are_not_allowed() {
    let mut cors = CorsConfig::default();
    cors.allow_origins = vec!["https://app.example".into(), "https://admin.example".into()];
    cors.allow_credentials = true;
    let server = serve_with(Some(cors)).await;

    let allowed = preflight(&server, "/a2a", "https://app.example").await;
    assert_eq!(allowed.status, 200);
    assert_eq!(
        allowed.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    assert_eq!(allowed.header("vary"), Some("Origin"));
    assert_eq!(
        allowed.header("access-control-allow-credentials"),
        Some("true")
    );
    let sent = send_message(&server, "https://admin.example").await;
    assert_eq!(
        sent.header("access-control-allow-origin"),
        Some("https://admin.example")
    );

    let refused = send_message(&server, "https://evil.example").await;
    assert_eq!(refused.status, 200, "CORS is the browser's to enforce");
    assert_eq!(refused.header("access-control-allow-origin"), None);
    assert_eq!(refused.header("vary"), Some("Origin"));
}

#[tokio::test]
async fn credentials_are_dropped_next_to_a_wildcard_origin() {
    let mut cors = CorsConfig::default();
    cors.allow_credentials = true;
    let server = serve_with(Some(cors)).await;
    let response = preflight(&server, "/a2a", ORIGIN.1).await;
    assert_eq!(response.header("access-control-allow-origin"), Some("*"));
    assert_eq!(response.header("access-control-allow-credentials"), None);
}

#[tokio::test]
async fn a_page_may_send_the_cards_api_key_header_and_read_the_a2a_headers() {
    let mut card = standard_card();
    card.security_schemes.insert(
        "team-key".into(),
        a2a_types::card::SecurityScheme::api_key(
            a2a_types::card::ApiKeyLocation::Header,
            "X-Team-Key",
        ),
    );
    let mut config = ServerConfig::default();
    config.cors = Some(CorsConfig::default());
    let server = TestServer::start_with(A2aServer::builder(card, BindingEcho).config(config)).await;
    let headers = [
        ("Origin", ORIGIN.1),
        ("Access-Control-Request-Method", "POST"),
        (
            "Access-Control-Request-Headers",
            "x-team-key, authorization, a2a-version, a2a-extensions, last-event-id",
        ),
    ];
    let response = server.send(Method::OPTIONS, "/a2a", &headers, None).await;
    assert_eq!(response.status, 200);
    let allowed = response.header("access-control-allow-headers").unwrap();
    for needed in [
        "X-Team-Key",
        "Authorization",
        "A2A-Version",
        "A2A-Extensions",
        "Last-Event-ID",
    ] {
        assert!(allowed.contains(needed), "{needed} missing from {allowed}");
    }
    let sent = send_message(&server, ORIGIN.1).await;
    let exposed = sent.header("access-control-expose-headers").unwrap();
    for needed in [
        "a2a-version",
        "a2a-extensions",
        "www-authenticate",
        "retry-after",
    ] {
        assert!(
            exposed.to_ascii_lowercase().contains(needed),
            "{needed} missing from {exposed}"
        );
    }
}

#[tokio::test]
async fn a_preflight_from_an_origin_not_listed_is_refused() {
    let mut cors = CorsConfig::default();
    cors.allow_origins = vec!["https://app.example".into()];
    let server = serve_with(Some(cors)).await;
    let refused = preflight(&server, "/a2a", "https://evil.example").await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.header("access-control-allow-origin"), None);
    assert_eq!(refused.header("access-control-allow-methods"), None);
    assert_eq!(refused.header("vary"), Some("Origin"));
    // Any origin (the default) refuses no preflight.
    let open = serve_with(Some(CorsConfig::default())).await;
    assert_eq!(
        preflight(&open, "/a2a", "https://evil.example")
            .await
            .status,
        200
    );
}
