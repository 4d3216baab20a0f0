//! Card discovery against mock servers and our own.

use a2a_client::{A2aClient, CardFetchOptions, ClientError, fetch_agent_card};
use a2a_types::{ErrorKind, ProtocolBinding};
use axum::body::Body;
use axum::response::Response;
use serde_json::json;

use crate::support::{Agent, Mock, json_response};

fn card_json(interfaces: serde_json::Value) -> serde_json::Value {
    let mut card = json!({"name": "agent", "description": "d", "version": "1", "capabilities": {}});
    card["supportedInterfaces"] = interfaces;
    card
}

fn redirect(location: &str) -> Response {
    Response::builder()
        .status(302)
        .header("location", location)
        .body(Body::empty())
        .unwrap()
}

#[tokio::test]
async fn the_card_is_read_at_the_well_known_path_of_the_origin() {
    let agent = Agent::start().await;
    let client = A2aClient::discover(&format!("{}/some/page", agent.base()))
        .await
        .unwrap();
    assert_eq!(
        client.binding(),
        ProtocolBinding::JsonRpc,
        "first interface"
    );
    assert_eq!(client.url(), format!("{}/a2a", agent.base()));
    assert_eq!(client.card().unwrap().name, "Script agent");

    let rest = A2aClient::builder()
        .prefer_binding(ProtocolBinding::HttpJson)
        .discover(&agent.base())
        .await
        .unwrap();
    assert_eq!(rest.url(), format!("{}/rest", agent.base()));
    rest.send_message(a2a_client::message::request("hi"))
        .await
        .unwrap();
}

