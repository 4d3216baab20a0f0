//! Streams relayed without buffering, with keepalives, the idle timeout and cleanup when
//! the client leaves.

use std::time::Duration;

use a2a_gateway::proxy::ProxyConfig;
use a2a_gateway::proxy::stream::{Framing, relay};
use a2a_types::jsonrpc::RequestId;
use axum::body::Body;
use axum::routing::post;
use bytes::Bytes;
use futures::StreamExt as _;
use futures::channel::mpsc;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::support::{
    DropSignal, Gateway, jsonrpc_stream, post_a2a, send_message, serve, sse_events,
};

fn artifact_texts(results: &[Value]) -> Vec<String> {
    results
        .iter()
        .filter_map(|result| result["artifactUpdate"]["artifact"]["parts"][0]["text"].as_str())
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn a_json_rpc_stream_from_a_real_agent_is_relayed_event_by_event() {
    let gateway = Gateway::with_a2a_agent("streamer-01").await;
    let body = jsonrpc_stream(
        &gateway.http,
        gateway.url("/a2a/streamer-01"),
        send_message("SendStreamingMessage", "stream 3").to_string(),
    )
    .await;
    let events = sse_events(&body);
    assert!(
        events
            .iter()
            .all(|(_, event)| event["id"] == 7 && event["jsonrpc"] == "2.0")
    );
    let results: Vec<Value> = events
        .into_iter()
        .map(|(_, event)| event["result"].clone())
        .collect();
    assert_eq!(artifact_texts(&results), ["chunk 0", "chunk 1", "chunk 2"]);
    let last = results.last().unwrap();
    assert_eq!(
        last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{body}"
    );
    assert!(
        gateway
            .metrics_text()
            .await
            .contains(r#"kubemq_a2a_sse_streams_active{agent_id="streamer-01"} 0"#)
    );
}

#[tokio::test]
async fn an_http_json_stream_from_a_real_agent_is_relayed_too() {
    let gateway = Gateway::with_a2a_agent("streamer-01").await;
    let request = json!({"message": {"messageId": "m-2", "role": "ROLE_USER", "parts": [{"text": "stream 2"}]}});
    let response = post_a2a(
        &gateway.http,
        gateway.url("/a2a/streamer-01/message:stream"),
        request.to_string(),
    )
    .await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let results: Vec<Value> = sse_events(&response.text().await.unwrap())
        .into_iter()
        .map(|(_, event)| event)
        .collect();
    assert_eq!(artifact_texts(&results), ["chunk 0", "chunk 1"]);
}

/// Frames of `relay` with the time each was produced, since `started`.
async fn next_at(
    frames: &mut (impl futures::Stream<Item = Result<Bytes, std::convert::Infallible>> + Unpin),
    started: Instant,
) -> Option<(u64, String)> {
    let frame = frames.next().await?.unwrap();
    Some((
        started.elapsed().as_secs(),
        String::from_utf8(frame.to_vec()).unwrap(),
    ))
}

#[tokio::test(start_paused = true)]
async fn a_quiet_stream_gets_keepalives_then_a_final_timeout_frame() {
    let (agent, upstream) = mpsc::unbounded::<Result<Bytes, std::io::Error>>();
    let config = ProxyConfig::default();
    let started = Instant::now();
    let mut frames = Box::pin(relay(
        upstream,
        "slow-01",
        Framing::JsonRpc(RequestId::from(5_i64)),
        &config,
    ));
    let producer = tokio::spawn(async move {
        agent
            .unbounded_send(Ok(Bytes::from_static(b"data: {\"n\":1}\n\n")))
            .unwrap();
        tokio::time::sleep(Duration::from_secs(100)).await;
        // A comment is relayed but is not an event: it does not reset the idle clock.
        agent
            .unbounded_send(Ok(Bytes::from_static(b": agent ping\n\n")))
            .unwrap();
        tokio::time::sleep(Duration::from_secs(100)).await;
        agent
            .unbounded_send(Ok(Bytes::from_static(b"data: {\"n\":2}\n\n")))
            .unwrap();
        std::future::pending::<()>().await;
    });

    let mut seen = Vec::new();
    while let Some(frame) = next_at(&mut frames, started).await {
        seen.push(frame);
    }
    producer.abort();

    let (last_at, last) = seen.pop().unwrap();
    assert_eq!(
        last_at, 500,
        "300 s after the last event, at 200 s: the idle timeout"
    );
    let last = last.strip_prefix("event: task.error\ndata: ").unwrap();
    let error: Value = serde_json::from_str(last.trim_end()).unwrap();
    assert_eq!(error["id"], 5);
    assert_eq!(error["error"]["code"], -32001);
    assert_eq!(error["error"]["message"], "agent timeout: slow-01");
    assert_eq!(error["error"]["data"][0]["metadata"]["executed"], "false");

    let expected: Vec<(u64, &str)> = [
        (0, "data: {\"n\":1}\n\n"),
        (30, ": keepalive\n\n"),
        (60, ": keepalive\n\n"),
        (90, ": keepalive\n\n"),
        (100, ": agent ping\n\n"),
        (130, ": keepalive\n\n"),
        (160, ": keepalive\n\n"),
        (190, ": keepalive\n\n"),
        (200, "data: {\"n\":2}\n\n"),
    ]
    .into_iter()
    .chain((230..500).step_by(30).map(|at| (at, ": keepalive\n\n")))
    .collect();
    let seen: Vec<(u64, &str)> = seen
        .iter()
        .map(|(at, frame)| (*at, frame.as_str()))
        .collect();
    assert_eq!(seen, expected);
}

#[tokio::test(start_paused = true)]
async fn an_oversized_event_or_a_broken_agent_ends_the_stream_with_an_error_frame() {
    let mut config = ProxyConfig::default();
    config.max_response_bytes = 64;
    let oversized = futures::stream::iter([Ok::<_, std::io::Error>(Bytes::from(format!(
        "data: {}\n\n",
        "x".repeat(100)
    )))]);
    let frames: Vec<Bytes> = relay(oversized, "big-01", Framing::HttpJson, &config)
        .map(Result::unwrap)
        .collect()
        .await;
    let text = String::from_utf8(frames.concat()).unwrap();
    let events = sse_events(&text);
    assert_eq!(events.len(), 1, "{text}");
    assert_eq!(events[0].0.as_deref(), Some("task.error"));
    assert_eq!(events[0].1["error"]["message"], "agent response too large");
    assert_eq!(
        events[0].1["error"]["details"][0]["reason"],
        "AGENT_RESPONSE_TOO_LARGE"
    );

    let broken = futures::stream::iter([
        Ok(Bytes::from_static(b"data: {\"n\":1}\n\ndata: {\"n\"")),
        Err(std::io::Error::other("connection reset")),
    ]);
    let frames: Vec<Bytes> = relay(
        broken,
        "flaky-01",
        Framing::JsonRpc(RequestId::from(1_i64)),
        &config,
    )
    .map(Result::unwrap)
    .collect()
    .await;
    let events = sse_events(&String::from_utf8(frames.concat()).unwrap());
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].1, json!({"n": 1}));
    assert_eq!(events[1].1["error"]["code"], -32003);
}

