//! One agent served by two instances over one PostgreSQL database (issue 6): live events,
//! follow-ups and cancels cross instances; a dead instance's task fails once its lease
//! expires; a dropped stream resumes on the other instance with nothing lost or repeated.
//! The executor keeps no state across turns, so either instance serves the next one; an
//! instance whose task the other finished drops its update and aborts the turn.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test file

use std::time::Duration;

use a2a_e2e::{Cluster, Event, Instance, LEASE_TTL, Sse, eventually, send};
use a2a_server::executor::LOST_TURN_MESSAGE;
use serde_json::{Value, json};

fn summaries(events: &[Event]) -> Vec<String> {
    events.iter().map(Event::summary).collect()
}

async fn state(instance: &Instance, task_id: &str) -> String {
    let task = instance.call("GetTask", json!({"id": task_id})).await;
    task["status"]["state"].as_str().unwrap().to_owned()
}

/// Starts a `slow` turn on `a` with SendMessage(returnImmediately) and returns its task id
/// once its first artifact is stored.
async fn slow_task(a: &Instance) -> String {
    let mut params = send("slow", None);
    params["configuration"] = json!({"returnImmediately": true});
    let task = a.call("SendMessage", params).await;
    let task_id = task["task"]["id"].as_str().unwrap().to_owned();
    let stored = eventually(Duration::from_secs(10), || async {
        let task = a.call("GetTask", json!({"id": task_id})).await;
        (task["artifacts"].as_array().map_or(0, Vec::len) == 1).then_some(())
    })
    .await;
    assert!(stored.is_some(), "the slow turn reached its first artifact");
    task_id
}

