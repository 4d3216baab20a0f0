//! A2A v0.3 beside 1.0 on the same URLs (issue 18, D-27): every v0.3 JSON-RPC method and
//! v0.3 REST path answered in v0.3 shapes, streams framed for v0.3 clients, v0.3 error
//! codes, the no-header rule, authentication and isolation as on 1.0, the card's v0.3
//! members, and `protocol_versions` turning v0.3 off.

mod jsonrpc;
mod rejected;
mod rest;

use a2a_server::config::ProtocolVersions;
use a2a_server::{A2aServer, ServerConfig};
use a2a_types::AgentCard;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::support::{BindingEcho, RawResponse, TestServer, standard_card, uuid};

/// The standard card with streaming, push and the extended card.
pub fn v03_card() -> AgentCard {
    let mut card = standard_card();
    card.capabilities.streaming = Some(true);
    card.capabilities.push_notifications = Some(true);
    card.capabilities.extended_agent_card = Some(true);
    card
}

/// [`BindingEcho`] (`ask` asks for input, anything else completes with an artifact) with
/// local webhooks allowed, under `versions`.
pub async fn serve(versions: ProtocolVersions) -> TestServer {
    let mut config = ServerConfig::default();
    config.push.allow_local_webhooks = true;
    config.protocol_versions = versions;
    let card = v03_card();
    TestServer::start_with(
        A2aServer::builder(card.clone(), BindingEcho)
            .config(config)
            .extended_card(card),
    )
    .await
}

/// A v0.3 user text message.
pub fn message(text: &str) -> Value {
    json!({"kind": "message", "messageId": uuid(), "role": "user",
        "parts": [{"kind": "text", "text": text}]})
}

/// Posts a JSON-RPC request to `/a2a` with only `headers` (no `A2A-Version` unless given).
pub async fn rpc_with(
    server: &TestServer,
    method: &str,
    params: Value,
    headers: &[(&str, &str)],
) -> RawResponse {
    let body = json!({"jsonrpc": "2.0", "id": "r1", "method": method, "params": params});
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    server
        .send(
            reqwest::Method::POST,
            "/a2a",
            &all,
            Some(serde_json::to_vec(&body).unwrap()),
        )
        .await
}

/// A v0.3 call: its JSON-RPC response document.
pub async fn rpc(server: &TestServer, method: &str, params: Value) -> Value {
    rpc_with(server, method, params, &[]).await.json()
}

/// A v0.3 call that must succeed: its `result`.
pub async fn ok(server: &TestServer, method: &str, params: Value) -> Value {
    let response = rpc(server, method, params).await;
    assert_eq!(response["id"], "r1", "{response}");
    assert!(response.get("error").is_none(), "{method}: {response}");
    response["result"].clone()
}

/// A v0.3 call that must fail: its error code.
pub async fn code(server: &TestServer, method: &str, params: Value) -> i64 {
    let response = rpc(server, method, params).await;
    assert!(response.get("result").is_none(), "{method}: {response}");
    response["error"]["code"].as_i64().unwrap()
}

/// The events of an SSE response until it ends: `(event name, data)`.
pub async fn events(response: reqwest::Response) -> Vec<(Option<String>, Value)> {
    events_until(response, |_| false).await
}

/// The events of an SSE response until it ends or `stop` says so after an event.
pub async fn events_until(
    response: reqwest::Response,
    mut stop: impl FnMut(&Value) -> bool,
) -> Vec<(Option<String>, Value)> {
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"].to_str().unwrap();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let mut body = response.bytes_stream();
    let mut buffer = String::new();
    let mut found = Vec::new();
    while let Some(chunk) = body.next().await {
        buffer.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let mut event = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(name) = line.strip_prefix("event: ") {
                    event = Some(name.to_owned());
                } else if let Some(text) = line.strip_prefix("data: ") {
                    data = Some(serde_json::from_str::<Value>(text).unwrap());
                }
            }
            if let Some(data) = data {
                let done = stop(&data);
                found.push((event, data));
                if done {
                    return found;
                }
            }
        }
    }
    found
}

