//! Retries (as KubeMQ's A2A gateway advises) and timeouts.

use std::time::Duration;

use a2a_client::{A2aClient, ClientError, RetryPolicy, TimeoutKind, message};
use a2a_types::{ProtocolBinding, TaskState};
use axum::body::Body;
use axum::response::Response;
use serde_json::json;

use crate::support::{Mock, get, json_response, jsonrpc_result, task_json};

fn unavailable() -> Response {
    Response::builder()
        .status(503)
        .body(Body::from("Service Unavailable"))
        .unwrap()
}

fn fast_retries() -> RetryPolicy {
    RetryPolicy::default().backoff(Duration::from_millis(10), Duration::from_millis(50))
}

/// 503 on every other request, starting with the first.
fn flaky(request: &crate::support::Recorded, index: usize) -> Response {
    if index.is_multiple_of(2) {
        return unavailable();
    }
    match request.json()["method"].as_str() {
        Some("SendMessage") => {
            jsonrpc_result(json!({"task": task_json("t1", "TASK_STATE_COMPLETED")}))
        }
        _ => jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED")),
    }
}

#[tokio::test]
async fn get_task_and_send_message_are_retried_after_a_503_and_cancel_is_not() {
    let mock = Mock::start(flaky).await;
    let client = A2aClient::builder()
        .url(mock.url("/a2a"), ProtocolBinding::JsonRpc)
        .retry(fast_retries())
        .build()
        .unwrap();
    let task = client.get_task(get("t1")).await.unwrap();
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(mock.requests().len(), 2, "one 503, then the retry");

    // A send is retried with the same messageId, which makes the retry the same send.
    client.send_message(message::request("hi")).await.unwrap();
    let sent = mock.requests();
    assert_eq!(sent.len(), 4, "one 503, then the retry");
    assert_eq!(
        sent[2].json()["params"]["message"]["messageId"],
        sent[3].json()["params"]["message"]["messageId"],
        "a retried SendMessage keeps its messageId"
    );

    let error = client
        .cancel_task(a2a_types::CancelTaskRequest {
            tenant: String::new(),
            id: a2a_types::TaskId::new("t1"),
            metadata: None,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(error, ClientError::Http { status: 503, .. }),
        "{error:?}"
    );
    assert!(
        error.is_retryable(),
        "retryable, but CancelTask is not retried by default"
    );
    assert_eq!(mock.requests().len(), 5, "CancelTask was sent once");
}

#[tokio::test]
async fn retries_stop_after_the_limit_and_skip_final_errors() {
    let mock = Mock::start(|request, _| {
        if request.uri.path() == "/down" {
            unavailable()
        } else {
            json_response(
                404,
                &json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "no",
                        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]}}),
            )
        }
    })
    .await;
    let down = A2aClient::builder()
        .url(mock.url("/down"), ProtocolBinding::JsonRpc)
        .retry(fast_retries().max_retries(3))
        .build()
        .unwrap();
    assert!(down.get_task(get("t1")).await.is_err());
    assert_eq!(
        mock.requests().len(),
        4,
        "the first attempt and three retries"
    );

    let missing = A2aClient::builder()
        .url(mock.url("/rest"), ProtocolBinding::HttpJson)
        .retry(fast_retries())
        .build()
        .unwrap();
    let error = missing.get_task(get("t1")).await.unwrap_err();
    assert_eq!(error.kind(), Some(a2a_types::ErrorKind::TaskNotFound));
    assert_eq!(
        mock.requests().len(),
        5,
        "the agent's own answer is not retried"
    );
}

