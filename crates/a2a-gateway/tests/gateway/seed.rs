//! Each curl example of KubeMQ's A2A gateway error-handling guide (the seed, "Error Handling
//! → Examples"), sent as the seed sends it to the assembled gateway, and answered as the
//! seed shows: HTTP 200 and a JSON-RPC error with the gateway's `ErrorInfo`.

use std::time::{Duration, Instant};

use a2a_gateway::proxy::ProxyConfig;
use a2a_gateway::registry::RegistryOptions;
use a2a_test_support::gateway_seed::{self, as_the_seed_shows};
use serde_json::json;

use crate::fleet::{Running, assert_echoed, assert_gateway_error};
use crate::proxy_support::{serve, slow_agent};

/// A gateway with the real echo agent registered over HTTP as `echo-agent-01`.
async fn gateway_with_echo_agent() -> Running {
    let gateway = Running::with(RegistryOptions::new(), ProxyConfig::default()).await;
    gateway.register_agent("echo-agent-01").await;
    gateway
}

#[tokio::test]
async fn a_message_to_an_unregistered_agent_is_agent_not_found_at_http_200() {
    let gateway = gateway_with_echo_agent().await;
    // The seed's first curl, byte for byte.
    let (status, body) = gateway
        .call("nonexistent-agent", gateway_seed::UNKNOWN_AGENT_CALL)
        .await;
    // An unknown agent is -32002, at HTTP 200.
    assert_eq!(status, 200);
    assert_eq!(
        as_the_seed_shows(&body),
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"agent not found: nonexistent-agent"}})
    );
    assert_gateway_error(
        &body,
        &json!(1),
        -32002,
        "agent not found: nonexistent-agent",
    );
    assert_eq!(body["error"]["data"][0]["reason"], "AGENT_NOT_FOUND");
}

#[tokio::test]
async fn malformed_requests_get_the_seeds_base_codes_before_any_routing() {
    let gateway = gateway_with_echo_agent().await;
    // The seed's "Invalid request" examples (bad agent ids, bad envelopes). Unreadable
    // requests have a null id.
    for case in gateway_seed::invalid_requests() {
        let what = case.what;
        let (status, answer) = gateway
            .post_as(
                &format!("/a2a/{}", case.agent_id),
                case.content_type,
                case.body,
            )
            .await;
        assert_eq!(status, 200, "{what}: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0", "{what}: {answer}");
        assert_eq!(answer["id"], case.id, "{what}: {answer}");
        assert_eq!(answer["error"]["code"], case.code, "{what}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(!message.is_empty(), "{what}: {answer}");
        let info = &answer["error"]["data"][0];
        assert_eq!(info["metadata"]["executed"], "false", "{what}: {answer}");
    }
    // None of them was routed (no series names the agent), and the agent answers a
    // well-formed call as before.
    let metrics = gateway.metrics().await;
    assert!(
        !metrics.contains(r#"agent_id="echo-agent-01""#),
        "the agent was called:\n{metrics}"
    );
    assert_echoed(
        &gateway.send("echo-agent-01", "still here").await,
        "still here",
    );
}

#[tokio::test]
async fn a_slow_agent_times_out_at_one_second() {
    // slow-agent-01 takes 5 s, as in the seed; it notices when its call is dropped.
    let (app, was_cancelled) =
        slow_agent(axum::Json(json!({"jsonrpc": "2.0", "id": 1, "result": {}})));
    let agent = serve(app).await;
    let gateway = Running::with(RegistryOptions::new(), ProxyConfig::default()).await;
    let (status, record) = gateway
        .register(&json!({
            "agent_id": "slow-agent-01", "name": "Slow agent", "url": format!("http://{agent}/")
        }))
        .await;
    assert_eq!(status, 200, "{record}");

    let started = Instant::now();
    let (status, body) = gateway
        .call("slow-agent-01", gateway_seed::SLOW_AGENT_CALL)
        .await;
    let elapsed = started.elapsed();
    // The per-call deadline is the request's 1 s, with no grace on top.
    assert_eq!(status, 200);
    assert!(
        elapsed >= Duration::from_millis(950) && elapsed < Duration::from_millis(1500),
        "answered after {elapsed:?}"
    );
    assert_eq!(
        as_the_seed_shows(&body),
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"agent timeout: slow-agent-01"}})
    );
    assert_gateway_error(&body, &json!(1), -32001, "agent timeout: slow-agent-01");
    // At the deadline the upstream call is cancelled, not left running.
    tokio::time::timeout(Duration::from_secs(2), was_cancelled)
        .await
        .expect("the call to the slow agent is dropped at the deadline")
        .unwrap();
    assert!(gateway.metrics().await.contains(
        r#"kubemq_a2a_requests_total{agent_id="slow-agent-01",method="message/send",outcome="timeout"} 1"#
    ));
}