#[tokio::test]
async fn a_client_that_leaves_closes_the_agents_stream_and_the_gauge_returns_to_zero() {
    let gateway = Gateway::start().await;
    let (closed, was_closed) = tokio::sync::oneshot::channel();
    let signal = std::sync::Arc::new(std::sync::Mutex::new(Some(closed)));
    let app = axum::Router::new().route(
        "/",
        post(move || {
            let guard = DropSignal(signal.lock().unwrap().take());
            async move {
                let ticks = futures::stream::unfold((0, guard), |(n, guard)| async move {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    let event = format!("data: {{\"tick\":{n}}}\n\n");
                    Some((Ok::<_, std::io::Error>(event), (n + 1, guard)))
                });
                (
                    [("content-type", "text/event-stream")],
                    Body::from_stream(ticks),
                )
            }
        }),
    );
    let url = format!("http://{}/", serve(app).await);
    gateway.directory.register("ticker-01", Some(url), None);

    let response = gateway
        .post_json(
            "/a2a/ticker-01",
            send_message("SendStreamingMessage", "tick").to_string(),
        )
        .await;
    let mut body = response.bytes_stream();
    let first = body.next().await.unwrap().unwrap();
    assert!(first.starts_with(b"data: {\"tick\":0}"));
    assert!(
        gateway
            .metrics_text()
            .await
            .contains(r#"kubemq_a2a_sse_streams_active{agent_id="ticker-01"} 1"#)
    );

    drop(body);
    tokio::time::timeout(Duration::from_secs(5), was_closed)
        .await
        .expect("the agent's stream is dropped after the client leaves")
        .unwrap();
    tokio::time::timeout(Duration::from_secs(5), async {
        while !gateway
            .metrics_text()
            .await
            .contains(r#"kubemq_a2a_sse_streams_active{agent_id="ticker-01"} 0"#)
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the active-stream gauge returns to 0");
}

#[tokio::test]
async fn get_stream_is_a_route_of_its_own_opened_at_the_agents_url() {
    use std::sync::{Arc, Mutex};
    // A KubeMQ-style agent: its one URL answers a GET for events with an event stream.
    let seen: Arc<Mutex<Vec<(String, String, axum::http::HeaderMap)>>> = Arc::default();
    let record = Arc::clone(&seen);
    let agent = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let record = Arc::clone(&record);
        async move {
            let uri = request.uri().clone();
            record.lock().unwrap().push((
                request.method().to_string(),
                uri.to_string(),
                request.headers().clone(),
            ));
            axum::response::Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from(
                    "event: task.status\ndata: {\"type\":\"status_update\"}\n\n\
                     event: task.done\ndata: {\"type\":\"done\"}\n\n",
                ))
                .unwrap()
        }
    });
    let addr = serve(agent).await;
    let gateway = Gateway::start().await;
    // The agent has a REST interface too, which a GET stream must not be sent to.
    gateway.directory.register(
        "events-01",
        Some(format!("http://{addr}/agent")),
        Some(format!("http://{addr}/rest")),
    );
    let response = gateway
        .http
        .get(gateway.url("/a2a/events-01/stream?topic=t1"))
        .header("X-Trace-Tag", "abc")
        .header("Authorization", "Bearer not-for-the-agent")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let body = response.text().await.unwrap();
    let done = body.find("task.done").unwrap();
    assert!(body.find("task.status").unwrap() < done, "{body}");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let (method, uri, headers) = &seen[0];
    assert_eq!((method.as_str(), uri.as_str()), ("GET", "/agent?topic=t1"));
    assert_eq!(headers["accept"], "text/event-stream");
    assert_eq!(headers["x-trace-tag"], "abc");
    assert!(headers.get("authorization").is_none());
    assert!(headers.get("x-kubemq-caller-id").is_some());
    let metrics = gateway.metrics_text().await;
    assert!(
        metrics.contains(r#"kubemq_a2a_sse_streams_active{agent_id="events-01"} 0"#),
        "{metrics}"
    );
    assert!(
        metrics.contains(r#"agent_id="events-01",method="message/stream""#),
        "{metrics}"
    );

    // An unknown agent is the gateway's JSON-RPC error, at HTTP 200.
    let missing = gateway
        .http
        .get(gateway.url("/a2a/nobody-01/stream"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 200);
    let error: Value = missing.json().await.unwrap();
    assert_eq!(error["error"]["code"], -32002, "{error}");
    assert_eq!(error["id"], Value::Null);
}