#[tokio::test]
async fn a_slow_answer_times_out_and_is_retried_when_idempotent() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&hits);
    let app = axum::Router::new().fallback(move || {
        let counter = std::sync::Arc::clone(&counter);
        async move {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::time::sleep(Duration::from_secs(5)).await;
            "late"
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let client = A2aClient::builder()
        .url(format!("http://{addr}/a2a"), ProtocolBinding::JsonRpc)
        .request_timeout(Duration::from_millis(200))
        .retry(fast_retries().max_retries(1))
        .build()
        .unwrap();
    let error = client.get_task(get("t1")).await.unwrap_err();
    assert!(
        matches!(error, ClientError::Timeout(TimeoutKind::Request)),
        "{error:?}"
    );
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 2);
}

/// A peer that refuses the first request with `status` and `Retry-After: retry_after`, then
/// answers GetTask; the arrival time of each request.
async fn asking_to_wait(
    status: u16,
    retry_after: String,
) -> (
    Mock,
    std::sync::Arc<std::sync::Mutex<Vec<std::time::Instant>>>,
) {
    let arrivals = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&arrivals);
    let mock = Mock::start(move |_request, index| {
        seen.lock().unwrap().push(std::time::Instant::now());
        if index == 0 {
            Response::builder()
                .status(status)
                .header("retry-after", retry_after.as_str())
                .body(Body::from("busy"))
                .unwrap()
        } else {
            jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED"))
        }
    })
    .await;
    (mock, arrivals)
}

/// The time between the first and the second request.
fn gap(arrivals: &std::sync::Mutex<Vec<std::time::Instant>>) -> Duration {
    let arrivals = arrivals.lock().unwrap();
    assert_eq!(arrivals.len(), 2, "one refusal, then the retry");
    arrivals[1] - arrivals[0]
}

async fn get_task_from(mock: &Mock, retry: RetryPolicy) {
    let client = A2aClient::builder()
        .url(mock.url("/a2a"), ProtocolBinding::JsonRpc)
        .retry(retry)
        .build()
        .unwrap();
    let task = client.get_task(get("t1")).await.unwrap();
    assert_eq!(task.status.state, TaskState::Completed);
}

#[tokio::test]
async fn a_503_with_retry_after_in_seconds_is_retried_no_sooner() {
    let (mock, arrivals) = asking_to_wait(503, "1".to_owned()).await;
    get_task_from(&mock, fast_retries()).await;
    let gap = gap(&arrivals);
    assert!(gap >= Duration::from_secs(1), "retried after {gap:?}");
}

#[tokio::test]
async fn a_429_with_retry_after_as_a_date_is_retried_no_sooner() {
    // HTTP dates have whole seconds: two seconds ahead is at least one from now. The first
    // request may arrive a while after the date was written, so the retry is measured against
    // the date itself, not against the refusal.
    let (start, wall) = (std::time::Instant::now(), std::time::SystemTime::now());
    let date = httpdate::fmt_http_date(wall + Duration::from_secs(2));
    let due = httpdate::parse_http_date(&date).unwrap();
    let due = start + due.duration_since(wall).unwrap();
    let (mock, arrivals) = asking_to_wait(429, date).await;
    get_task_from(&mock, fast_retries()).await;
    let retried = {
        let arrivals = arrivals.lock().unwrap();
        assert_eq!(arrivals.len(), 2, "one refusal, then the retry");
        arrivals[1]
    };
    // A few milliseconds allow for the two clocks being read one after the other.
    assert!(
        retried + Duration::from_millis(5) >= due,
        "retried {:?} before the date",
        due.saturating_duration_since(retried)
    );
}

#[tokio::test]
async fn a_long_retry_after_is_capped() {
    let (mock, arrivals) = asking_to_wait(503, "3600".to_owned()).await;
    let capped = fast_retries().max_retry_after(Duration::from_millis(300));
    get_task_from(&mock, capped).await;
    let gap = gap(&arrivals);
    assert!(gap >= Duration::from_millis(300), "retried after {gap:?}");
}

#[tokio::test]
async fn card_discovery_waits_as_a_503_with_retry_after_asks() {
    let arrivals = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&arrivals);
    let mock = Mock::start(move |_request, index| {
        seen.lock().unwrap().push(std::time::Instant::now());
        if index == 0 {
            return Response::builder()
                .status(503)
                .header("retry-after", "1")
                .body(Body::from("starting up"))
                .unwrap();
        }
        json_response(
            200,
            &json!({
                "name": "agent", "description": "d", "version": "1", "capabilities": {},
                "supportedInterfaces": [
                    {"url": "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
                ],
            }),
        )
    })
    .await;
    let options = a2a_client::CardFetchOptions::new().retry(fast_retries());
    let card = a2a_client::fetch_agent_card(&mock.url("/"), &options)
        .await
        .unwrap();
    assert_eq!(card.name, "agent");
    let gap = gap(&arrivals);
    assert!(gap >= Duration::from_secs(1), "asked again after {gap:?}");
}
