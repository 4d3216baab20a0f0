//! The gateway's own card, each agent's card through the gateway, and the metrics text.

use a2a_gateway::agent::RegisteredAgent;
use a2a_gateway::registry::enriched;
use serde_json::{Value, json};

use crate::support::{Gateway, a2a_agent, send_message};

#[tokio::test]
async fn the_platform_card_is_the_gateways() {
    let gateway = Gateway::start().await;
    let card: Value = gateway
        .http
        .get(gateway.url("/.well-known/agent-card.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["name"], "kubemq");
    assert_eq!(card["description"], "KubeMQ A2A Gateway");
    assert_eq!(card["version"], "latest");
    assert_eq!(card["url"], gateway.url(""));
    assert_eq!(card["protocolVersions"], json!(["1.0"]));
    assert_eq!(card["defaultInputModes"], json!(["text"]));
    assert_eq!(card["skills"], json!([]));
}

#[tokio::test]
async fn an_agents_card_points_at_the_gateway_or_is_its_record() {
    let gateway = Gateway::with_a2a_agent("echo-agent-01").await;
    let record = RegisteredAgent::new(
        "kube-01",
        "Kube",
        json!({"name": "Kube", "url": "http://10.1.2.3:8000"}),
    );
    gateway.directory.insert(record.clone());
    let card_of = |agent_id: &str| {
        gateway
            .http
            .get(gateway.url(&format!("/a2a/{agent_id}/.well-known/agent-card.json")))
            .send()
    };

    let card: Value = card_of("echo-agent-01")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let through = gateway.url("/a2a/echo-agent-01");
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    // JSON-RPC and HTTP+JSON 1.0, and JSON-RPC 0.3, which the gateway translates.
    assert_eq!(interfaces.len(), 3);
    assert_eq!(interfaces[2]["protocolVersion"], "0.3");
    assert_eq!(card["url"], through.as_str());
    assert!(
        interfaces
            .iter()
            .all(|interface| interface["url"] == through.as_str())
    );

    let card: Value = card_of("kube-01").await.unwrap().json().await.unwrap();
    assert_eq!(card, enriched(&record));

    let missing = card_of("nobody-01").await.unwrap();
    assert_eq!(missing.status(), 404);
}

#[tokio::test]
async fn metrics_count_requests_by_agent_method_and_outcome() {
    let gateway = Gateway::start().await;
    let (jsonrpc, _) = a2a_agent().await;
    gateway
        .directory
        .register("echo-agent-01", Some(jsonrpc), None);
    gateway.metrics.set_registered_agents(1);
    gateway
        .rpc("echo-agent-01", &send_message("SendMessage", "hi"))
        .await;
    gateway
        .rpc("nobody-01", &send_message("message/send", "hi"))
        .await;
    gateway
        .rpc("echo-agent-01", &send_message("custom/thing", "hi"))
        .await;

    let text = gateway.metrics_text().await;
    for line in [
        "# TYPE kubemq_a2a_requests_total counter",
        r#"kubemq_a2a_requests_total{agent_id="echo-agent-01",method="SendMessage",outcome="success"} 1"#,
        r#"kubemq_a2a_requests_total{agent_id="_unknown",method="message/send",outcome="agent_not_found"} 1"#,
        r#"kubemq_a2a_requests_total{agent_id="echo-agent-01",method="unknown",outcome="agent_error"} 1"#,
        "# TYPE kubemq_a2a_request_duration_seconds histogram",
        r#"kubemq_a2a_request_duration_seconds_count{agent_id="echo-agent-01"} 2"#,
        r#"kubemq_a2a_request_duration_seconds_bucket{agent_id="echo-agent-01",le="+Inf"} 2"#,
        // No stream was opened, so the exporter shows no `kubemq_a2a_sse_streams_active`.
        "# TYPE kubemq_a2a_registered_agents gauge",
        "kubemq_a2a_registered_agents 1",
    ] {
        assert!(
            text.lines().any(|candidate| candidate == line),
            "missing {line}\n{text}"
        );
    }
}