#[tokio::test]
async fn json_urls_are_used_as_is_and_paths_resolve_against_the_url() {
    let mock = Mock::start(|request, _| match request.uri.path() {
        "/cards/agent.json" | "/agents/echo/card" => json_response(
            200,
            &card_json(
                json!([{"url": "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]),
            ),
        ),
        _ => Response::builder()
            .status(404)
            .body(Body::from("Not Found"))
            .unwrap(),
    })
    .await;
    fetch_agent_card(&mock.url("/cards/agent.json"), &CardFetchOptions::new())
        .await
        .unwrap();
    fetch_agent_card(
        &mock.url("/agents/"),
        &CardFetchOptions::new().path("echo/card"),
    )
    .await
    .unwrap();
    let missing = fetch_agent_card(&mock.url("/"), &CardFetchOptions::new())
        .await
        .unwrap_err();
    assert!(
        matches!(missing, ClientError::Http { status: 404, .. }),
        "{missing:?}"
    );

    // A relative interface URL resolves against where the card came from.
    let client = A2aClient::builder()
        .discover(&mock.url("/cards/agent.json"))
        .await
        .unwrap();
    assert_eq!(client.url(), mock.url("/a2a"));
}

#[tokio::test]
async fn redirects_are_refused_unless_following_is_switched_on() {
    let mock = Mock::start(|request, _| match request.uri.path() {
        "/.well-known/agent-card.json" => redirect("/moved/card.json"),
        _ => json_response(
            200,
            &card_json(
                json!([{"url": "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]),
            ),
        ),
    })
    .await;
    let refused = fetch_agent_card(&mock.url("/"), &CardFetchOptions::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, ClientError::Redirect { status: 302, location: Some(location) } if location == "/moved/card.json"),
        "{refused:?}"
    );
    assert!(!refused.is_retryable());
    assert_eq!(mock.requests().len(), 1, "the redirect was not followed");

    let card = fetch_agent_card(
        &mock.url("/"),
        &CardFetchOptions::new().follow_redirects(true),
    )
    .await
    .unwrap();
    assert_eq!(card.name, "agent");

    // The client's own calls never follow redirects either.
    let calls = Mock::start(|_, _| redirect("http://127.0.0.1:9/elsewhere")).await;
    let client = A2aClient::from_url(&calls.url("/a2a"), ProtocolBinding::JsonRpc).unwrap();
    let error = client
        .get_task(a2a_types::GetTaskRequest {
            tenant: String::new(),
            id: "t".into(),
            history_length: None,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(error, ClientError::Redirect { status: 302, .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_fetched_without_the_callers_headers() {
    let elsewhere = Mock::start(|_, _| {
        json_response(
            200,
            &card_json(
                json!([{"url": "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]),
            ),
        )
    })
    .await;
    let target = elsewhere.url("/card.json");
    let same = Mock::start(move |request, _| match request.uri.path() {
        "/.well-known/agent-card.json" => redirect("/moved.json"),
        "/moved.json" => redirect(&target),
        _ => json_response(404, &json!({})),
    })
    .await;
    let options = CardFetchOptions::new()
        .follow_redirects(true)
        .header("x-api-key", "sekrit")
        .unwrap();
    let card = fetch_agent_card(&same.url("/"), &options).await.unwrap();
    assert_eq!(card.name, "agent");
    let first = same.requests();
    assert_eq!(first.len(), 2, "both hops on the first origin");
    assert!(first.iter().all(|hop| hop.headers["x-api-key"] == "sekrit"));
    let last = elsewhere.requests();
    assert_eq!(last.len(), 1);
    assert!(
        last[0].headers.get("x-api-key").is_none(),
        "{:?}",
        last[0].headers
    );
}

#[tokio::test]
async fn invalid_cards_are_refused() {
    let mock = Mock::start(|request, _| match request.uri.path() {
        "/empty.json" => json_response(200, &card_json(json!([]))),
        "/garbage.json" => json_response(200, &json!({"name": 7})),
        "/unusable.json" => json_response(
            200,
            &card_json(json!([
                {"url": "https://x/custom", "protocolBinding": "urn:example:custom", "protocolVersion": "1.0"},
                {"url": "grpc.example:443", "protocolBinding": "GRPC", "protocolVersion": "0.3"},
                {"url": "https://x/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.2"}
            ])),
        ),
        _ => Response::builder().status(404).body(Body::empty()).unwrap(),
    })
    .await;
    for path in ["/empty.json", "/garbage.json"] {
        let error = fetch_agent_card(&mock.url(path), &CardFetchOptions::new())
            .await
            .unwrap_err();
        assert!(
            matches!(error, ClientError::InvalidCard { .. }),
            "{path}: {error:?}"
        );
    }
    // A card without a usable interface decodes, but no client can be built.
    let card = fetch_agent_card(&mock.url("/unusable.json"), &CardFetchOptions::new())
        .await
        .unwrap();
    let error = A2aClient::from_card(card).unwrap_err();
    assert!(
        matches!(error, ClientError::NoUsableInterface { .. }),
        "{error:?}"
    );
    assert_eq!(error.kind(), Some(ErrorKind::InvalidRequest));

    let custom = ProtocolBinding::Other("urn:example:custom".into());
    let error = A2aClient::from_url(&mock.url("/a2a"), custom).unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::InvalidRequest));
    let error = A2aClient::from_url("not a url", ProtocolBinding::JsonRpc).unwrap_err();
    assert!(matches!(error, ClientError::Config { .. }), "{error:?}");
}

#[tokio::test]
async fn card_fetches_are_retried_when_the_server_is_briefly_unavailable() {
    let mock = Mock::start(|_, index| {
        if index == 0 {
            Response::builder().status(503).body(Body::empty()).unwrap()
        } else {
            json_response(
                200,
                &card_json(json!([{"url": "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}])),
            )
        }
    })
    .await;
    let options = CardFetchOptions::new().retry(a2a_client::RetryPolicy::default().backoff(
        std::time::Duration::from_millis(10),
        std::time::Duration::from_millis(50),
    ));
    fetch_agent_card(&mock.url("/"), &options).await.unwrap();
    assert_eq!(mock.requests().len(), 2);
}
