//! PostgreSQL gone under load: 16 senders keep `a2a serve` busy while a proxy of ours
//! between it and the database drops every connection and refuses new ones for a few
//! seconds, as a database restart does. While the database is gone the server says it is
//! not ready and answers each send with an A2A error at once (no hang, no bodiless 500);
//! once it is back the server reconnects by itself, `/readyz` turns ready, and every task
//! a sender saw acknowledged is there, as it was acknowledged.

use std::time::{Duration, Instant};

use a2a_test_support::fault_proxy::FaultProxy;
use serde_json::json;

use crate::database::Database;
use crate::load::{Load, Tally};
use crate::support::{Server, eventually};

const SENDERS: usize = 16;
/// `--store-connect-timeout`: how long a call waits for a database connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
const OUTAGE: Duration = Duration::from_secs(5);
/// The JSON-RPC code of Unavailable: the store cannot take the call for now.
pub const UNAVAILABLE: i64 = -32000;

/// The status `/readyz` answers.
pub async fn readiness(http: &reqwest::Client, server: &str) -> Option<u16> {
    let response = http.get(format!("{server}/readyz")).send().await.ok()?;
    Some(response.status().as_u16())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_restart_under_16_senders_loses_no_acknowledged_task() {
    let _one = crate::one_at_a_time().await;
    let Some(database) = Database::create("faults_pg_outage").await else {
        return;
    };
    let proxy = FaultProxy::start(database.addr).await.unwrap();
    let store = database.url_via(proxy.addr());
    let server = Server::start(&[
        "--store",
        &store,
        "--store-connect-timeout",
        "2s",
        "--log-level",
        "warn",
    ]);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    assert_eq!(readiness(&http, &server.url).await, Some(200));

    // Each call is given the connect timeout and a margin: longer is a hang.
    let limit = CONNECT_TIMEOUT + Duration::from_secs(8);
    let load = Load::start(&server.url, SENDERS, "outage", limit);
    tokio::time::sleep(Duration::from_secs(2)).await;

    let cut_at = load.elapsed();
    proxy.cut();
    let cut = Instant::now();
    let not_ready = eventually(Duration::from_secs(10), || async {
        (readiness(&http, &server.url).await == Some(503)).then(|| cut.elapsed())
    })
    .await
    .expect("/readyz says 503 while the database is gone");
    tokio::time::sleep(OUTAGE.saturating_sub(cut.elapsed())).await;
    assert_eq!(
        readiness(&http, &server.url).await,
        Some(503),
        "still not ready while the database is gone"
    );

    let restore_at = load.elapsed();
    proxy.restore();
    let restored = Instant::now();
    let ready_again = eventually(Duration::from_secs(20), || async {
        (readiness(&http, &server.url).await == Some(200)).then(|| restored.elapsed())
    })
    .await
    .unwrap_or_else(|| {
        panic!(
            "ready again after the database came back; log:\n{}",
            server.log()
        )
    });
    tokio::time::sleep(Duration::from_secs(3)).await;
    let calls = load.finish().await;

    let tally = Tally::of(&calls);
    assert!(
        tally.broken.is_empty(),
        "every call answered in time with a task or an A2A error; broken: {:?}",
        &tally.broken[..tally.broken.len().min(5)]
    );
    let during: Vec<_> = calls
        .iter()
        .filter(|call| call.at > cut_at + not_ready && call.at + call.took < restore_at)
        .collect();
    let during_tally = Tally::of(
        &during
            .iter()
            .map(|call| (*call).clone())
            .collect::<Vec<_>>(),
    );
    assert!(
        during_tally.refused_count() > 0,
        "calls made while the database was gone were refused"
    );
    assert_eq!(
        tally.refused.keys().copied().collect::<Vec<_>>(),
        [UNAVAILABLE],
        "a send the store cannot take is refused as Unavailable: {:?}",
        tally.refused
    );
    let first_ack_after = calls
        .iter()
        .filter(|call| call.at >= restore_at)
        .filter(|call| matches!(call.outcome, crate::load::Outcome::Acked { .. }))
        .map(|call| call.at + call.took - restore_at)
        .min()
        .expect("sends acknowledged again after the database came back");

    // Every acknowledged task is there, in the state it was acknowledged in.
    let mut found = 0;
    for (task_id, state) in &tally.acked {
        let task = server.call("GetTask", json!({"id": task_id})).await;
        assert_eq!(task["status"]["state"], state.as_str(), "{task}");
        found += 1;
    }
    let stored = database.count("SELECT count(*) FROM tasks").await;
    assert!(
        stored >= i64::try_from(tally.acked.len()).unwrap(),
        "{stored} tasks stored, {} acknowledged",
        tally.acked.len()
    );
    eprintln!(
        "FIGURES postgres outage ({SENDERS} senders, {} s outage): {} sends, {} acknowledged, \
         {found} found afterwards ({stored} stored), {} refused while the database was gone \
         (codes {:?}), slowest answer {} ms; /readyz 503 within {} ms of the cut, 200 again {} ms \
         after the database came back, first acknowledgement {} ms after; connections through \
         the proxy {}, refused by it {}",
        OUTAGE.as_secs(),
        calls.len(),
        tally.acked.len(),
        tally.refused_count(),
        tally
            .refused
            .iter()
            .map(|(code, (count, message))| format!("{code}×{count}: {message}"))
            .collect::<Vec<_>>(),
        tally.slowest.as_millis(),
        not_ready.as_millis(),
        ready_again.as_millis(),
        first_ack_after.as_millis(),
        proxy.accepted(),
        proxy.refused(),
    );
    drop(server);
    drop(proxy);
    database.finish().await;
}
