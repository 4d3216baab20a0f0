//! Exactly-once SendMessage across instances over one PostgreSQL database: retries of one
//! send racing on two instances make one task and one turn, and a retry after the instance
//! that acknowledged a send died is answered with the task it acknowledged.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test file

use std::sync::atomic::Ordering;

use a2a_e2e::{Cluster, send};
use futures::future::join_all;
use serde_json::{Value, json};

/// SendMessage params for `text` that answer at the first update.
fn returning_at_once(text: &str) -> Value {
    let mut params = send(text, None);
    params["configuration"] = json!({"returnImmediately": true});
    params
}

fn repeated(result: &Value) -> bool {
    result["task"]["metadata"]["duplicate_send"] == true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_racing_on_two_instances_make_one_task_and_one_turn() {
    let Some(cluster) = Cluster::start().await else {
        return;
    };
    let Cluster { agent, a, b, .. } = &cluster;
    const ROUNDS: usize = 10;
    const RETRIES: usize = 6;
    for round in 0..ROUNDS {
        let params = returning_at_once("slow");
        let calls = (0..RETRIES).map(|n| {
            let instance = if n % 2 == 0 { a } else { b };
            instance.call("SendMessage", params.clone())
        });
        let results = join_all(calls).await;
        let first_id = &results[0]["task"]["id"];
        assert!(first_id.is_string(), "round {round}: {}", results[0]);
        for result in &results {
            assert_eq!(&result["task"]["id"], first_id, "round {round}: one task");
        }
        let firsts = results.iter().filter(|result| !repeated(result)).count();
        assert_eq!(
            firsts, 1,
            "round {round}: one send ran, the others repeated it"
        );
    }
    assert_eq!(
        agent.started.load(Ordering::SeqCst),
        ROUNDS,
        "one turn per round, whichever instance won"
    );
    for _ in 0..ROUNDS {
        agent.open();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_the_acknowledging_instance_died_gets_the_task_it_acknowledged() {
    let Some(cluster) = Cluster::start().await else {
        return;
    };
    let Cluster {
        agent,
        a,
        b,
        database: _database,
    } = cluster;
    let echo = send("hello", None);
    let done = a.call("SendMessage", echo.clone()).await;
    assert_eq!(done["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let slow = returning_at_once("slow");
    let working = a.call("SendMessage", slow.clone()).await;
    assert_eq!(working["task"]["status"]["state"], "TASK_STATE_WORKING");
    // Dead as after kill -9: its runtime is dropped, nothing shuts down cleanly.
    a.kill();

    let retried = b.call("SendMessage", echo).await;
    assert_eq!(retried["task"]["id"], done["task"]["id"]);
    assert!(repeated(&retried), "{retried}");
    assert_eq!(
        retried["task"]["artifacts"][0]["parts"][0]["text"], "hello",
        "{retried}"
    );
    let retried = b.call("SendMessage", slow).await;
    assert_eq!(retried["task"]["id"], working["task"]["id"]);
    assert!(repeated(&retried), "{retried}");
    assert_eq!(
        agent.started.load(Ordering::SeqCst),
        1,
        "the retry started no second slow turn"
    );
    agent.open();
}
