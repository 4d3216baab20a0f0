//! A slow database link: `a2a serve` over PostgreSQL through a proxy of ours that holds
//! every chunk back 50 ms each way. Sends (blocking and streaming) stay correct, throughput
//! drops, `/readyz` stays ready, and nothing times out.

use std::time::Duration;

use a2a_test_support::fault_proxy::FaultProxy;
use serde_json::json;

use crate::database::Database;
use crate::load::{Load, Tally};
use crate::postgres_outage::readiness;
use crate::support::{Server, artifact_text, user_message};

const SENDERS: usize = 8;
const PHASE: Duration = Duration::from_secs(6);
const DELAY: Duration = Duration::from_millis(50);

/// Sends for one phase; the tally and the rate of acknowledged sends per second.
async fn phase(server: &Server, prefix: &str) -> (Tally, f64) {
    let load = Load::start(&server.url, SENDERS, prefix, Duration::from_secs(30));
    tokio::time::sleep(PHASE).await;
    let elapsed = load.elapsed();
    let tally = Tally::of(&load.finish().await);
    #[allow(clippy::cast_precision_loss)] // counts far below 2^52
    let rate = tally.acked.len() as f64 / elapsed.as_secs_f64();
    (tally, rate)
}

/// One streaming send: its events end with the completed task and the echoed text.
async fn streamed(server: &Server, text: &str) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
                      "params": {"message": user_message(text, text)}});
    let events = server.stream("/", &body).await;
    let results: Vec<_> = events.iter().map(|event| &event["result"]).collect();
    let last = results.last().expect("events");
    assert_eq!(
        last.pointer("/statusUpdate/status/state"),
        Some(&json!("TASK_STATE_COMPLETED")),
        "{results:?}"
    );
    let echoed: Vec<String> = results
        .iter()
        .filter_map(|result| result.get("artifactUpdate"))
        .map(|update| artifact_text(&update["artifact"]))
        .collect();
    assert_eq!(echoed.concat(), text, "{results:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_database_link_slows_the_server_down_without_errors() {
    let _one = crate::one_at_a_time().await;
    let Some(database) = Database::create("faults_slow_link").await else {
        return;
    };
    let proxy = FaultProxy::start(database.addr).await.unwrap();
    let store = database.url_via(proxy.addr());
    let server = Server::start(&["--store", &store, "--log-level", "warn"]);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();

    let (fast, fast_rate) = phase(&server, "fast").await;
    streamed(&server, "streamed over a fast link").await;
    proxy.set_delay(DELAY);
    let (slow, slow_rate) = phase(&server, "slow").await;
    streamed(&server, "streamed over a slow link").await;
    assert_eq!(readiness(&http, &server.url).await, Some(200));

    for (tally, link) in [(&fast, "fast"), (&slow, "slow")] {
        assert!(
            tally.broken.is_empty() && tally.refused.is_empty(),
            "{link} link: every send acknowledged; refused {:?}, broken {:?}",
            tally.refused,
            tally.broken
        );
    }
    assert!(!slow.acked.is_empty(), "sends get through the slow link");
    // Read back over a fast link again: a thousand reads at 100 ms each would only be slow.
    proxy.set_delay(Duration::ZERO);
    for (task_id, state) in fast.acked.iter().chain(&slow.acked) {
        assert_eq!(state, "TASK_STATE_COMPLETED");
        let task = server.call("GetTask", json!({"id": task_id})).await;
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    }
    assert!(
        slow_rate < fast_rate,
        "a slower link, fewer sends a second: {slow_rate:.1} against {fast_rate:.1}"
    );
    eprintln!(
        "FIGURES slow database link ({} ms each way, {SENDERS} senders, {} s a phase): \
         {fast_rate:.1} sends/s direct, {slow_rate:.1} sends/s slowed ({:.2}×), 0 errors, \
         slowest send {} ms direct and {} ms slowed",
        DELAY.as_millis(),
        PHASE.as_secs(),
        slow_rate / fast_rate,
        fast.slowest.as_millis(),
        slow.slowest.as_millis(),
    );
    drop(server);
    drop(proxy);
    database.finish().await;
}
