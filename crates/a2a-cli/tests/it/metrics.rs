//! `GET /metrics` of `a2a serve`: the server's series in the Prometheus text format, counted
//! right after a scripted workload, and served without credentials.

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
async fn metrics_count_refused_authentication_and_need_no_credentials() {
    let server = Server::start(&["--api-key", "the-key"]);
    let http = reqwest::Client::new();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t"}});
    for key in [None, Some("wrong"), Some("wrong again")] {
        let mut request = http
            .post(format!("{}/", server.url))
            .header("A2A-Version", "1.0")
            .json(&body);
        if let Some(key) = key {
            request = request.header("X-API-Key", key);
        }
        assert_eq!(request.send().await.unwrap().status(), 401);
    }
    let page = scrape(&server).await;
    assert_eq!(
        value(
            &page,
            r#"a2a_authentication_failures_total{reason="missing"}"#
        ),
        1.0,
        "{page}"
    );
    assert_eq!(
        value(
            &page,
            r#"a2a_authentication_failures_total{reason="invalid"}"#
        ),
        2.0,
        "{page}"
    );
}
