//! Streams over time: keep-alives on idle streams, a reader too slow for its queue (closed
//! with an error frame, never silently short of events), and clients that leave (spec §8.3):
//! the task always goes on.

use std::time::Duration;

use a2a_server::{A2aServer, ServerConfig};
use a2a_types::Artifact;
use futures::StreamExt;
use serde_json::json;
use tower::ServiceExt;

use super::gated::{Step, artifact, gated};
use super::{
    BOTH, Binding, Gate, Sse, kind, serve_streaming, state, stream_params, streaming_card,
    wait_for_state,
};
use crate::support::FnExecutor;

/// An executor that starts working, waits for one gate step, then completes.
fn paused_worker(
    gate: &Gate,
) -> impl Fn(
    a2a_server::RequestContext,
    a2a_server::TaskUpdater,
) -> futures::future::BoxFuture<'static, Result<(), a2a_server::ExecutorError>>
+ Send
+ Sync
+ 'static {
    gated(gate, [Step::Pass, artifact("late")])
}

/// `count` chunks of one artifact `big`, each its number and `size` bytes of `fill`.
fn big_chunks(count: usize, fill: &str, size: usize) -> impl Iterator<Item = Step> {
    (0..count).map(move |chunk| {
        let mut artifact = Artifact::from_text(format!("{chunk:05}{}", fill.repeat(size)));
        artifact.artifact_id = "big".into();
        Step::Artifact(artifact)
    })
}

#[tokio::test(start_paused = true)]
async fn idle_streams_get_a_keep_alive_comment_every_fifteen_seconds_by_default() {
    // In process, so the paused clock drives the server's timers (no socket involved).
    let gate = Gate::new();
    let server = A2aServer::builder(streaming_card(), FnExecutor(paused_worker(&gate)))
        .authentication(a2a_server::auth::Authentication::disabled())
        .build()
        .unwrap();
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
        "params": stream_params("wait"),
    });
    let request = http::Request::post("/a2a")
        .header("Content-Type", "application/json")
        .header("A2A-Version", "1.0")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    let response = server.router().oneshot(request).await.unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let chunks = response
        .into_body()
        .into_data_stream()
        .map(|chunk| chunk.map_err(|error| error.to_string()));
    let mut sse = Sse::from_chunks(Box::pin(chunks));
    sse.read_timeout = Duration::from_secs(3600);

    assert_eq!(
        kind(&Binding::JsonRpc.payload(&sse.next_block().await.unwrap())),
        "task"
    );
    let working = Binding::JsonRpc.payload(&sse.next_block().await.unwrap());
    assert_eq!(state(&working), "TASK_STATE_WORKING");
    let idle_since = tokio::time::Instant::now();
    for beat in 1..=2_u32 {
        let block = sse.next_block().await.unwrap();
        assert!(block.is_comment(), "{block:?}");
        assert_eq!(block.comments, ["keep-alive"]);
        assert_eq!(idle_since.elapsed(), Duration::from_secs(15) * beat);
    }
    gate.open(1);
    let rest = sse.rest().await;
    let last = Binding::JsonRpc.payload(rest.last().unwrap());
    assert_eq!(state(&last), "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn keep_alives_reach_the_socket_at_the_configured_interval() {
    let gate = Gate::new();
    let mut config = ServerConfig::default();
    config.sse_keepalive = Duration::from_millis(50);
    let server = serve_streaming(config, paused_worker(&gate)).await;
    for binding in BOTH {
        let mut sse = Sse::open(binding.send_stream(&server, stream_params("wait")).await);
        assert_eq!(
            kind(&binding.payload(&sse.next_block().await.unwrap())),
            "task"
        );
        assert_eq!(
            kind(&binding.payload(&sse.next_block().await.unwrap())),
            "statusUpdate"
        );
        for _ in 0..2 {
            let block = sse.next_block().await.unwrap();
            assert_eq!(block.comments, ["keep-alive"], "{binding:?}: {block:?}");
        }
        gate.open(1);
        let rest = sse.rest().await;
        assert_eq!(
            state(&binding.payload(rest.last().unwrap())),
            "TASK_STATE_COMPLETED"
        );
    }
}

