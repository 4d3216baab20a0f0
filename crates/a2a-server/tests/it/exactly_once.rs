//! Exactly-once SendMessage over a real socket: a send repeated by the same caller (same
//! `Idempotency-Key`, else the same message id, with the same message) is answered with the
//! first send's task, marked `metadata.duplicate_send`, and runs no second turn.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_types::{Artifact, Message, Part, Role};
use serde_json::{Value, json};

use a2a_server::A2aServer;

use crate::support::{FnExecutor, TestServer, standard_card, uuid};

/// A server whose agent counts its turns: `ask` asks for input, `reply` answers with a
/// message, anything else completes with an artifact echoing the text.
async fn counting_server() -> (TestServer, Arc<AtomicUsize>) {
    let turns = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&turns);
    let mut card = standard_card();
    card.capabilities.streaming = Some(true);
    let executor = FnExecutor(
        move |context: a2a_server::RequestContext, updater: a2a_server::TaskUpdater| {
            let turns = Arc::clone(&counted);
            async move {
                turns.fetch_add(1, Ordering::SeqCst);
                match context.text().as_str() {
                    "ask" => updater.require_input("what else?").await?,
                    "reply" => {
                        updater
                            .reply(Message::new(Role::Agent, vec![Part::text("hello")]))
                            .await?;
                    }
                    text => {
                        updater.add_artifact(Artifact::from_text(text)).await?;
                        updater.complete(()).await?;
                    }
                }
                Ok(())
            }
        },
    );
    let server = TestServer::start_with(A2aServer::builder(card, executor)).await;
    (server, turns)
}

fn message(id: &str, text: &str) -> Value {
    json!({"messageId": id, "role": "ROLE_USER", "parts": [{"text": text}]})
}

/// A JSON-RPC SendMessage with extra headers; the whole response.
async fn send(server: &TestServer, message: Value, headers: &[(&str, &str)]) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": message}});
    let mut all = vec![("A2A-Version", "1.0"), ("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    server
        .send(
            reqwest::Method::POST,
            "/a2a",
            &all,
            Some(serde_json::to_vec(&body).unwrap()),
        )
        .await
        .json()
}

fn task(response: &Value) -> &Value {
    let task = &response["result"]["task"];
    assert!(task.is_object(), "a task: {response}");
    task
}

#[tokio::test]
async fn a_repeated_send_is_answered_with_the_first_task_and_runs_no_second_turn() {
    let (server, turns) = counting_server().await;
    let id = uuid();
    let first = send(&server, message(&id, "hi"), &[]).await;
    let again = send(&server, message(&id, "hi"), &[]).await;
    assert_eq!(task(&again)["id"], task(&first)["id"]);
    assert_eq!(task(&again)["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task(&again)["metadata"]["duplicate_send"], true, "{again}");
    assert!(
        task(&first)["metadata"]["duplicate_send"].is_null(),
        "{first}"
    );
    assert_eq!(turns.load(Ordering::SeqCst), 1, "one turn ran");
    let stored = server
        .call("GetTask", json!({"id": task(&first)["id"]}))
        .await;
    assert_eq!(
        stored["history"].as_array().map(Vec::len),
        Some(1),
        "{stored}"
    );
    assert_eq!(
        stored["artifacts"].as_array().map(Vec::len),
        Some(1),
        "{stored}"
    );
}

#[tokio::test]
async fn the_same_message_id_with_another_message_is_invalid_params() {
    let (server, turns) = counting_server().await;
    let id = uuid();
    task(&send(&server, message(&id, "hi"), &[]).await);
    let clash = send(&server, message(&id, "bye"), &[]).await;
    assert_eq!(clash["error"]["code"], -32602, "{clash}");
    let text = clash["error"]["message"].as_str().unwrap_or_default();
    assert!(
        text.contains("already sent with another message"),
        "{clash}"
    );
    assert_eq!(turns.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_idempotency_key_header_is_the_key_instead_of_the_message_id() {
    let (server, turns) = counting_server().await;
    let key = [("Idempotency-Key", "order-42")];
    let first = send(&server, message(&uuid(), "hi"), &key).await;
    // A retry under the same key may carry a new message id.
    let retry = send(&server, message(&uuid(), "hi"), &key).await;
    assert_eq!(task(&retry)["id"], task(&first)["id"]);
    assert_eq!(task(&retry)["metadata"]["duplicate_send"], true);
    // The key, not the message id, names the send: the same id under another key is new.
    let id = uuid();
    let one = send(&server, message(&id, "hi"), &[("Idempotency-Key", "a")]).await;
    let two = send(&server, message(&id, "hi"), &[("Idempotency-Key", "b")]).await;
    assert_ne!(task(&one)["id"], task(&two)["id"]);
    assert_eq!(turns.load(Ordering::SeqCst), 3);
    let clash = send(&server, message(&uuid(), "bye"), &key).await;
    assert_eq!(clash["error"]["code"], -32602, "{clash}");
}

#[tokio::test]
async fn a_repeated_follow_up_appends_its_message_once() {
    let (server, turns) = counting_server().await;
    let asked = send(&server, message(&uuid(), "ask"), &[]).await;
    let task_id = task(&asked)["id"].clone();
    let mut follow_up = message(&uuid(), "done");
    follow_up["taskId"] = task_id.clone();
    let first = send(&server, follow_up.clone(), &[]).await;
    assert_eq!(task(&first)["status"]["state"], "TASK_STATE_COMPLETED");
    let again = send(&server, follow_up, &[]).await;
    assert_eq!(task(&again)["id"], task_id);
    assert_eq!(task(&again)["metadata"]["duplicate_send"], true);
    assert_eq!(turns.load(Ordering::SeqCst), 2, "the ask and the follow-up");
    assert_eq!(task(&again)["history"], task(&first)["history"]);
}

#[tokio::test]
async fn a_send_answered_with_a_message_keeps_nothing_so_its_retry_runs_again() {
    let (server, turns) = counting_server().await;
    let id = uuid();
    for _ in 0..2 {
        let answer = send(&server, message(&id, "reply"), &[]).await;
        assert_eq!(answer["result"]["message"]["parts"][0]["text"], "hello");
    }
    assert_eq!(turns.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_repeated_streaming_send_streams_the_first_task_alone() {
    let (server, turns) = counting_server().await;
    let id = uuid();
    task(&send(&server, message(&id, "hi"), &[]).await);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
        "params": {"message": message(&id, "hi")}});
    let response = server
        .send(
            reqwest::Method::POST,
            "/a2a",
            &[
                ("A2A-Version", "1.0"),
                ("Content-Type", "application/json"),
                ("Accept", "text/event-stream"),
            ],
            Some(serde_json::to_vec(&body).unwrap()),
        )
        .await;
    let text = String::from_utf8_lossy(&response.body).into_owned();
    let events: Vec<Value> = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect();
    assert_eq!(events.len(), 1, "{text}");
    assert_eq!(
        events[0]["result"]["task"]["metadata"]["duplicate_send"],
        true
    );
    assert_eq!(turns.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn over_http_json_a_clash_is_400() {
    let (server, _turns) = counting_server().await;
    let id = uuid();
    let post = |text: &str| {
        let body = json!({"message": message(&id, text)});
        server.send(
            reqwest::Method::POST,
            "/rest/message:send",
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
            Some(serde_json::to_vec(&body).unwrap()),
        )
    };
    assert_eq!(post("hi").await.status, 200);
    let repeated = post("hi").await;
    assert_eq!(repeated.status, 200);
    assert_eq!(repeated.json()["task"]["metadata"]["duplicate_send"], true);
    assert_eq!(post("bye").await.status, 400);
}
