//! Resumed streams: a cut connection is picked up again with SubscribeToTask, with nothing
//! lost and nothing repeated.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use a2a_client::{A2aClient, ClientError, ResumePolicy, TimeoutKind, message};
use a2a_types::{ProtocolBinding, StreamResponse};
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures::StreamExt as _;
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::support::{Agent, Mock, Recorded, bindings, json_response, stream_text, subscribe};

/// An event as the comparison sees it: kind, state, texts; no ids or timestamps.
fn describe(event: &StreamResponse) -> String {
    match event {
        StreamResponse::Task(task) => format!(
            "task {} [{}]",
            task.status.state,
            task.artifacts
                .iter()
                .map(|artifact| artifact.text())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        StreamResponse::Message(message) => format!("message {}", message.text()),
        StreamResponse::StatusUpdate(event) => {
            format!("status {} {}", event.status.state, event.status.text())
        }
        StreamResponse::ArtifactUpdate(event) => format!(
            "artifact {} {} append={}",
            event.artifact.artifact_id,
            event.artifact.text(),
            event.append
        ),
    }
}

/// A TCP proxy that kills the first SSE connection once `cut_after` events went through.
struct CuttingProxy {
    addr: SocketAddr,
    cut: Arc<AtomicBool>,
    event_streams: Arc<AtomicUsize>,
}

impl CuttingProxy {
    async fn start(target: SocketAddr, cut_after: usize) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let cut = Arc::new(AtomicBool::new(false));
        let event_streams = Arc::new(AtomicUsize::new(0));
        let (cut_flag, streams) = (Arc::clone(&cut), Arc::clone(&event_streams));
        tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    return;
                };
                let (cut, streams) = (Arc::clone(&cut_flag), Arc::clone(&streams));
                tokio::spawn(async move {
                    let server = tokio::net::TcpStream::connect(target).await.unwrap();
                    let (mut client_read, mut client_write) = client.into_split();
                    let (mut server_read, mut server_write) = server.into_split();
                    let upstream = tokio::spawn(async move {
                        let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
                    });
                    let mut seen = Vec::new();
                    let mut is_stream = false;
                    let mut cutting = false;
                    let mut buffer = vec![0_u8; 16 * 1024];
                    while let Ok(read) = server_read.read(&mut buffer).await {
                        if read == 0 {
                            break;
                        }
                        let chunk = &buffer[..read];
                        seen.extend_from_slice(chunk);
                        if !is_stream
                            && String::from_utf8_lossy(&seen)
                                .to_ascii_lowercase()
                                .contains("text/event-stream")
                        {
                            is_stream = true;
                            streams.fetch_add(1, Ordering::SeqCst);
                            // Only the first stream is cut.
                            cutting = !cut.swap(true, Ordering::SeqCst);
                        }
                        if client_write.write_all(chunk).await.is_err() {
                            break;
                        }
                        let events = seen.windows(5).filter(|window| window == b"data:").count();
                        if cutting && events >= cut_after {
                            break;
                        }
                    }
                    // Dropping both halves closes the connection mid-stream.
                    upstream.abort();
                });
            }
        });
        Self {
            addr,
            cut,
            event_streams,
        }
    }
}