#[tokio::test]
async fn the_card_carries_the_v03_members_and_interfaces_only_when_v03_is_on() {
    let server = serve(ProtocolVersions::BOTH).await;
    let card = server
        .send(
            reqwest::Method::GET,
            "/.well-known/agent-card.json",
            &[],
            None,
        )
        .await
        .json();
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    let described: Vec<(String, String)> = interfaces
        .iter()
        .map(|interface| {
            (
                interface["protocolBinding"].as_str().unwrap().to_owned(),
                interface["protocolVersion"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        described,
        [
            ("JSONRPC".into(), "1.0".into()),
            ("HTTP+JSON".into(), "1.0".into()),
            ("JSONRPC".into(), "0.3".into()),
            ("HTTP+JSON".into(), "0.3".into()),
        ]
    );
    assert_eq!(card["url"], "http://localhost/a2a");
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(card["protocolVersion"], "0.3");
    assert_eq!(card["supportsAuthenticatedExtendedCard"], true);
    assert_eq!(
        card["additionalInterfaces"][1],
        json!({"url": "http://localhost/rest", "transport": "HTTP+JSON"})
    );
    // The v0.3 wire model reads it as a v0.3 card.
    let legacy: a2a_types::v03::AgentCard = serde_json::from_value(card).unwrap();
    assert_eq!(legacy.url, "http://localhost/a2a");

    let off = serve(ProtocolVersions::V1_ONLY).await;
    let card = off
        .send(
            reqwest::Method::GET,
            "/.well-known/agent-card.json",
            &[],
            None,
        )
        .await
        .json();
    assert_eq!(card["supportedInterfaces"].as_array().unwrap().len(), 2);
    assert!(card.get("url").is_none(), "{card}");
    assert!(card.get("protocolVersion").is_none(), "{card}");
}

#[tokio::test]
async fn protocol_versions_1_0_refuses_v03_methods_and_paths_as_before() {
    let server = serve(ProtocolVersions::V1_ONLY).await;
    let response = rpc(&server, "message/send", json!({"message": message("hi")})).await;
    assert_eq!(response["error"]["code"], -32009, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("A2A 0.3 method"),
        "{response}"
    );
    // The 1.0 binding reads `/v1/…` as tenant `v1`, and a request without a version is 0.3.
    let rest = server
        .send(
            reqwest::Method::GET,
            "/rest/v1/tasks/t1",
            &[("Accept", "application/json")],
            None,
        )
        .await;
    assert_eq!(rest.status, 400, "{}", String::from_utf8_lossy(&rest.body));
    assert_eq!(
        rest.json()["error"]["details"][0]["reason"],
        "VERSION_NOT_SUPPORTED"
    );
}

#[tokio::test]
async fn the_no_header_rule_picks_the_version_by_method_name() {
    let server = serve(ProtocolVersions::BOTH).await;
    // A v0.3 method without a version: v0.3.
    let result = ok(&server, "message/send", json!({"message": message("hi")})).await;
    assert_eq!(result["kind"], "task");
    // With `A2A-Version: 0.3`: v0.3 too.
    let response = rpc_with(
        &server,
        "message/send",
        json!({"message": message("hi")}),
        &[("A2A-Version", "0.3")],
    )
    .await
    .json();
    assert_eq!(response["result"]["kind"], "task", "{response}");
    // A 1.0 method without a version keeps the 1.0 rule: a missing version is 0.3, which
    // the 1.0 method does not speak.
    let params =
        json!({"message": {"messageId": uuid(), "role": "ROLE_USER", "parts": [{"text": "hi"}]}});
    let response = rpc(&server, "SendMessage", params.clone()).await;
    assert_eq!(response["error"]["code"], -32009, "{response}");
    // A v0.3 method under `A2A-Version: 1.0` is refused as before.
    let response = rpc_with(
        &server,
        "message/send",
        json!({"message": message("hi")}),
        &[("A2A-Version", "1.0")],
    )
    .await
    .json();
    assert_eq!(response["error"]["code"], -32009, "{response}");
    // And 1.0 is untouched.
    let result = server.call("SendMessage", params).await;
    assert_eq!(result["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}
