//! `GET /metrics` of `a2a serve` and `a2a gateway`: the series in the Prometheus text format,
//! counted right after a scripted workload, and served without credentials; the gateway's
//! series of a deregistered agent leave the page.

use serde_json::json;

use crate::support::{Server, user_message};

/// The value of the series `name` (with its labels, as written on the page), or 0.
fn value(page: &str, series: &str) -> f64 {
    page.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0.0)
}

async fn scrape(server: &Server) -> String {
    reqwest::get(format!("{}/metrics", server.url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_count_a_scripted_workload() {
    let server = Server::start(&[]);
    for index in 0..3 {
        server.send(&format!("m-{index}"), "hello", json!({})).await;
    }
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
        "params": {"message": user_message("m-stream", "streamed")},
    });
    let events = server.stream("/", &body).await;
    assert!(!events.is_empty());

    let page = scrape(&server).await;
    assert_eq!(
        value(&page, r#"a2a_task_states_total{state="submitted"}"#),
        4.0,
        "{page}"
    );
    assert_eq!(
        value(&page, r#"a2a_task_states_total{state="completed"}"#),
        4.0,
        "{page}"
    );
    assert_eq!(value(&page, "a2a_turns_running"), 0.0, "{page}");
    assert_eq!(value(&page, "a2a_streams_open"), 0.0, "{page}");
    assert!(value(&page, "a2a_events_published_total") >= 8.0, "{page}");
    assert!(
        value(
            &page,
            r#"a2a_store_operation_seconds_count{operation="save"}"#
        ) >= 4.0,
        "{page}"
    );
    assert!(page.contains("# HELP a2a_turns_running"), "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_count_refused_authentication_by_scheme_and_need_no_credentials() {
    let server = Server::start(&["--api-key", "the-key", "--bearer-token", "the-token"]);
    let http = reqwest::Client::new();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t"}});
    let attempts = [
        None,
        Some(("X-API-Key", "wrong")),
        Some(("X-API-Key", "wrong again")),
        Some(("Authorization", "Bearer wrong")),
    ];
    for credential in attempts {
        let mut request = http
            .post(format!("{}/", server.url))
            .header("A2A-Version", "1.0")
            .json(&body);
        if let Some((header, value)) = credential {
            request = request.header(header, value);
        }
        assert_eq!(request.send().await.unwrap().status(), 401);
    }
    let page = scrape(&server).await;
    let cases = [
        (r#"{scheme="none",reason="missing"}"#, 1.0),
        (r#"{scheme="api_key",reason="invalid"}"#, 2.0),
        (r#"{scheme="http_bearer",reason="invalid"}"#, 1.0),
    ];
    for (labels, count) in cases {
        assert_eq!(
            value(&page, &format!("a2a_authentication_failures_total{labels}")),
            count,
            "{labels}\n{page}"
        );
    }
}

/// `a2a gateway` on a fresh port with an in-memory registry.
fn gateway() -> Server {
    let mut command = crate::support::a2a();
    command.args([
        "gateway",
        "--shutdown-grace",
        "1s",
        "--bind",
        "127.0.0.1:0",
        "--store",
        "sqlite::memory:",
    ]);
    Server::spawn(command, "a2a gateway")
}

/// Registers the running `agent` with `gateway` as `agent_id`, with the card it serves.
async fn register(http: &reqwest::Client, gateway: &Server, agent: &Server, agent_id: &str) {
    let card = agent.get("/.well-known/agent-card.json").await;
    let response = http
        .post(format!("{}/agents/register", gateway.url))
        .json(&json!({"agent_id": agent_id, "card": card}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
}

/// A SendMessage through the gateway to `agent_id`; the JSON-RPC answer.
async fn send(http: &reqwest::Client, gateway: &Server, agent_id: &str) -> serde_json::Value {
    http.post(format!("{}/a2a/{agent_id}", gateway.url))
        .header("A2A-Version", "1.0")
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": user_message(&format!("m-{agent_id}"), "hi")},
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_gateways_metrics_count_per_agent_and_forget_a_deregistered_one() {
    let gateway = gateway();
    let (one, two) = (Server::start(&[]), Server::start(&[]));
    let http = reqwest::Client::new();
    register(&http, &gateway, &one, "metered-one").await;
    register(&http, &gateway, &two, "metered-two").await;
    for agent_id in ["metered-one", "metered-one", "metered-two", "nobody"] {
        send(&http, &gateway, agent_id).await;
    }

    let page = scrape(&gateway).await;
    let cases = [
        (
            r#"kubemq_a2a_requests_total{agent_id="metered-one",method="SendMessage",outcome="success"}"#,
            2.0,
        ),
        (
            r#"kubemq_a2a_requests_total{agent_id="metered-two",method="SendMessage",outcome="success"}"#,
            1.0,
        ),
        (
            r#"kubemq_a2a_requests_total{agent_id="_unknown",method="SendMessage",outcome="agent_not_found"}"#,
            1.0,
        ),
        (
            r#"kubemq_a2a_request_duration_seconds_count{agent_id="metered-one"}"#,
            2.0,
        ),
        (
            r#"kubemq_a2a_request_duration_seconds_bucket{agent_id="metered-two",le="+Inf"}"#,
            1.0,
        ),
        ("kubemq_a2a_registered_agents", 2.0),
    ];
    for (series, count) in cases {
        assert_eq!(value(&page, series), count, "{series}\n{page}");
    }
    // One family, one header, whoever recorded into it.
    assert_eq!(
        page.matches("# TYPE kubemq_a2a_requests_total counter")
            .count(),
        1,
        "{page}"
    );

    let response = http
        .delete(format!("{}/agents/metered-one", gateway.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let page = scrape(&gateway).await;
    assert!(!page.contains(r#"agent_id="metered-one""#), "{page}");
    let cases = [
        (
            r#"kubemq_a2a_requests_total{agent_id="metered-two",method="SendMessage",outcome="success"}"#,
            1.0,
        ),
        (
            r#"kubemq_a2a_requests_total{agent_id="_unknown",method="SendMessage",outcome="agent_not_found"}"#,
            1.0,
        ),
        ("kubemq_a2a_registered_agents", 1.0),
    ];
    for (series, count) in cases {
        assert_eq!(value(&page, series), count, "{series}\n{page}");
    }
}