#[tokio::test]
async fn a_reader_that_falls_behind_its_queue_gets_an_error_frame_while_the_task_goes_on() {
    // 300 events of 64 KiB against a queue of 4: the stream overflows whether the server
    // falls behind at once or only once the socket buffers between it and the stalled client
    // are full. Each chunk replaces the same artifact, so the stored task stays small.
    const CHUNKS: usize = 300;
    let gate = Gate::new();
    let mut config = ServerConfig::default();
    config.sse_queue_capacity = 4;
    let steps = std::iter::once(Step::Pass).chain(big_chunks(CHUNKS, "x", 65_536));
    let server = serve_streaming(config, gated(&gate, steps)).await;
    for binding in BOTH {
        let mut sse = Sse::open(binding.send_stream(&server, stream_params("flood")).await);
        let first = binding.payload(&sse.next_event().await.unwrap());
        let task_id = first["task"]["id"].as_str().unwrap().to_owned();
        // The reader stalls; the executor must not wait for it.
        gate.open(1);
        let task = wait_for_state(&server, &task_id, "TASK_STATE_COMPLETED").await;
        let text = task["artifacts"][0]["parts"][0]["text"].as_str().unwrap();
        assert!(text.starts_with(&format!("{:05}", CHUNKS - 1)));

        let events = sse.rest().await;
        let (last, delivered) = events.split_last().unwrap();
        assert_eq!(binding.error_reason(last), "SERVER_BUSY", "{binding:?}");
        assert!(
            delivered.len() < CHUNKS,
            "{binding:?}: the reader was never behind"
        );
        for block in delivered {
            let payload = binding.payload(block);
            assert_ne!(state_or_none(&payload), Some("TASK_STATE_COMPLETED"));
        }
    }
}

#[tokio::test]
async fn a_reader_stalled_on_its_socket_holds_back_neither_the_task_nor_another_reader() {
    // 200 events of 32 KiB: more than the socket buffers hold (a few MiB at most), less
    // than the default queue.
    const CHUNKS: usize = 200;
    let gate = Gate::new();
    let steps = std::iter::once(Step::Pass).chain(big_chunks(CHUNKS, "y", 32_768));
    let server = serve_streaming(ServerConfig::default(), gated(&gate, steps)).await;
    let mut stalled = Sse::open(
        Binding::JsonRpc
            .send_stream(&server, stream_params("go"))
            .await,
    );
    let task = Binding::JsonRpc.payload(&stalled.next_event().await.unwrap());
    let task_id = task["task"]["id"].as_str().unwrap().to_owned();
    let mut reader = Sse::open(Binding::Rest.subscribe(&server, &task_id).await);
    assert_eq!(
        kind(&Binding::Rest.payload(&reader.next_event().await.unwrap())),
        "task"
    );
    gate.open(1);

    let events = reader.rest().await;
    assert_eq!(events.len(), CHUNKS + 1);
    assert_eq!(
        state(&Binding::Rest.payload(events.last().unwrap())),
        "TASK_STATE_COMPLETED"
    );
    wait_for_state(&server, &task_id, "TASK_STATE_COMPLETED").await;

    // Nothing was lost for the stalled reader either: its queue never overflowed.
    let events = stalled.rest().await;
    let kinds: Vec<String> = events
        .iter()
        .map(|block| kind(&Binding::JsonRpc.payload(block)).to_owned())
        .collect();
    assert_eq!(kinds.first().map(String::as_str), Some("statusUpdate"));
    assert_eq!(
        kinds
            .iter()
            .filter(|kind| *kind == "artifactUpdate")
            .count(),
        CHUNKS
    );
    let last = Binding::JsonRpc.payload(events.last().unwrap());
    assert_eq!(state(&last), "TASK_STATE_COMPLETED");
}

fn state_or_none(payload: &serde_json::Value) -> Option<&str> {
    match kind(payload) {
        "task" | "statusUpdate" => Some(state(payload)),
        _ => None,
    }
}

#[tokio::test]
async fn a_client_that_disconnects_mid_stream_does_not_stop_the_task() {
    let gate = Gate::new();
    let server = serve_streaming(ServerConfig::default(), paused_worker(&gate)).await;
    for binding in BOTH {
        let response = binding.send_stream(&server, stream_params("leave")).await;
        let mut sse = Sse::open(response);
        let task = binding.payload(&sse.next_event().await.unwrap());
        let task_id = task["task"]["id"].as_str().unwrap().to_owned();
        assert_eq!(
            kind(&binding.payload(&sse.next_event().await.unwrap())),
            "statusUpdate"
        );
        // Dropping the body closes the connection (reqwest does not reuse an unread one).
        drop(sse);
        tokio::time::sleep(Duration::from_millis(50)).await;
        gate.open(1);
        let task = wait_for_state(&server, &task_id, "TASK_STATE_COMPLETED").await;
        assert_eq!(
            task["artifacts"][0]["parts"][0]["text"], "late",
            "{binding:?}"
        );
    }
}