/// An `ask` task made on `a`, waiting for input; its id.
async fn waiting_task(a: &Instance) -> String {
    let asked = a.call("SendMessage", send("ask", None)).await;
    assert_eq!(
        asked["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    asked["task"]["id"].as_str().unwrap().to_owned()
}

/// A SubscribeToTask stream on `instance` whose first event, the snapshot, shows the task
/// working.
async fn working_subscriber(instance: &Instance, task_id: &str) -> Sse {
    let mut stream = instance
        .stream("SubscribeToTask", json!({"id": task_id}), None)
        .await;
    assert_eq!(
        stream.next().await.unwrap().summary(),
        "task:TASK_STATE_WORKING"
    );
    stream
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_on_b_sees_the_turn_running_on_a() {
    let Some(cluster) = Cluster::start().await else {
        return;
    };
    let Cluster { agent, a, b, .. } = cluster;
    let task_id = slow_task(&a).await;

    let mut on_b = b
        .stream("SubscribeToTask", json!({"id": task_id}), None)
        .await;
    let snapshot = on_b.next().await.unwrap();
    assert_eq!(snapshot.summary(), "task:TASK_STATE_WORKING");
    agent.open();
    let rest = on_b.rest().await;
    assert_eq!(
        summaries(&rest),
        ["artifact:part 2", "status:TASK_STATE_COMPLETED"]
    );
    let ids: Vec<u64> = std::iter::once(&snapshot)
        .chain(&rest)
        .map(|event| event.id.unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "{ids:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribers_on_b_stay_open_across_input_required_until_a_follow_up_on_a_ends_the_task() {
    let Some(cluster) = Cluster::start().await else {
        return;
    };
    let Cluster { a, b, .. } = cluster;
    let task_id = &waiting_task(&a).await;
    let mut jsonrpc = b
        .stream("SubscribeToTask", json!({"id": task_id}), None)
        .await;
    let mut rest = b.rest_subscribe(task_id).await;
    for stream in [&mut jsonrpc, &mut rest] {
        let snapshot = stream.next().await.unwrap();
        assert_eq!(snapshot.summary(), "task:TASK_STATE_INPUT_REQUIRED");
    }
    // No turn runs anywhere now; the follow-up's turn runs on a, and b's streams hear of it
    // through the store.
    let answered = a.call("SendMessage", send("blue", Some(task_id))).await;
    assert_eq!(answered["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    for stream in [&mut jsonrpc, &mut rest] {
        let events = summaries(&stream.rest().await);
        assert_eq!(
            events.last().map(String::as_str),
            Some("status:TASK_STATE_COMPLETED"),
            "{events:?}"
        );
        assert!(
            events.contains(&"artifact:answer: blue".to_owned()),
            "{events:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follow_up_on_b_continues_a_task_created_on_a() {
    let Some(cluster) = Cluster::start().await else {
        return;
    };
    let Cluster { a, b, .. } = cluster;
    let task_id = &waiting_task(&a).await;

    let answered = b.call("SendMessage", send("blue", Some(task_id))).await;
    assert_eq!(answered["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        answered["task"]["artifacts"][0]["parts"][0]["text"],
        "answer: blue"
    );
    let on_a = a.call("GetTask", json!({"id": task_id})).await;
    assert_eq!(on_a["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(on_a["history"].as_array().unwrap().len(), 3, "{on_a}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_on_b_stops_the_turn_running_on_a() {
    let Some(cluster) = Cluster::start().await else {
        return;
    };
    let Cluster { agent, a, b, .. } = cluster;
    let task_id = slow_task(&a).await;
    let mut watcher = working_subscriber(&a, &task_id).await;

    let canceled = b.call("CancelTask", json!({"id": task_id})).await;
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
    let stopped = eventually(Duration::from_secs(5), || async {
        (agent.canceled() == 1).then_some(())
    })
    .await;
    assert!(stopped.is_some(), "A's executor saw its cancellation");
    // A's own subscriber learns of the cancel made on B, and its stream ends there.
    assert_eq!(
        summaries(&watcher.rest().await),
        ["status:TASK_STATE_CANCELED"]
    );
    assert_eq!(state(&a, &task_id).await, "TASK_STATE_CANCELED");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_a_dies_mid_turn_its_task_fails_once_the_lease_expires() {
    let Some(cluster) = Cluster::start().await else {
        return;
    };
    let Cluster { a, b, .. } = cluster;
    let task_id = slow_task(&a).await;
    let mut on_b = working_subscriber(&b, &task_id).await;

    a.kill();
    // Still WORKING while the lease lives; FAILED by B soon after it expired.
    assert_eq!(state(&b, &task_id).await, "TASK_STATE_WORKING");
    let failed = eventually(LEASE_TTL * 4, || async {
        let task = b.call("GetTask", json!({"id": task_id})).await;
        (task["status"]["state"] == "TASK_STATE_FAILED").then_some(task)
    })
    .await
    .expect("B failed the task after A's lease expired");
    assert_eq!(
        failed["status"]["message"]["parts"][0]["text"],
        LOST_TURN_MESSAGE
    );
    assert_eq!(summaries(&on_b.rest().await), ["status:TASK_STATE_FAILED"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_dropped_on_a_resumes_on_b_with_the_same_events() {
    let Some(cluster) = Cluster::start().await else {
        return;
    };
    let Cluster { agent, a, b, .. } = cluster;

    let mut first = a
        .stream("SendStreamingMessage", send("slow", None), None)
        .await;
    let head = first.next().await.unwrap();
    let task_id = head.result["task"]["id"].as_str().unwrap().to_owned();
    // An uninterrupted subscriber, on A, from the start.
    let mut reference = a
        .stream("SubscribeToTask", json!({"id": task_id}), None)
        .await;
    let mut seen = vec![head];
    while seen.len() < 3 {
        seen.push(first.next().await.unwrap());
    }
    drop(first);
    let last_seen = seen.last().unwrap().id.unwrap();

    agent.open();
    let mut resumed = b
        .stream("SubscribeToTask", json!({"id": task_id}), Some(last_seen))
        .await;
    let after: Vec<Event> = resumed.rest().await;
    let reference: Vec<Event> = reference.rest().await;
    let reference_after: Vec<&Event> = reference
        .iter()
        .filter(|event| event.id.is_some_and(|id| id > last_seen))
        .collect();
    assert_eq!(
        after.iter().collect::<Vec<_>>(),
        reference_after,
        "the resumed stream equals what an uninterrupted subscriber received"
    );
    let whole: Vec<u64> = seen.iter().chain(&after).map(|e| e.id.unwrap()).collect();
    assert_eq!(whole, (1..=whole.len() as u64).collect::<Vec<_>>());
    assert_eq!(
        summaries(&after),
        ["artifact:part 2", "status:TASK_STATE_COMPLETED"]
    );
    let _: Value = b.call("GetTask", json!({"id": task_id})).await;
}
