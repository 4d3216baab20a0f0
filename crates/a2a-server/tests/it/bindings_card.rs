//! The public agent card route (spec §2.12, §11.6): public, no extension negotiation,
//! cacheable, conditional, at a configurable path.

use a2a_server::A2aServer;
use reqwest::Method;

use crate::support::{
    BindingEcho, RawResponse, TestServer, serve_requiring_an_extension, standard_card,
};

const CARD: &str = "/.well-known/agent-card.json";

async fn fetch(server: &TestServer, headers: &[(&str, &str)]) -> RawResponse {
    server.send(Method::GET, CARD, headers, None).await
}

#[tokio::test]
async fn the_card_is_served_with_cache_validators() {
    let server = TestServer::start(BindingEcho).await;
    let response = fetch(&server, &[]).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.header("cache-control"), Some("max-age=3600"));
    let etag = response.header("etag").unwrap();
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && etag.len() > 2,
        "{etag}"
    );
    let last_modified = response.header("last-modified").unwrap();
    assert!(last_modified.ends_with(" GMT"), "{last_modified}");
    let card = response.json();
    assert_eq!(card["name"], "Test agent");
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        "http://localhost/a2a"
    );
    assert_eq!(
        card,
        serde_json::to_value(server.server.handler().card()).unwrap()
    );
}

#[tokio::test]
async fn the_card_needs_no_version_and_no_extensions() {
    let server = serve_requiring_an_extension().await;
    for headers in [
        vec![],
        vec![("A2A-Version", "0.3")],
        vec![("A2A-Version", "9.9")],
    ] {
        let response = fetch(&server, &headers).await;
        assert_eq!(response.status, 200, "{headers:?}");
        assert_eq!(response.header("a2a-extensions"), None);
    }
}

#[tokio::test]
async fn conditional_requests_are_answered_with_304() {
    let server = TestServer::start(BindingEcho).await;
    let first = fetch(&server, &[]).await;
    let etag = first.header("etag").unwrap().to_owned();
    let last_modified = first.header("last-modified").unwrap().to_owned();

    let weak = format!("W/{etag}");
    let listed = format!("\"other\", {etag}");
    for value in [etag.as_str(), weak.as_str(), listed.as_str(), "*"] {
        let response = fetch(&server, &[("If-None-Match", value)]).await;
        assert_eq!(response.status, 304, "{value}");
        assert!(response.body.is_empty());
        assert_eq!(response.header("etag"), Some(etag.as_str()));
        assert_eq!(response.header("cache-control"), Some("max-age=3600"));
    }
    assert_eq!(
        fetch(&server, &[("If-None-Match", "\"stale\"")])
            .await
            .status,
        200
    );

    assert_eq!(
        fetch(&server, &[("If-Modified-Since", &last_modified)])
            .await
            .status,
        304
    );
    let long_ago = "Thu, 01 Jan 1970 00:00:00 GMT";
    assert_eq!(
        fetch(&server, &[("If-Modified-Since", long_ago)])
            .await
            .status,
        200
    );
    // If-None-Match decides when both are sent (RFC 9110 §13.1.3).
    let both = [
        ("If-None-Match", "\"stale\""),
        ("If-Modified-Since", last_modified.as_str()),
    ];
    assert_eq!(fetch(&server, &both).await.status, 200);
}

#[tokio::test]
async fn the_card_answers_head_and_refuses_writes() {
    let server = TestServer::start(BindingEcho).await;
    let head = server.send(Method::HEAD, CARD, &[], None).await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert!(head.header("etag").is_some());

    let post = server
        .send(Method::POST, CARD, &[], Some(b"{}".to_vec()))
        .await;
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
    assert_eq!(post.json()["error"]["code"], 405);
}

#[tokio::test]
async fn the_card_path_is_configurable_and_under_the_base_path() {
    let builder = A2aServer::builder(standard_card(), BindingEcho)
        .base_path("/agents/echo")
        .card_path("/card.json");
    let server = TestServer::start_with(builder).await;
    let response = server
        .send(Method::GET, "/agents/echo/card.json", &[], None)
        .await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["name"], "Test agent");
    assert_eq!(server.send(Method::GET, CARD, &[], None).await.status, 404);
}

#[tokio::test]
async fn different_cards_have_different_etags() {
    let one = TestServer::start(BindingEcho).await;
    let mut card = standard_card();
    card.description = "Another description".into();
    let two = TestServer::start_with(A2aServer::builder(card, BindingEcho)).await;
    let etag = |response: RawResponse| response.header("etag").map(str::to_owned);
    let (first, second) = (etag(fetch(&one, &[]).await), etag(fetch(&two, &[]).await));
    assert_ne!(first, second);
    assert_eq!(first, etag(fetch(&one, &[]).await));
}
