//! The per-agent concurrency limit, shared by calls and streams.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2a_gateway::proxy::ProxyConfig;
use axum::body::Body;
use axum::routing::post;
use futures::StreamExt as _;
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::support::{Gateway, error_info, send_message, serve};

/// An agent that holds every call until `release` gets permits, counting arrivals.
async fn held_agent(arrived: Arc<AtomicUsize>, release: Arc<Semaphore>) -> String {
    let app = axum::Router::new().route(
        "/",
        post(move || {
            let (arrived, release) = (Arc::clone(&arrived), Arc::clone(&release));
            async move {
                arrived.fetch_add(1, Ordering::SeqCst);
                let _permit = release.acquire().await.unwrap();
                (
                    [("content-type", "application/json")],
                    r#"{"jsonrpc":"2.0","id":7,"result":{"ok":true}}"#,
                )
            }
        }),
    );
    format!("http://{}/", serve(app).await)
}

#[tokio::test]
async fn the_101st_concurrent_call_to_one_agent_is_refused_as_busy() {
    let gateway = Arc::new(Gateway::start().await);
    let arrived = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(Semaphore::new(0));
    let url = held_agent(Arc::clone(&arrived), Arc::clone(&release)).await;
    gateway
        .directory
        .register("busy-01", Some(url.clone()), None);
    gateway.directory.register("other-01", Some(url), None);

    let calls: Vec<_> = (0..100)
        .map(|_| {
            let gateway = Arc::clone(&gateway);
            tokio::spawn(async move {
                gateway
                    .rpc("busy-01", &send_message("SendMessage", "x"))
                    .await
            })
        })
        .collect();
    tokio::time::timeout(Duration::from_secs(10), async {
        while arrived.load(Ordering::SeqCst) < 100 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("100 calls reach the agent");

    let (status, body) = gateway
        .rpc("busy-01", &send_message("SendMessage", "x"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["error"]["code"], -32003);
    assert_eq!(
        body["error"]["message"],
        "server busy: concurrency limit reached"
    );
    assert_eq!(error_info(&body)["metadata"]["executed"], "false");
    assert_eq!(
        arrived.load(Ordering::SeqCst),
        100,
        "the busy call never reached the agent"
    );

    // The limit is per agent: another agent on the same host still gets through.
    let other = {
        let gateway = Arc::clone(&gateway);
        tokio::spawn(async move {
            gateway
                .rpc("other-01", &send_message("SendMessage", "x"))
                .await
        })
    };
    release.add_permits(200);
    for call in calls {
        let (status, body) = call.await.unwrap();
        assert_eq!(
            (status, &body["result"]),
            (200, &serde_json::json!({"ok": true}))
        );
    }
    assert_eq!(other.await.unwrap().1["result"]["ok"], true);
    let (_, body) = gateway
        .rpc("busy-01", &send_message("SendMessage", "x"))
        .await;
    assert_eq!(body["result"]["ok"], true, "permits come back");
    assert!(gateway.metrics_text().await.contains(
        r#"kubemq_a2a_requests_total{agent_id="busy-01",method="SendMessage",outcome="busy"} 1"#
    ));
}

#[tokio::test]
async fn an_open_stream_holds_one_of_the_agents_permits() {
    let mut config = ProxyConfig::default();
    config.max_concurrency_per_agent = 1;
    let gateway = Gateway::start_with(config).await;
    let app = axum::Router::new().route(
        "/",
        post(|request: String| async move {
            if !request.contains("SendStreamingMessage") {
                let answer = r#"{"jsonrpc":"2.0","id":7,"result":{"ok":true}}"#;
                return ([("content-type", "application/json")], Body::from(answer));
            }
            let events = futures::stream::unfold(0, |n| async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                Some((
                    Ok::<_, std::io::Error>(format!("data: {{\"n\":{n}}}\n\n")),
                    n + 1,
                ))
            });
            (
                [("content-type", "text/event-stream")],
                Body::from_stream(events),
            )
        }),
    );
    let url = format!("http://{}/", serve(app).await);
    gateway.directory.register("stream-01", Some(url), None);

    let stream = gateway
        .post_json(
            "/a2a/stream-01",
            send_message("SendStreamingMessage", "x").to_string(),
        )
        .await;
    let mut events = stream.bytes_stream();
    assert!(events.next().await.unwrap().is_ok(), "the stream is open");

    let (_, body) = gateway
        .rpc("stream-01", &send_message("GetTask", "x"))
        .await;
    assert_eq!(
        body["error"]["message"],
        "server busy: concurrency limit reached"
    );

    drop(events);
    let freed: Value = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let (_, body) = gateway
                .rpc("stream-01", &send_message("GetTask", "x"))
                .await;
            if body["error"].is_null() {
                return body;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("closing the stream frees its permit");
    assert_eq!(freed["result"]["ok"], true);
}