#[tokio::test]
async fn a_stream_cut_by_a_proxy_resumes_with_no_event_lost_or_repeated() {
    let agent = Agent::start().await;
    for binding in bindings() {
        let text = "slow 6 150";
        // The same agent run, uninterrupted.
        let baseline: Vec<String> = stream_text(&agent.client(&binding), text)
            .await
            .unwrap()
            .iter()
            .map(describe)
            .collect();

        let proxy = CuttingProxy::start(agent.addr, 3).await;
        let client = A2aClient::builder()
            .card(agent.card.clone())
            .prefer_binding(binding.clone())
            .host(format!("http://{}", proxy.addr))
            .build()
            .unwrap();
        let mut stream = client
            .send_streaming_message(message::request(text))
            .await
            .unwrap();
        let first = stream.next().await.unwrap().unwrap();
        let task_id = first.task_id().unwrap().clone();
        // A subscriber on its own connection sees the rest of the run uninterrupted.
        let watcher = agent
            .client(&binding)
            .subscribe_to_task(subscribe(&task_id))
            .await
            .unwrap();
        let mut resumed = vec![describe(&first)];
        while let Some(event) = stream.next().await {
            resumed.push(describe(&event.unwrap()));
        }
        let watched: Vec<String> = watcher
            .collect_all()
            .await
            .unwrap()
            .iter()
            .map(describe)
            .collect();

        assert!(
            proxy.cut.load(Ordering::SeqCst),
            "{binding}: the proxy cut a stream"
        );
        assert!(
            proxy.event_streams.load(Ordering::SeqCst) >= 2,
            "{binding}: the client subscribed again"
        );
        assert_eq!(
            resumed, baseline,
            "{binding}: the resumed stream equals an uninterrupted run"
        );
        // After its snapshot, the subscriber saw exactly the tail of the resumed stream.
        let tail = &watched[1..];
        assert!(
            resumed.ends_with(tail),
            "{binding}: subscriber {watched:#?} vs resumed {resumed:#?}"
        );
    }
}

fn sse_body(frames: &[String]) -> String {
    frames.concat()
}

fn frame(id: Option<u64>, data: &serde_json::Value) -> String {
    match id {
        Some(id) => format!("id: {id}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

fn sse(body: String) -> Response {
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .body(Body::from(body))
        .unwrap()
}

/// An SSE response that sends `body`, then fails the connection.
fn sse_then_abort(body: String) -> Response {
    // The failure comes a little later, so the head and the events are on the wire first.
    let chunks = futures::stream::iter([Ok::<_, std::io::Error>(Bytes::from(body))]).chain(
        futures::stream::once(async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Err(std::io::Error::other("connection lost"))
        }),
    );
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(chunks))
        .unwrap()
}

/// An SSE response that sends `body`, then nothing, forever.
fn sse_then_silence(body: String) -> Response {
    let chunks = futures::stream::iter([Ok::<_, std::io::Error>(Bytes::from(body))])
        .chain(futures::stream::pending());
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(chunks))
        .unwrap()
}

fn task(state: &str, artifacts: &[(&str, &str)]) -> serde_json::Value {
    let artifacts: Vec<_> = artifacts
        .iter()
        .map(|(id, text)| json!({"artifactId": id, "parts": [{"text": text}]}))
        .collect();
    json!({"task": {"id": "t1", "contextId": "c1", "status": {"state": state}, "artifacts": artifacts}})
}

fn artifact(id: &str, text: &str) -> serde_json::Value {
    json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1",
           "artifact": {"artifactId": id, "parts": [{"text": text}]}}})
}

fn status(state: &str) -> serde_json::Value {
    json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": state}}})
}

fn rest_client(mock: &Mock, resume: ResumePolicy) -> A2aClient {
    A2aClient::builder()
        .url(mock.url("/rest"), ProtocolBinding::HttpJson)
        .resume(resume.backoff(Duration::from_millis(10), Duration::from_millis(50)))
        .build()
        .unwrap()
}

async fn events_of(client: &A2aClient) -> Vec<String> {
    stream_text(client, "go")
        .await
        .unwrap()
        .iter()
        .map(describe)
        .collect()
}

/// The events a client with the default resume policy yields from `mock`.
async fn default_events(mock: &Mock) -> Vec<String> {
    events_of(&rest_client(mock, ResumePolicy::default())).await
}

/// What the client yields for the working task, artifacts `a1` and `a2`, and COMPLETED, each
/// once: a resumed stream that neither misses nor repeats anything.
const WORKING_A1_A2_COMPLETED: [&str; 4] = [
    "task TASK_STATE_WORKING []",
    "artifact a1 one append=false",
    "artifact a2 two append=false",
    "status TASK_STATE_COMPLETED ",
];

/// A mock agent answering a re-subscription with `resubscribed` and anything else (the
/// first stream, task reads) with `first`.
async fn mock_resubscribing(
    first: impl Fn() -> Response + Send + Sync + 'static,
    resubscribed: impl Fn() -> Response + Send + Sync + 'static,
) -> Mock {
    Mock::start(move |request, _| {
        if is_subscribe(request) {
            resubscribed()
        } else {
            first()
        }
    })
    .await
}

