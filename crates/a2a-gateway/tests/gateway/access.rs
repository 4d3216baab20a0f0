//! What the assembled router adds around the registry and the proxy: the registry key on
//! writes, CORS on every route, `/metrics` with the registry gauge counted per scrape, and a
//! stream relayed end to end.

use a2a_gateway::proxy::ProxyConfig;
use a2a_gateway::registry::RegistryOptions;
use reqwest::Method;
use serde_json::{Value, json};

use crate::fleet::{Running, assert_echoed, assert_not_found, gateway, read, real_agent};
use crate::proxy_support::{jsonrpc_stream, sse_events};

const KEY: &str = "k";

/// A gateway whose registry writes need [`KEY`].
async fn keyed(config: ProxyConfig) -> Running {
    let keyed = gateway(RegistryOptions::new(), config)
        .await
        .registry_key(KEY.to_owned());
    Running::start(&keyed).await
}

/// `method path` with a JSON `body` and `headers`; the status, the `WWW-Authenticate`
/// header and the body.
async fn write(
    gateway: &Running,
    method: Method,
    path: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> (u16, Option<String>, Value) {
    let mut request = gateway
        .http
        .request(method, gateway.url(path))
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().unwrap().to_owned());
    let (status, body) = read(response).await;
    (status, challenge, body)
}

#[tokio::test]
async fn registry_writes_need_the_key_and_reads_and_calls_do_not() {
    let gateway = keyed(ProxyConfig::default()).await;
    let (body, _) = real_agent("keyed-01").await;
    let refused = json!({"error": "registry key required"});

    // Without the key, or with another one: 401, a JSON error and a challenge.
    for headers in [
        &[][..],
        &[("authorization", "Bearer wrong")][..],
        &[("x-api-key", "wrong")][..],
        &[("authorization", "Basic aw==")][..],
    ] {
        let (status, challenge, answer) =
            write(&gateway, Method::POST, "/agents/register", &body, headers).await;
        assert_eq!(status, 401, "{headers:?}: {answer}");
        assert_eq!(answer, refused, "{headers:?}");
        assert!(
            challenge.is_some_and(|challenge| challenge.starts_with("Bearer")),
            "{headers:?}"
        );
    }
    assert_eq!(gateway.get("/agents").await, (200, json!([])));

    // With it, as a bearer token or an X-API-Key (either case of the scheme).
    for headers in [
        &[("authorization", "Bearer k")][..],
        &[("authorization", "bearer k")][..],
        &[("x-api-key", KEY)][..],
    ] {
        let (status, _, answer) =
            write(&gateway, Method::POST, "/agents/register", &body, headers).await;
        assert_eq!(status, 200, "{headers:?}: {answer}");
        assert_eq!(answer["agent_id"], "keyed-01");
    }

    // Reads stay open, and so do the proxy and /metrics.
    let (status, agents) = gateway.get("/agents").await;
    assert_eq!(status, 200);
    assert_eq!(agents.as_array().unwrap().len(), 1, "{agents}");
    assert_eq!(gateway.get("/agents/keyed-01").await.0, 200);
    assert_eq!(
        gateway
            .get("/a2a/keyed-01/.well-known/agent-card.json")
            .await
            .0,
        200
    );
    assert_echoed(&gateway.send("keyed-01", "open").await, "open");
    assert_eq!(gateway.registered_gauge().await, 1);

    // Heartbeats and both deregistrations are writes too.
    let id = json!({"agent_id": "keyed-01"});
    for (method, path) in [
        (Method::POST, "/agents/heartbeat"),
        (Method::POST, "/agents/deregister"),
        (Method::DELETE, "/agents/keyed-01"),
    ] {
        let (status, _, answer) = write(&gateway, method.clone(), path, &id, &[]).await;
        assert_eq!((status, answer), (401, refused.clone()), "{method} {path}");
    }
    assert_echoed(&gateway.send("keyed-01", "kept").await, "kept");
    let bearer = [("authorization", "Bearer k")];
    let (status, _, _) = write(&gateway, Method::POST, "/agents/heartbeat", &id, &bearer).await;
    assert_eq!(status, 200);
    let (status, _, _) = write(&gateway, Method::DELETE, "/agents/keyed-01", &id, &bearer).await;
    assert_eq!(status, 200);
    assert_not_found(&gateway.send("keyed-01", "gone").await, "keyed-01");
}

/// A CORS preflight for a POST to `path` from `origin`: the status and the allowed origin.
async fn preflight(gateway: &Running, path: &str, origin: &str) -> (u16, Option<String>) {
    let response = gateway
        .http
        .request(Method::OPTIONS, gateway.url(path))
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "content-type, authorization",
        )
        .send()
        .await
        .unwrap();
    let allowed = response
        .headers()
        .get("access-control-allow-origin")
        .map(|value| value.to_str().unwrap().to_owned());
    (response.status().as_u16(), allowed)
}

