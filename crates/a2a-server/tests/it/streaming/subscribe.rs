//! SubscribeToTask: the snapshot first, then the rest of the running turn; several streams
//! per task; tasks waiting, finished or unknown (spec §2.6, §8.4).

use a2a_server::ServerConfig;
use serde_json::{Value, json};

use super::gated::{Step, artifact, gated};
use super::{
    BOTH, Binding, Block, Gate, Sse, client, kind, scripted, serve_streaming, state, stream_params,
};
use crate::support::send_params;

/// What a stream showed after its snapshot: each event's id, kind and state or text.
fn summary(binding: Binding, events: &[Block]) -> Vec<(Option<u64>, String, String)> {
    events
        .iter()
        .map(|block| {
            let payload = binding.payload(block);
            let kind = kind(&payload).to_owned();
            let detail = match kind.as_str() {
                "artifactUpdate" => payload[&kind]["artifact"]["parts"][0]["text"].to_string(),
                _ => state(&payload).to_owned(),
            };
            (block.id, kind, detail)
        })
        .collect()
}

/// A task id and a REST subscription by GET (GET and POST are both routed).
async fn rest_subscribe_by_get(server: &crate::support::TestServer, task_id: &str) -> Sse {
    let response = client()
        .get(server.url(&format!("/rest/tasks/{task_id}:subscribe")))
        .header("A2A-Version", "1.0")
        .header("Accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    Sse::open(response)
}

/// One subscription to `task_id` each way: JSON-RPC, HTTP+JSON by POST and by GET.
async fn every_subscription(
    server: &crate::support::TestServer,
    task_id: &str,
) -> Vec<(Binding, Sse)> {
    vec![
        (
            Binding::JsonRpc,
            Sse::open(Binding::JsonRpc.subscribe(server, task_id).await),
        ),
        (
            Binding::Rest,
            Sse::open(Binding::Rest.subscribe(server, task_id).await),
        ),
        (Binding::Rest, rest_subscribe_by_get(server, task_id).await),
    ]
}

#[tokio::test]
async fn several_subscribers_see_the_same_events_in_the_same_order() {
    let gate = Gate::new();
    let steps = [
        Step::Pass,
        artifact("one"),
        artifact("two"),
        artifact("three"),
    ];
    let server = serve_streaming(ServerConfig::default(), gated(&gate, steps)).await;
    let mut origin = Sse::open(
        Binding::JsonRpc
            .send_stream(&server, stream_params("go"))
            .await,
    );
    let task = Binding::JsonRpc.payload(&origin.next_event().await.unwrap());
    let task_id = task["task"]["id"].as_str().unwrap().to_owned();
    let working = origin.next_event().await.unwrap();
    assert_eq!(
        state(&Binding::JsonRpc.payload(&working)),
        "TASK_STATE_WORKING"
    );

    let mut subscribers = every_subscription(&server, &task_id).await;
    for (binding, sse) in &mut subscribers {
        let snapshot = binding.payload(&sse.next_event().await.unwrap());
        assert_eq!(kind(&snapshot), "task");
        assert_eq!(snapshot["task"]["id"], task_id.as_str());
        assert_eq!(state(&snapshot), "TASK_STATE_WORKING");
    }
    gate.open(1);

    let expected = summary(Binding::JsonRpc, &origin.rest().await);
    let kinds: Vec<&str> = expected.iter().map(|(_, kind, _)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "artifactUpdate",
            "artifactUpdate",
            "artifactUpdate",
            "statusUpdate"
        ]
    );
    for (binding, sse) in &mut subscribers {
        assert_eq!(
            summary(*binding, &sse.rest().await),
            expected,
            "{binding:?}"
        );
    }
}

