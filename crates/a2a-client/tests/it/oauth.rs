//! OAuth 2.0 client credentials against a local token endpoint.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2a_client::{A2aClient, ClientError, Credentials, OAuth2ClientCredentials};
use a2a_types::ProtocolBinding;
use base64::Engine as _;
use serde_json::json;

use crate::support::{Mock, get, json_response, jsonrpc_result, task_json};

/// A token endpoint issuing `tok-1`, `tok-2`, … valid for `lifetime` seconds, to client
/// `agent-client` with secret `s3cret` (HTTP Basic), for the `tasks` scope.
async fn token_endpoint(lifetime: f64) -> (Mock, Arc<AtomicUsize>) {
    let issued = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&issued);
    let mock = Mock::start(move |request, _| {
        let expected = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode("agent-client:s3cret")
        );
        let form = String::from_utf8_lossy(&request.body).into_owned();
        if request.header("authorization") != Some(expected.as_str())
            || !form.contains("grant_type=client_credentials")
            || !form.contains("scope=tasks")
        {
            return json_response(401, &json!({"error": "invalid_client", "error_description": "s3cret is wrong"}));
        }
        let number = counter.fetch_add(1, Ordering::SeqCst) + 1;
        json_response(
            200,
            &json!({"access_token": format!("tok-{number}"), "token_type": "Bearer", "expires_in": lifetime}),
        )
    })
    .await;
    (mock, issued)
}

/// A JSON-RPC client of `agent` whose OAuth client `agent-client` gets its tokens, with
/// scope `tasks`, from the token endpoint `tokens`.
fn client_of(agent: &Mock, tokens: &Mock, secret: &str) -> A2aClient {
    A2aClient::builder()
        .url(agent.url("/a2a"), ProtocolBinding::JsonRpc)
        .credentials(Credentials::oauth2(
            OAuth2ClientCredentials::new("agent-client", secret)
                .scope("tasks")
                .token_url(tokens.url("/token")),
        ))
        .build()
        .unwrap()
}

fn agent_answering_tasks()
-> impl Fn(&crate::support::Recorded, usize) -> axum::response::Response + Send + Sync + 'static {
    |_, _| jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED"))
}

#[tokio::test]
async fn the_token_is_fetched_once_shared_and_refreshed_after_expiry() {
    let (tokens, issued) = token_endpoint(1.0).await;
    let agent = Mock::start(agent_answering_tasks()).await;
    let client = client_of(&agent, &tokens, "s3cret");

    let calls: Vec<_> = (0..5).map(|_| client.get_task(get("t1"))).collect();
    for result in futures::future::join_all(calls).await {
        result.unwrap();
    }
    client.clone().get_task(get("t1")).await.unwrap();
    assert_eq!(
        issued.load(Ordering::SeqCst),
        1,
        "one token for all callers and clones"
    );
    assert!(
        agent
            .requests()
            .iter()
            .all(|request| request.header("authorization") == Some("Bearer tok-1"))
    );

    tokio::time::sleep(Duration::from_millis(1100)).await;
    client.get_task(get("t1")).await.unwrap();
    assert_eq!(issued.load(Ordering::SeqCst), 2, "refreshed after expiry");
    assert_eq!(
        agent.requests().last().unwrap().header("authorization"),
        Some("Bearer tok-2")
    );
    let token_request = &tokens.requests()[0];
    assert_eq!(token_request.method, http::Method::POST);
    assert_eq!(
        token_request.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
}

#[tokio::test]
async fn the_token_endpoint_comes_from_the_cards_client_credentials_flow() {
    let (tokens, issued) = token_endpoint(3600.0).await;
    let agent = Mock::start(agent_answering_tasks()).await;
    let card: a2a_types::AgentCard = serde_json::from_value(json!({
        "name": "a", "description": "d", "version": "1", "capabilities": {},
        "supportedInterfaces": [{"url": agent.url("/a2a"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "securitySchemes": {"oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {
            "tokenUrl": tokens.url("/token"), "scopes": {"tasks": "read tasks"}}}}}},
        "securityRequirements": [{"schemes": {"oauth": {"list": ["tasks"]}}}]
    }))
    .unwrap();
    let client = A2aClient::builder()
        .card(card)
        .credentials(Credentials::oauth2(
            OAuth2ClientCredentials::new("agent-client", "s3cret").scope("tasks"),
        ))
        .build()
        .unwrap();
    client.get_task(get("t1")).await.unwrap();
    client.get_task(get("t1")).await.unwrap();
    assert_eq!(issued.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_refused_token_is_replaced_once() {
    let (tokens, issued) = token_endpoint(3600.0).await;
    // The agent refuses the first token it sees, as if it had been revoked.
    let agent = Mock::start(|request, _| {
        if request.header("authorization") == Some("Bearer tok-1") {
            json_response(
                401,
                &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "bad token",
                        "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "AUTHENTICATION", "domain": "a2a-protocol.org"}]}}),
            )
        } else {
            jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED"))
        }
    })
    .await;
    let client = client_of(&agent, &tokens, "s3cret");
    client.get_task(get("t1")).await.unwrap();
    assert_eq!(issued.load(Ordering::SeqCst), 2);
    assert_eq!(agent.requests().len(), 2);
}

#[tokio::test]
async fn a_failing_token_endpoint_is_reported_without_secrets() {
    let (tokens, _) = token_endpoint(3600.0).await;
    let agent = Mock::start(agent_answering_tasks()).await;
    let client = client_of(&agent, &tokens, "wrong-s3cret");
    let error = client.get_task(get("t1")).await.unwrap_err();
    assert!(
        matches!(error, ClientError::Credentials { .. }),
        "{error:?}"
    );
    let shown = format!("{error} {error:?} {client:?}");
    assert!(shown.contains("invalid_client"), "{shown}");
    assert!(!shown.contains("s3cret"), "{shown}");
    assert!(
        agent.requests().is_empty(),
        "no request without credentials"
    );
}
