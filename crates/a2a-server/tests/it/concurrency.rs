//! Many clients racing follow-ups and cancels on one task (a per-task lock serialises them):
//! the stored history and final state must be consistent.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{send_params, serve};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_follow_ups_cancels_and_updates_of_one_task_never_interleave() {
    let server = serve(|context, updater| async move {
        if context.task.is_none() {
            return Ok(updater.require_input("ready").await?);
        }
        let text = context.text();
        updater.working(format!("working on {text}")).await?;
        tokio::time::sleep(Duration::from_millis(u64::from(text.len() as u8 % 7))).await;
        updater
            .add_artifact(a2a_types::Artifact::from_text(text.clone()).with_id(format!("a-{text}")))
            .await?;
        updater.require_input(format!("done with {text}")).await?;
        Ok(())
    })
    .await;
    let server = Arc::new(server);
    let first = server
        .call("SendMessage", send_params("start", json!({})))
        .await;
    let task_id = first["task"]["id"].as_str().unwrap().to_owned();

    let mut clients = Vec::new();
    for client in 0..16 {
        let server = Arc::clone(&server);
        let task_id = task_id.clone();
        clients.push(tokio::spawn(async move {
            let mut accepted = Vec::new();
            let mut refused = Vec::new();
            for round in 0..6 {
                if client == 7 && round == 3 {
                    let _ = server.jsonrpc("CancelTask", json!({"id": task_id})).await;
                    continue;
                }
                let text = format!("c{client}r{round}");
                let response = server
                    .jsonrpc(
                        "SendMessage",
                        send_params(&text, json!({"taskId": task_id})),
                    )
                    .await;
                match response.get("error") {
                    None => accepted.push(text),
                    Some(error) => {
                        // Busy or finished: UnsupportedOperation, nothing else.
                        assert_eq!(error["code"], -32004, "{response}");
                        refused.push(text);
                    }
                }
            }
            (accepted, refused)
        }));
    }
    let mut accepted = Vec::new();
    let mut refused = Vec::new();
    for client in clients {
        let (a, r) = client.await.unwrap();
        accepted.extend(a);
        refused.extend(r);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let task: Value = server.call("GetTask", json!({"id": task_id})).await;
    let state = task["status"]["state"].as_str().unwrap();
    assert_eq!(
        state, "TASK_STATE_CANCELED",
        "the cancel lands whatever else happens"
    );
    let history: Vec<(String, String)> = task["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            (
                message["role"].as_str().unwrap().to_owned(),
                message["parts"][0]["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let user_texts: Vec<&str> = history
        .iter()
        .filter(|(role, _)| role == "ROLE_USER")
        .map(|(_, text)| text.as_str())
        .collect();
    for text in &accepted {
        assert_eq!(
            user_texts.iter().filter(|t| **t == text).count(),
            1,
            "{text} stored once"
        );
    }
    for text in &refused {
        assert!(
            !user_texts.contains(&text.as_str()),
            "refused {text} must not be stored"
        );
    }
    // Turns never interleave: each accepted message is followed by its own turn's messages.
    for (index, (role, text)) in history.iter().enumerate().skip(2) {
        if role != "ROLE_USER" {
            continue;
        }
        let rest: Vec<&str> = history[index + 1..]
            .iter()
            .take(2)
            .map(|(_, t)| t.as_str())
            .collect();
        let expected = [format!("working on {text}"), format!("done with {text}")];
        let complete = rest == [expected[0].as_str(), expected[1].as_str()];
        let cut_by_cancel = index + 1 + rest.len() == history.len();
        assert!(
            complete || cut_by_cancel,
            "turn of {text} interleaved: {rest:?}"
        );
    }
    assert!(!accepted.is_empty(), "some follow-ups must get through");
}
