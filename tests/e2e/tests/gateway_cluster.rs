//! Two gateway instances over one PostgreSQL registry (KubeMQ-compatible API): what one
//! registers the other routes; a deregistration on one reaches the other's proxy within its
//! directory cache's life; both count the same registry; `max_agents` holds across them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_e2e::{Postgres, eventually};
use a2a_gateway::Gateway;
use a2a_gateway::proxy::ProxyConfig;
use a2a_gateway::registry::{Registry, RegistryOptions};
use a2a_server::MetricsRender;
use axum::Json;
use axum::routing::post;
use serde_json::{Value, json};

async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}")
}

/// A JSON-RPC peer that answers every call with its own name and the request's id.
async fn agent(name: &'static str) -> String {
    serve(axum::Router::new().route(
        "/",
        post(move |Json(request): Json<Value>| async move {
            Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"agent": name}}))
        }),
    ))
    .await
}

/// A gateway instance over the test's schema.
async fn instance(database: &Postgres, max_agents: usize) -> String {
    let options = RegistryOptions::new()
        .postgres_schema(database.schema.clone())
        .max_agents(max_agents);
    let registry = Registry::connect(&database.url, options).await.unwrap();
    let gateway =
        Gateway::new(Arc::new(registry), ProxyConfig::default()).metrics(prometheus_page());
    serve(gateway.router()).await
}

/// The page of the process's Prometheus recorder, installed on first use: both instances
/// record into it, and both count the same registry at each scrape.
fn prometheus_page() -> MetricsRender {
    static HANDLE: std::sync::OnceLock<metrics_exporter_prometheus::PrometheusHandle> =
        std::sync::OnceLock::new();
    let handle = HANDLE
        .get_or_init(|| {
            metrics_exporter_prometheus::PrometheusBuilder::new()
                .install_recorder()
                .unwrap()
        })
        .clone();
    MetricsRender::new(move || handle.render())
}

async fn call(http: &reqwest::Client, gateway: &str, agent_id: &str) -> Value {
    http.post(format!("{gateway}/a2a/{agent_id}"))
        .json(&json!({"jsonrpc": "2.0", "id": 9, "method": "SendMessage", "params": {}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn registered_gauge(http: &reqwest::Client, gateway: &str) -> String {
    let text = http
        .get(format!("{gateway}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find(|line| line.starts_with("kubemq_a2a_registered_agents "))
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gateways_over_one_postgres_registry_route_the_same_fleet() {
    let Some(database) = Postgres::schema_for_test().await else {
        return;
    };
    let a = instance(&database, 2).await;
    let b = instance(&database, 2).await;
    let http = reqwest::Client::new();
    let register = |gateway: &str, agent_id: &str, url: &str| {
        let request = http
            .post(format!("{gateway}/agents/register"))
            .json(&json!({"agent_id": agent_id, "name": agent_id, "url": url}));
        async move { request.send().await.unwrap().status().as_u16() }
    };

    let one = agent("one").await;
    let two = agent("two").await;
    assert_eq!(register(&a, "agent-one", &one).await, 200);
    assert_eq!(register(&b, "agent-two", &two).await, 200);

    // Either instance routes either agent.
    for gateway in [&a, &b] {
        assert_eq!(
            call(&http, gateway, "agent-one").await["result"]["agent"],
            "one"
        );
        assert_eq!(
            call(&http, gateway, "agent-two").await["result"]["agent"],
            "two"
        );
        assert_eq!(
            registered_gauge(&http, gateway).await,
            "kubemq_a2a_registered_agents 2"
        );
    }

    // max_agents counts the agents every instance registered.
    assert_eq!(register(&b, "agent-three", &one).await, 409);

    // A heartbeat on B keeps what A registered.
    let beat = http
        .post(format!("{b}/agents/heartbeat"))
        .json(&json!({"agent_id": "agent-one"}))
        .send()
        .await
        .unwrap();
    assert_eq!(beat.status(), 200);

    // Deregistered on A: A stops routing at once, B within its 1 s directory cache.
    let gone = http
        .delete(format!("{a}/agents/agent-one"))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 200);
    assert_eq!(call(&http, &a, "agent-one").await["error"]["code"], -32002);
    let not_found_on_b = eventually(Duration::from_millis(1500), || async {
        let answer = call(&http, &b, "agent-one").await;
        (answer["error"]["code"] == -32002).then_some(())
    })
    .await;
    assert!(
        not_found_on_b.is_some(),
        "B still routes a deregistered agent"
    );
    for gateway in [&a, &b] {
        assert_eq!(
            registered_gauge(&http, gateway).await,
            "kubemq_a2a_registered_agents 1"
        );
    }
    // The freed place can be taken through the other instance.
    assert_eq!(register(&b, "agent-three", &one).await, 200);
}