/// The first stream of the tests without event ids: the working task, then artifact `a1`,
/// and no final state.
fn working_then_a1() -> String {
    sse_body(&[
        frame(None, &task("TASK_STATE_WORKING", &[])),
        frame(None, &artifact("a1", "one")),
    ])
}

fn is_subscribe(request: &Recorded) -> bool {
    request.uri.path() == "/rest/tasks/t1:subscribe"
}

#[tokio::test]
async fn without_event_ids_a_snapshot_that_adds_nothing_is_dropped() {
    let mock = mock_resubscribing(
        || sse(working_then_a1()),
        || {
            sse(sse_body(&[
                frame(None, &task("TASK_STATE_WORKING", &[("a1", "one")])),
                frame(None, &artifact("a2", "two")),
                frame(None, &status("TASK_STATE_COMPLETED")),
            ]))
        },
    )
    .await;
    let events = default_events(&mock).await;
    assert_eq!(events, WORKING_A1_A2_COMPLETED);
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1].header("last-event-id").is_none(),
        "no ids, no Last-Event-ID"
    );
}

#[tokio::test]
async fn without_event_ids_a_snapshot_showing_missed_events_is_delivered() {
    let mock = mock_resubscribing(
        || sse(working_then_a1()),
        || {
            sse(sse_body(&[
                frame(
                    None,
                    &task("TASK_STATE_WORKING", &[("a1", "one"), ("a2", "two")]),
                ),
                frame(None, &status("TASK_STATE_COMPLETED")),
            ]))
        },
    )
    .await;
    let events = default_events(&mock).await;
    assert_eq!(
        events,
        [
            "task TASK_STATE_WORKING []",
            "artifact a1 one append=false",
            "task TASK_STATE_WORKING [one, two]",
            "status TASK_STATE_COMPLETED ",
        ]
    );
}

#[tokio::test]
async fn with_event_ids_the_client_sends_last_event_id_and_drops_replays() {
    let mock = mock_resubscribing(
        || {
            sse_then_abort(sse_body(&[
                frame(Some(1), &task("TASK_STATE_WORKING", &[])),
                frame(Some(2), &artifact("a1", "one")),
            ]))
        },
        || {
            sse(sse_body(&[
                frame(Some(2), &artifact("a1", "one")),
                frame(Some(3), &artifact("a2", "two")),
                frame(Some(4), &status("TASK_STATE_COMPLETED")),
            ]))
        },
    )
    .await;
    let events = default_events(&mock).await;
    assert_eq!(events, WORKING_A1_A2_COMPLETED);
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].header("last-event-id"), Some("2"));
}

#[tokio::test]
async fn a_task_that_finished_meanwhile_ends_the_stream_with_its_final_state() {
    let mock = Mock::start(|request, _| {
        if is_subscribe(request) {
            json_response(
                400,
                &json!({"error": {"code": 400, "status": "FAILED_PRECONDITION", "message": "finished",
                        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "UNSUPPORTED_OPERATION", "domain": "a2a-protocol.org"}]}}),
            )
        } else if request.uri.path() == "/rest/tasks/t1" {
            json_response(200, &task("TASK_STATE_COMPLETED", &[("a1", "one")])["task"])
        } else {
            sse(frame(None, &task("TASK_STATE_WORKING", &[])))
        }
    })
    .await;
    let events = default_events(&mock).await;
    assert_eq!(
        events,
        [
            "task TASK_STATE_WORKING []",
            "task TASK_STATE_COMPLETED [one]"
        ]
    );
}

#[tokio::test]
async fn with_resuming_off_a_cut_stream_just_ends() {
    let mock = Mock::start(|_, _| sse(frame(None, &task("TASK_STATE_WORKING", &[])))).await;
    let events = events_of(&rest_client(&mock, ResumePolicy::disabled())).await;
    assert_eq!(events, ["task TASK_STATE_WORKING []"]);
    assert_eq!(mock.requests().len(), 1);

    let aborting =
        Mock::start(|_, _| sse_then_abort(frame(None, &task("TASK_STATE_WORKING", &[])))).await;
    let mut stream = rest_client(&aborting, ResumePolicy::disabled())
        .send_streaming_message(message::request("go"))
        .await
        .unwrap();
    assert!(stream.next().await.unwrap().is_ok());
    let error = stream.next().await.unwrap().unwrap_err();
    assert!(matches!(error, ClientError::Transport { .. }), "{error:?}");
}

