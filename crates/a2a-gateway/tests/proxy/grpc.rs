//! Agents whose card offers only gRPC, reached through the gateway's JSON-RPC and HTTP+JSON
//! routes: calls, streams, the agent's own errors and the gateway's.

use std::time::{Duration, Instant};

use a2a_gateway::agent::RegisteredAgent;
use a2a_gateway::proxy::GATEWAY_DOMAIN;
use serde_json::{Value, json};

use crate::support::{
    Gateway, closed_port, error_info, grpc_agent, grpc_tls_agent, jsonrpc_stream, post_a2a,
    send_message, sse_events,
};

/// A gateway with a real gRPC-only agent registered as `agent_id`.
async fn gateway_with_grpc_agent(agent_id: &str) -> Gateway {
    let gateway = Gateway::start().await;
    register_grpc(&gateway, agent_id, grpc_agent().await);
    gateway
}

fn register_grpc(gateway: &Gateway, agent_id: &str, card: Value) {
    gateway
        .directory
        .insert(RegisteredAgent::new(agent_id, agent_id, card));
}

fn grpc_only_card(url: &str) -> Value {
    json!({
        "name": "Elsewhere", "description": "nobody home", "version": "1.0.0",
        "supportedInterfaces": [{"url": url, "protocolBinding": "GRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text"], "defaultOutputModes": ["text"], "skills": []
    })
}

fn artifact_texts(results: &[Value]) -> Vec<String> {
    results
        .iter()
        .filter_map(|result| result["artifactUpdate"]["artifact"]["parts"][0]["text"].as_str())
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn json_rpc_send_message_and_get_task_reach_a_grpc_only_agent() {
    let gateway = gateway_with_grpc_agent("grpc-echo").await;
    let (status, body) = gateway
        .rpc("grpc-echo", &send_message("SendMessage", "hello over grpc"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["id"], 7, "{body}");
    let task = &body["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{body}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "hello over grpc");

    let get =
        json!({"jsonrpc": "2.0", "id": "g", "method": "GetTask", "params": {"id": task["id"]}});
    let (status, body) = gateway.rpc("grpc-echo", &get).await;
    assert_eq!(status, 200);
    assert_eq!(body["id"], "g");
    assert_eq!(body["result"]["id"], task["id"], "{body}");
    assert_eq!(body["result"]["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn the_agents_own_error_comes_back_as_the_a2a_error_it_is() {
    let gateway = gateway_with_grpc_agent("grpc-errors").await;
    let get =
        json!({"jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": "no-such-task"}});
    let (status, body) = gateway.rpc("grpc-errors", &get).await;
    assert_eq!(status, 200);
    assert_eq!(body["id"], 3);
    assert_eq!(body["error"]["code"], -32001, "{body}");
    let info = error_info(&body);
    assert_eq!(info["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    assert_eq!(info["reason"], "TASK_NOT_FOUND");
    assert_eq!(info["domain"], "a2a-protocol.org");
}

#[tokio::test]
async fn a_json_rpc_stream_from_a_grpc_agent_arrives_in_order_and_ends() {
    let gateway = gateway_with_grpc_agent("grpc-stream").await;
    let body = jsonrpc_stream(
        &gateway.http,
        gateway.url("/a2a/grpc-stream"),
        send_message("SendStreamingMessage", "stream 3").to_string(),
    )
    .await;
    let events = sse_events(&body);
    assert!(
        events
            .iter()
            .all(|(name, event)| name.is_none() && event["id"] == 7 && event["jsonrpc"] == "2.0"),
        "{body}"
    );
    let results: Vec<Value> = events
        .into_iter()
        .map(|(_, event)| event["result"].clone())
        .collect();
    assert_eq!(artifact_texts(&results), ["chunk 0", "chunk 1", "chunk 2"]);
    assert_eq!(
        results.last().unwrap()["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{body}"
    );
    assert!(
        gateway
            .metrics_text()
            .await
            .contains(r#"kubemq_a2a_sse_streams_active{agent_id="grpc-stream"} 0"#)
    );
}

#[tokio::test]
async fn a_grpc_agent_nobody_listens_for_is_unreachable() {
    let gateway = Gateway::start().await;
    register_grpc(
        &gateway,
        "grpc-dead",
        grpc_only_card(&closed_port().to_string()),
    );
    let (status, body) = gateway
        .rpc("grpc-dead", &send_message("SendMessage", "anyone?"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["error"]["code"], -32003, "{body}");
    assert_eq!(body["error"]["message"], "agent unreachable: grpc-dead");
    assert_eq!(error_info(&body)["domain"], GATEWAY_DOMAIN);
    assert_eq!(error_info(&body)["metadata"]["executed"], "false");
}

#[tokio::test]
async fn a_slow_grpc_agent_times_out_at_the_requested_second() {
    let gateway = gateway_with_grpc_agent("grpc-slow").await;
    let mut request = send_message("SendMessage", "sleep 5000");
    request["params"]["configuration"] = json!({"timeout": 1});
    let started = Instant::now();
    let (status, body) = gateway.rpc("grpc-slow", &request).await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(status, 200);
    assert_eq!(body["error"]["code"], -32001, "{body}");
    assert_eq!(body["error"]["message"], "agent timeout: grpc-slow");
    assert_eq!(error_info(&body)["domain"], GATEWAY_DOMAIN);
}

#[tokio::test]
async fn http_json_calls_reach_a_grpc_only_agent_and_its_errors_keep_their_status() {
    let gateway = gateway_with_grpc_agent("grpc-rest").await;
    let send = send_message("SendMessage", "hello rest")["params"].clone();
    let response = post_a2a(
        &gateway.http,
        gateway.url("/a2a/grpc-rest/message:send"),
        send.to_string(),
    )
    .await;
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    let task = &body["task"];
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"], "hello rest",
        "{body}"
    );

    let path = format!("/a2a/grpc-rest/tasks/{}", task["id"].as_str().unwrap());
    // The version may come in the query too (spec §3.6.1).
    let path = format!("{path}?A2A-Version=1.0");
    let got: Value = gateway
        .http
        .get(gateway.url(&path))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(got["id"], task["id"], "{got}");

    let missing = gateway
        .http
        .get(gateway.url("/a2a/grpc-rest/tasks/no-such-task"))
        .header("a2a-version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.unwrap();
    assert_eq!(body["error"]["status"], "NOT_FOUND", "{body}");
    assert_eq!(body["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
    assert_eq!(body["error"]["details"][0]["domain"], "a2a-protocol.org");
}

#[tokio::test]
async fn an_http_json_stream_from_a_grpc_agent_carries_bare_stream_responses_and_ends() {
    let gateway = gateway_with_grpc_agent("grpc-sse").await;
    let send = send_message("SendStreamingMessage", "stream 3")["params"].clone();
    let response = gateway
        .http
        .post(gateway.url("/a2a/grpc-sse/message:stream"))
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .header("a2a-version", "1.0")
        .body(send.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let body = response.text().await.unwrap();
    let results: Vec<Value> = sse_events(&body)
        .into_iter()
        .map(|(_, event)| event)
        .collect();
    assert!(
        results.iter().all(|event| event.get("jsonrpc").is_none()),
        "{body}"
    );
    assert_eq!(artifact_texts(&results), ["chunk 0", "chunk 1", "chunk 2"]);
    assert_eq!(
        results.last().unwrap()["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{body}"
    );
}

#[tokio::test]
async fn a_grpc_only_agents_card_through_the_gateway_offers_json_rpc_and_http_json() {
    let gateway = gateway_with_grpc_agent("grpc-card").await;
    let card: Value = gateway
        .http
        .get(gateway.url("/a2a/grpc-card/.well-known/agent-card.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let through = gateway.url("/a2a/grpc-card");
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    let bindings: Vec<&str> = interfaces
        .iter()
        .map(|interface| interface["protocolBinding"].as_str().unwrap())
        .collect();
    // JSON-RPC also in v0.3, which the gateway translates.
    assert_eq!(bindings, ["JSONRPC", "HTTP+JSON", "JSONRPC"], "{card}");
    assert_eq!(interfaces[2]["protocolVersion"], "0.3", "{card}");
    assert!(
        interfaces
            .iter()
            .all(|interface| interface["url"] == through.as_str())
    );
}

#[tokio::test]
async fn a_v03_caller_reaches_a_grpc_only_agent_translated_both_ways() {
    let gateway = gateway_with_grpc_agent("grpc-v03").await;
    // A hand-written v0.3 message/send: no messageId, no role, no kind.
    let send = json!({
        "jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": {"message": {"parts": [{"text": "hello in v0.3"}]}}
    });
    let (status, body) = gateway.rpc("grpc-v03", &send).await;
    assert_eq!(status, 200);
    let task = &body["result"];
    assert_eq!(task["kind"], "task", "{body}");
    assert_eq!(task["status"]["state"], "completed", "{body}");
    assert_eq!(task["artifacts"][0]["parts"][0]["kind"], "text", "{body}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "hello in v0.3");

    // message/stream: v0.3 events, the last one final.
    let stream = json!({
        "jsonrpc": "2.0", "id": "s", "method": "message/stream",
        "params": {"message": {"kind": "message", "messageId": "m-2", "role": "user",
            "parts": [{"kind": "text", "text": "stream 2"}]}}
    });
    let body = jsonrpc_stream(
        &gateway.http,
        gateway.url("/a2a/grpc-v03"),
        stream.to_string(),
    )
    .await;
    let results: Vec<Value> = sse_events(&body)
        .into_iter()
        .map(|(_, event)| {
            assert_eq!(event["id"], "s", "{body}");
            event["result"].clone()
        })
        .collect();
    let texts: Vec<&str> = results
        .iter()
        .filter(|result| result["kind"] == "artifact-update")
        .map(|result| result["artifact"]["parts"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["chunk 0", "chunk 1"], "{body}");
    let last = results.last().unwrap();
    assert_eq!(last["kind"], "status-update", "{body}");
    assert_eq!(last["status"]["state"], "completed", "{body}");
    assert_eq!(last["final"], true, "{body}");

    // The agent's error with v0.3's code and the gateway's kept for what it refuses.
    let get = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"id": "nope"}});
    let (_, body) = gateway.rpc("grpc-v03", &get).await;
    assert_eq!(body["error"]["code"], -32001, "{body}");
    assert_eq!(error_info(&body)["domain"], "a2a-protocol.org", "{body}");
    let bad = json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": {"id": 5}});
    let (_, body) = gateway.rpc("grpc-v03", &bad).await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert_eq!(error_info(&body)["domain"], "a2a-gateway", "{body}");
}

#[tokio::test]
async fn agent_tls_skip_verify_reaches_a_grpc_agent_whose_certificate_nobody_trusts() {
    let card = grpc_tls_agent().await;
    // Verified (the default), the private CA's certificate is refused.
    let verified = Gateway::start().await;
    register_grpc(&verified, "tls-01", card.clone());
    let (_, body) = verified
        .rpc("tls-01", &send_message("SendMessage", "hello"))
        .await;
    assert_eq!(body["error"]["code"], -32003, "{body}");
    // Unverified, the call goes through over TLS, on both routes.
    let mut config = a2a_gateway::proxy::ProxyConfig::default();
    config.agent_tls_skip_verify = true;
    let unverified = Gateway::start_with(config).await;
    register_grpc(&unverified, "tls-01", card);
    let (status, body) = unverified
        .rpc("tls-01", &send_message("SendMessage", "hello"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        body["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{body}"
    );
    let rest = post_a2a(
        &unverified.http,
        unverified.url("/a2a/tls-01/message:send"),
        json!({"message": {"messageId": "m-9", "role": "ROLE_USER", "parts": [{"text": "again"}]}})
            .to_string(),
    )
    .await;
    assert_eq!(rest.status(), 200);
}