#[tokio::test]
async fn resubscribing_mid_turn_gives_the_snapshot_then_the_remaining_events() {
    let gate = Gate::new();
    let steps = [artifact("first"), Step::Pass, artifact("second")];
    let server = serve_streaming(ServerConfig::default(), gated(&gate, steps)).await;
    for binding in BOTH {
        let mut dropped = Sse::open(binding.send_stream(&server, stream_params("go")).await);
        let mut seen = Vec::new();
        for _ in 0..3 {
            seen.push(dropped.next_event().await.unwrap());
        }
        let task_id = binding.payload(&seen[0])["task"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        drop(dropped);

        let mut sse = Sse::open(binding.subscribe(&server, &task_id).await);
        let snapshot = sse.next_event().await.unwrap();
        assert_eq!(
            snapshot.id, seen[2].id,
            "a snapshot carries the id of the last event it reflects, so a resume after it \
             misses nothing"
        );
        let snapshot = binding.payload(&snapshot);
        assert_eq!(state(&snapshot), "TASK_STATE_WORKING");
        assert_eq!(
            snapshot["task"]["artifacts"][0]["parts"][0]["text"],
            "first"
        );
        gate.open(1);
        let rest = sse.rest().await;
        let remaining = summary(binding, &rest);
        let kinds: Vec<&str> = remaining.iter().map(|(_, kind, _)| kind.as_str()).collect();
        assert_eq!(kinds, ["artifactUpdate", "statusUpdate"], "{binding:?}");
        assert_eq!(remaining[0].2, "\"second\"");
        assert_eq!(remaining[1].2, "TASK_STATE_COMPLETED");
        // The sequence goes on from where the first stream left it.
        let last_seen = seen.last().unwrap().id.unwrap();
        assert!(
            remaining[0].0.unwrap() > last_seen,
            "{remaining:?} after {last_seen}"
        );
        assert!(remaining[1].0.unwrap() > remaining[0].0.unwrap());
    }
}

/// A task waiting for input, made with a unary SendMessage.
async fn waiting_task(server: &crate::support::TestServer) -> String {
    let task = server
        .call("SendMessage", send_params("ask", json!({})))
        .await;
    assert_eq!(task["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    task["task"]["id"].as_str().unwrap().to_owned()
}

/// A follow-up message to `task_id`, answered when its turn ends.
async fn follow_up(server: &crate::support::TestServer, task_id: &str, text: &str) -> Value {
    server
        .call("SendMessage", send_params(text, json!({"taskId": task_id})))
        .await
}

#[tokio::test]
async fn a_subscription_stays_open_across_input_required_until_the_task_is_terminal() {
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    for (binding, by_get) in [
        (Binding::JsonRpc, false),
        (Binding::Rest, false),
        (Binding::Rest, true),
    ] {
        let task_id = waiting_task(&server).await;
        let mut sse = if by_get {
            rest_subscribe_by_get(&server, &task_id).await
        } else {
            Sse::open(binding.subscribe(&server, &task_id).await)
        };
        let snapshot = binding.payload(&sse.next_event().await.unwrap());
        assert_eq!(kind(&snapshot), "task", "{binding:?}");
        assert_eq!(state(&snapshot), "TASK_STATE_INPUT_REQUIRED");
        // Another request answers; its turn asks again, and the stream goes on.
        let asked = follow_up(&server, &task_id, "ask").await;
        assert_eq!(
            asked["task"]["status"]["state"],
            "TASK_STATE_INPUT_REQUIRED"
        );
        let event = binding.payload(&sse.next_event().await.unwrap());
        assert_eq!(kind(&event), "statusUpdate", "{binding:?}: {event}");
        assert_eq!(state(&event), "TASK_STATE_INPUT_REQUIRED");
        // A third request finishes it: the stream shows that turn and ends with its status.
        let done = follow_up(&server, &task_id, "finish").await;
        assert_eq!(done["task"]["status"]["state"], "TASK_STATE_COMPLETED");
        let rest = summary(binding, &sse.rest().await);
        let shape: Vec<(&str, &str)> = rest
            .iter()
            .map(|(_, kind, detail)| (kind.as_str(), detail.as_str()))
            .collect();
        assert_eq!(
            shape,
            [
                ("statusUpdate", "TASK_STATE_WORKING"),
                ("artifactUpdate", "\"finish\""),
                ("statusUpdate", "TASK_STATE_COMPLETED"),
            ],
            "{binding:?} (GET: {by_get})"
        );
        let ids: Vec<u64> = rest.iter().map(|(id, ..)| id.unwrap()).collect();
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");
    }
}

#[tokio::test]
async fn a_subscription_ends_when_the_waiting_task_is_canceled() {
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    for binding in BOTH {
        let task_id = waiting_task(&server).await;
        let mut sse = Sse::open(binding.subscribe(&server, &task_id).await);
        let snapshot = binding.payload(&sse.next_event().await.unwrap());
        assert_eq!(state(&snapshot), "TASK_STATE_INPUT_REQUIRED");
        let canceled = server.call("CancelTask", json!({"id": task_id})).await;
        assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
        let rest = summary(binding, &sse.rest().await);
        assert_eq!(rest.len(), 1, "{binding:?}: {rest:?}");
        assert_eq!(rest[0].2, "TASK_STATE_CANCELED");
    }
}

#[tokio::test]
async fn a_resumed_subscription_replays_past_input_required_and_stays_open() {
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    let task_id = waiting_task(&server).await;
    follow_up(&server, &task_id, "ask").await;
    let mut streams = Vec::new();
    for binding in BOTH {
        // From the start of the log: the replay runs past the first INPUT_REQUIRED.
        let mut sse = resume(&server, binding, &task_id, 0).await;
        let mut seen = Vec::new();
        while seen
            .iter()
            .filter(|(_, _, detail): &&(Option<u64>, String, String)| {
                detail == "TASK_STATE_INPUT_REQUIRED"
            })
            .count()
            < 2
        {
            seen.extend(summary(binding, &[sse.next_event().await.unwrap()]));
        }
        streams.push((binding, sse));
    }
    // Still open: the next turn's events arrive on both, and COMPLETED ends them.
    follow_up(&server, &task_id, "finish").await;
    for (binding, mut sse) in streams {
        let rest = summary(binding, &sse.rest().await);
        assert_eq!(
            rest.last().map(|(_, _, detail)| detail.as_str()),
            Some("TASK_STATE_COMPLETED"),
            "{binding:?}: {rest:?}"
        );
        assert!(
            rest.iter().any(|(_, kind, _)| kind == "artifactUpdate"),
            "{rest:?}"
        );
    }
}

#[tokio::test]
async fn with_subscribe_ends_on_interrupt_a_waiting_task_gives_its_snapshot_only() {
    let mut config = ServerConfig::default();
    config.subscribe_ends_on_interrupt = true;
    let server = serve_streaming(config, scripted).await;
    let task_id = waiting_task(&server).await;
    let streams = every_subscription(&server, &task_id).await;
    for (binding, mut sse) in streams {
        let events = sse.rest().await;
        assert_eq!(events.len(), 1, "{binding:?}: {events:?}");
        let snapshot: Value = binding.payload(&events[0]);
        assert_eq!(kind(&snapshot), "task");
        assert_eq!(state(&snapshot), "TASK_STATE_INPUT_REQUIRED");
        assert_eq!(
            snapshot["task"]["status"]["message"]["parts"][0]["text"],
            "what else?"
        );
    }
}

#[tokio::test]
async fn subscribing_to_a_terminal_task_is_unsupported() {
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    let task = server
        .call("SendMessage", send_params("done", json!({})))
        .await;
    assert_eq!(task["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let task_id = task["task"]["id"].as_str().unwrap();
    for binding in BOTH {
        let response = binding.subscribe(&server, task_id).await;
        let reason = binding.plain_error(response, 400).await;
        assert_eq!(reason, "UNSUPPORTED_OPERATION", "{binding:?}");
    }
}

#[tokio::test]
async fn subscribing_to_an_unknown_task_is_task_not_found() {
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    for binding in BOTH {
        let response = binding.subscribe(&server, "no-such-task").await;
        assert_eq!(binding.plain_error(response, 404).await, "TASK_NOT_FOUND");
    }
}

/// SubscribeToTask with `Last-Event-ID: after`.
async fn resume(
    server: &crate::support::TestServer,
    binding: Binding,
    task_id: &str,
    after: u64,
) -> Sse {
    let request = match binding {
        Binding::JsonRpc => client().post(server.url("/a2a")).json(&json!({
            "jsonrpc": "2.0", "id": 7, "method": "SubscribeToTask", "params": {"id": task_id}
        })),
        Binding::Rest => client()
            .post(server.url(&format!("/rest/tasks/{task_id}:subscribe")))
            .header("Content-Type", "application/a2a+json")
            .body("{}"),
    };
    let response = request
        .header("A2A-Version", "1.0")
        .header("Accept", "text/event-stream")
        .header("Last-Event-ID", after.to_string())
        .send()
        .await
        .unwrap();
    Sse::open(response)
}

#[tokio::test]
async fn a_stream_resumed_with_last_event_id_misses_nothing_and_repeats_nothing() {
    let gate = Gate::new();
    let steps = [
        artifact("first"),
        Step::Pass,
        artifact("second"),
        Step::Pass,
        artifact("third"),
    ];
    let server = serve_streaming(ServerConfig::default(), gated(&gate, steps)).await;
    for binding in BOTH {
        // A reference subscriber that stays connected throughout.
        let mut first = Sse::open(binding.send_stream(&server, stream_params("go")).await);
        let head = first.next_event().await.unwrap();
        let task_id = binding.payload(&head)["task"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let mut reference = Sse::open(binding.subscribe(&server, &task_id).await);
        let mut seen = vec![head];
        for _ in 0..2 {
            seen.push(first.next_event().await.unwrap());
        }
        // The client drops after three events; the agent goes on meanwhile.
        drop(first);
        let dropped_at = seen.last().unwrap().id.unwrap();
        gate.open(1);
        loop {
            let task = server.call("GetTask", json!({"id": task_id})).await;
            if task["artifacts"].as_array().is_some_and(|a| a.len() == 2) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let mut resumed = resume(&server, binding, &task_id, dropped_at).await;
        let missed = resumed.next_event().await.unwrap();
        gate.open(1);
        let mut after_drop = vec![missed];
        after_drop.extend(resumed.rest().await);

        let whole: Vec<_> = seen.iter().chain(&after_drop).cloned().collect();
        let ids: Vec<u64> = whole.iter().map(|block| block.id.unwrap()).collect();
        let expected: Vec<u64> = (1..=ids.len() as u64).collect();
        assert_eq!(ids, expected, "{binding:?}: one gapless sequence");
        let rest = summary(binding, &after_drop);
        let details: Vec<&str> = rest.iter().map(|(_, _, detail)| detail.as_str()).collect();
        assert_eq!(
            details,
            ["\"second\"", "\"third\"", "TASK_STATE_COMPLETED"],
            "{binding:?}"
        );
        // The reference saw the snapshot, then exactly the events the resumed client saw.
        let reference_events = reference.rest().await;
        let tail: Vec<_> = summary(binding, &reference_events[1..])
            .into_iter()
            .filter(|(id, _, _)| id.unwrap() > dropped_at)
            .collect();
        assert_eq!(tail, rest, "{binding:?}");
    }
}

#[tokio::test]
async fn resuming_a_finished_task_gives_its_outcome_and_ends() {
    // The in-memory store compacts a finished task's log to its final status (see
    // `InMemoryTaskStoreConfig::keep_finished_event_logs`); durable stores replay it whole.
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    for binding in BOTH {
        let mut stream = Sse::open(binding.send_stream(&server, stream_params("go")).await);
        let events = stream.rest().await;
        let task_id = binding.payload(&events[0])["task"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let mut resumed = resume(&server, binding, &task_id, 1).await;
        let replay = resumed.rest().await;
        assert_eq!(
            summary(binding, &replay),
            summary(binding, &events[events.len() - 1..]),
            "{binding:?}"
        );
        let mut nothing = resume(&server, binding, &task_id, events.len() as u64).await;
        assert!(nothing.rest().await.is_empty(), "{binding:?}");
    }
}
