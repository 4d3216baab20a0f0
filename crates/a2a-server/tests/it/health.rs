//! Health checks: `/healthz` answers while the process is up, `/readyz` while the server
//! takes work and its store answers; both without credentials, over every other route.

use std::sync::Arc;
use std::time::Duration;

use a2a_server::A2aServer;
use a2a_server::auth::Authentication;
use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
use reqwest::Method;
use serde_json::json;

use crate::support::{
    BindingEcho, BrokenStore, Probe, TestServer, hold_the_only_slot, standard_card,
};

#[tokio::test]
async fn healthz_and_readyz_answer_200_with_a_small_json_body() {
    let server = TestServer::start(BindingEcho).await;
    let live = server.send(Method::GET, "/healthz", &[], None).await;
    assert_eq!(live.status, 200);
    assert_eq!(live.json(), json!({"status": "ok"}));
    assert_eq!(live.header("cache-control"), Some("no-store"));
    let ready = server.send(Method::GET, "/readyz", &[], None).await;
    assert_eq!(ready.status, 200);
    assert_eq!(ready.json(), json!({"status": "ready"}));
    let head = server.send(Method::HEAD, "/readyz", &[], None).await;
    assert_eq!(head.status, 200);
}

#[tokio::test]
async fn health_checks_need_no_credentials_on_a_server_that_requires_them() {
    let server = TestServer::start_secured(
        A2aServer::builder(standard_card(), BindingEcho)
            .authentication(Authentication::required().api_key("s3cret")),
    )
    .await;
    let refused = server.send_v1(Method::GET, "/rest/tasks").await;
    assert_eq!(refused.status, 401, "the A2A routes still need the key");
    for path in ["/healthz", "/readyz"] {
        let response = server.send(Method::GET, path, &[], None).await;
        assert_eq!(response.status, 200, "{path}");
        assert!(response.header("www-authenticate").is_none(), "{path}");
    }
}

#[tokio::test]
async fn health_checks_win_over_an_http_json_endpoint_at_the_root() {
    let card = AgentCard::new("Root", "REST at the root", "1.0.0").with_interface(
        AgentInterface::new("http://localhost/", ProtocolBinding::HttpJson),
    );
    let server = TestServer::start_with(A2aServer::builder(card, BindingEcho)).await;
    for path in ["/healthz", "/readyz"] {
        let response = server.send(Method::GET, path, &[], None).await;
        assert_eq!(response.status, 200, "{path}");
        assert!(response.json()["status"].is_string(), "{path}");
    }
    // A tenant-prefixed route is still the binding's.
    let tasks = server.send_v1(Method::GET, "/healthz/tasks").await;
    assert_eq!(tasks.status, 200, "{}", tasks.json());
    assert!(tasks.json()["tasks"].is_array(), "{}", tasks.json());
}

#[tokio::test]
async fn health_checks_are_not_in_the_card() {
    let server = TestServer::start(BindingEcho).await;
    let card = server
        .send(Method::GET, "/.well-known/agent-card.json", &[], None)
        .await;
    let text = String::from_utf8_lossy(&card.body);
    assert!(
        !text.contains("healthz") && !text.contains("readyz"),
        "{text}"
    );
}

#[tokio::test]
async fn readyz_answers_503_while_the_store_does_not_answer() {
    let server =
        TestServer::start_with(A2aServer::builder(standard_card(), BindingEcho).store(BrokenStore))
            .await;
    let ready = server.send(Method::GET, "/readyz", &[], None).await;
    assert_eq!(ready.status, 503);
    assert_eq!(ready.json(), json!({"status": "store unreachable"}));
    let body = String::from_utf8_lossy(&ready.body);
    assert!(
        !body.contains("secret"),
        "the cause stays in the log: {body}"
    );
    let live = server.send(Method::GET, "/healthz", &[], None).await;
    assert_eq!(live.status, 200, "the process itself is up");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_flips_to_503_as_soon_as_shutdown_begins_and_stays_there() {
    let probe = Probe::default();
    let (server, running) = hold_the_only_slot(&probe).await;
    assert_eq!(
        server.send(Method::GET, "/readyz", &[], None).await.status,
        200
    );

    let shutdown = {
        let server = Arc::clone(&server);
        tokio::spawn(async move { server.server.shutdown(Duration::from_secs(10)).await })
    };
    crate::support::eventually("readyz answers 503", || async {
        server.send(Method::GET, "/readyz", &[], None).await.status == 503
    })
    .await;
    assert!(
        !shutdown.is_finished(),
        "the running turn is still draining"
    );
    let draining = server.send(Method::GET, "/readyz", &[], None).await;
    assert_eq!(draining.json(), json!({"status": "draining"}));
    assert_eq!(
        server.send(Method::GET, "/healthz", &[], None).await.status,
        200,
        "a draining process is still alive"
    );

    probe.release();
    running.await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), shutdown)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        server.send(Method::GET, "/readyz", &[], None).await.status,
        503
    );
}