#[tokio::test]
async fn a_silent_stream_times_out_and_is_resumed() {
    let mock = mock_resubscribing(
        || sse_then_silence(frame(None, &task("TASK_STATE_WORKING", &[]))),
        || {
            sse(sse_body(&[
                frame(None, &task("TASK_STATE_WORKING", &[])),
                frame(None, &status("TASK_STATE_COMPLETED")),
            ]))
        },
    )
    .await;
    let client = A2aClient::builder()
        .url(mock.url("/rest"), ProtocolBinding::HttpJson)
        .stream_idle_timeout(Duration::from_millis(300))
        .resume(
            ResumePolicy::default().backoff(Duration::from_millis(10), Duration::from_millis(50)),
        )
        .build()
        .unwrap();
    assert_eq!(
        events_of(&client).await,
        ["task TASK_STATE_WORKING []", "status TASK_STATE_COMPLETED "]
    );

    let silent =
        Mock::start(|_, _| sse_then_silence(frame(None, &task("TASK_STATE_WORKING", &[])))).await;
    let client = A2aClient::builder()
        .url(silent.url("/rest"), ProtocolBinding::HttpJson)
        .stream_idle_timeout(Duration::from_millis(200))
        .resume(ResumePolicy::disabled())
        .build()
        .unwrap();
    let error = stream_text(&client, "go").await.unwrap_err();
    assert!(
        matches!(error, ClientError::Timeout(TimeoutKind::StreamIdle)),
        "{error:?}"
    );
}

#[tokio::test]
async fn resuming_gives_up_after_its_attempts() {
    let mock = mock_resubscribing(
        || sse_then_abort(frame(None, &task("TASK_STATE_WORKING", &[]))),
        || {
            Response::builder()
                .status(503)
                .body(Body::from("down"))
                .unwrap()
        },
    )
    .await;
    let client = rest_client(&mock, ResumePolicy::default().max_attempts(3));
    let mut stream = client
        .send_streaming_message(message::request("go"))
        .await
        .unwrap();
    assert!(stream.next().await.unwrap().is_ok());
    let error = stream.next().await.unwrap().unwrap_err();
    assert!(
        matches!(error, ClientError::StreamInterrupted { .. }),
        "{error:?}"
    );
    assert!(stream.next().await.is_none());
    let subscribes = mock
        .requests()
        .iter()
        .filter(|request| is_subscribe(request))
        .count();
    assert_eq!(subscribes, 3);
}

#[tokio::test]
async fn a_refused_resubscription_waits_as_its_retry_after_asks() {
    let subscribes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&subscribes);
    let mock = Mock::start(move |request, _| {
        if !is_subscribe(request) {
            return sse_then_abort(frame(None, &task("TASK_STATE_WORKING", &[])));
        }
        let mut seen = seen.lock().unwrap();
        seen.push(std::time::Instant::now());
        if seen.len() == 1 {
            return Response::builder()
                .status(503)
                .header("retry-after", "1")
                .body(Body::from("restarting"))
                .unwrap();
        }
        sse(sse_body(&[
            frame(None, &task("TASK_STATE_WORKING", &[("a1", "one")])),
            frame(None, &status("TASK_STATE_COMPLETED")),
        ]))
    })
    .await;
    // The resume backoff alone would try again within 50 ms.
    let events = default_events(&mock).await;
    assert_eq!(
        events.last().unwrap(),
        "status TASK_STATE_COMPLETED ",
        "{events:?}"
    );
    let subscribes = subscribes.lock().unwrap();
    assert_eq!(subscribes.len(), 2, "one refusal, then the resumed stream");
    let gap = subscribes[1] - subscribes[0];
    assert!(gap >= Duration::from_secs(1), "asked again after {gap:?}");
}