#[tokio::test]
async fn trusted_origins_get_cors_on_the_registry_the_proxy_and_metrics() {
    let mut config = ProxyConfig::default();
    config.trusted_origins = vec!["https://app.example".to_owned()];
    // With a registry key: a preflight carries no credentials and must still pass.
    let gateway = keyed(config).await;
    let (body, _) = real_agent("browser-01").await;
    let bearer = [("authorization", "Bearer k")];
    let (status, _, _) = write(&gateway, Method::POST, "/agents/register", &body, &bearer).await;
    assert_eq!(status, 200);

    for path in [
        "/agents/register",
        "/agents/heartbeat",
        "/agents/browser-01",
        "/a2a/browser-01",
        "/a2a/browser-01/message:send",
        "/metrics",
    ] {
        let (status, allowed) = preflight(&gateway, path, "https://app.example").await;
        assert!((200..300).contains(&status), "{path}: {status}");
        assert_eq!(allowed.as_deref(), Some("https://app.example"), "{path}");
        let (_, allowed) = preflight(&gateway, path, "https://evil.example").await;
        assert_eq!(allowed, None, "{path}: another origin is not allowed");
    }

    // Actual requests carry the header too, refusals included, so the page can read them.
    for (method, path, body) in [
        (Method::POST, "/agents/register", body.clone()),
        (Method::GET, "/agents", Value::Null),
        (
            Method::POST,
            "/a2a/nobody-01",
            json!({"jsonrpc": "2.0", "id": 1, "method": "x"}),
        ),
    ] {
        let response = gateway
            .http
            .request(method.clone(), gateway.url(path))
            .header("origin", "https://app.example")
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.headers()["access-control-allow-origin"],
            "https://app.example",
            "{method} {path}: {}",
            response.status()
        );
    }
}

#[tokio::test]
async fn metrics_count_live_agents_per_scrape_and_requests_per_agent() {
    let gateway = Running::with(RegistryOptions::new(), ProxyConfig::default()).await;
    assert_eq!(gateway.registered_gauge().await, 0);
    gateway.register_agent("metered-01").await;
    gateway.register_agent("metered-02").await;
    assert_eq!(gateway.registered_gauge().await, 2);

    for text in ["a", "b"] {
        assert_echoed(&gateway.send("metered-01", text).await, text);
    }
    assert_echoed(&gateway.send("metered-02", "c").await, "c");

    assert_eq!(gateway.delete("/agents/metered-02").await.0, 200);
    assert_eq!(gateway.registered_gauge().await, 1);
    assert_not_found(&gateway.send("metered-02", "d").await, "metered-02");

    // The series of each agent, by method and outcome. Calls for an id nobody has are
    // labelled `_unknown`, so callers cannot grow the label space.
    let text = gateway.metrics().await;
    for series in [
        r#"kubemq_a2a_requests_total{agent_id="metered-01",method="SendMessage",outcome="success"} 2"#,
        r#"kubemq_a2a_requests_total{agent_id="metered-02",method="SendMessage",outcome="success"} 1"#,
        r#"kubemq_a2a_requests_total{agent_id="_unknown",method="SendMessage",outcome="agent_not_found"} 1"#,
        r#"kubemq_a2a_request_duration_seconds_count{agent_id="metered-01"} 2"#,
        "# TYPE kubemq_a2a_registered_agents gauge",
        "kubemq_a2a_registered_agents 1",
    ] {
        assert!(text.contains(series), "no {series} in:\n{text}");
    }
}

#[tokio::test]
async fn a_stream_from_a_registered_agent_is_relayed_to_its_completion() {
    let gateway = Running::with(RegistryOptions::new(), ProxyConfig::default()).await;
    gateway.register_agent("streamer-01").await;
    let request = json!({
        "jsonrpc": "2.0", "id": 9, "method": "SendStreamingMessage",
        "params": {"message": {"messageId": "m-s", "role": "ROLE_USER", "parts": [{"text": "stream 3"}]}}
    });
    let body = jsonrpc_stream(
        &gateway.http,
        gateway.url("/a2a/streamer-01"),
        request.to_string(),
    )
    .await;
    let results: Vec<Value> = sse_events(&body)
        .into_iter()
        .map(|(_, event)| {
            assert_eq!(event["id"], 9, "{body}");
            event["result"].clone()
        })
        .collect();
    let chunks: Vec<&str> = results
        .iter()
        .filter_map(|result| result["artifactUpdate"]["artifact"]["parts"][0]["text"].as_str())
        .collect();
    assert_eq!(chunks, ["chunk 0", "chunk 1", "chunk 2"], "{body}");
    let last = results.last().unwrap();
    assert_eq!(
        last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{body}"
    );
    let text = gateway.metrics().await;
    for series in [
        r#"kubemq_a2a_requests_total{agent_id="streamer-01",method="SendStreamingMessage",outcome="success"} 1"#,
        r#"kubemq_a2a_sse_streams_active{agent_id="streamer-01"} 0"#,
    ] {
        assert!(text.contains(series), "no {series} in:\n{text}");
    }
}

#[tokio::test]
async fn an_empty_registry_key_leaves_writes_open() {
    let open = gateway(RegistryOptions::new(), ProxyConfig::default())
        .await
        .registry_key(String::new());
    let gateway = Running::start(&open).await;
    let (body, _) = real_agent("open-01").await;
    assert_eq!(gateway.register(&body).await.0, 200);
    assert_eq!(gateway.delete("/agents/open-01").await.0, 200);
}
