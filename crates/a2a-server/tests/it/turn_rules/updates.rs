//! What the executor's updates put in the task: progress from helpers, intermediate
//! messages, status metadata, artifacts at completion; and how much history a read returns.

use a2a_server::executor::progress;
use a2a_server::{RequestContext, TaskUpdater};
use a2a_types::{Artifact, ArtifactChunk, Message, TaskState};
use serde_json::json;

use super::{history_texts, send_text, state};
use crate::support::{send_params, serve};

#[tokio::test]
async fn progress_helpers_report_through_the_current_turn() {
    let server = serve(|_context, _updater| async move {
        progress::emit("step 1").await.unwrap();
        progress::emit_artifact(Artifact::from_text("a"), ArtifactChunk::Whole)
            .await
            .unwrap();
        let outcome = progress::Scope::<std::io::Error>::named("fetch")
            .before("fetching")
            .on_error(|error| format!("fetch failed: {error}"))
            .run(async { Err::<(), _>(std::io::Error::other("timeout")) })
            .await;
        assert!(outcome.is_err(), "the original error propagates");
        progress::emit_state(TaskState::InputRequired, "what now?")
            .await
            .unwrap();
        Ok(())
    })
    .await;
    let result = send_text(&server, "x").await;
    let task = &result["task"];
    assert_eq!(state(task), "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(
        history_texts(task),
        [
            "x",
            "step 1",
            "fetching",
            "fetch failed: timeout",
            "what now?"
        ]
    );
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "a");
}

#[tokio::test]
async fn progress_outside_a_turn_does_nothing_unless_strict() {
    assert!(progress::emit("nobody listens").await.is_ok());
    assert!(
        progress::Progress::strict()
            .emit("nobody listens")
            .await
            .is_err()
    );
}

#[tokio::test]
async fn history_length_keeps_the_most_recent_messages() {
    let server = serve(|_context, updater| async move {
        updater.working("one").await?;
        updater.working("two").await?;
        updater.complete("three").await?;
        Ok(())
    })
    .await;
    let mut params = send_params("zero", json!({}));
    params["configuration"] = json!({"historyLength": 2});
    let result = server.call("SendMessage", params).await;
    assert_eq!(history_texts(&result["task"]), ["two", "three"]);
    let id = result["task"]["id"].clone();
    let full = server.call("GetTask", json!({"id": id})).await;
    assert_eq!(history_texts(&full), ["zero", "one", "two", "three"]);
    let none = server
        .call("GetTask", json!({"id": id, "historyLength": 0}))
        .await;
    assert!(none.get("history").is_none());
    let error = server
        .call_err("GetTask", json!({"id": id, "historyLength": -1}))
        .await;
    assert_eq!(error["code"], -32602);
}

#[tokio::test]
async fn an_intermediate_message_keeps_the_state_and_joins_the_history() {
    let server = serve(|_context, updater| async move {
        updater
            .message(Message::agent_text("working on it"))
            .await?;
        updater.require_input("anything else?").await?;
        Ok(())
    })
    .await;
    let result = send_text(&server, "x").await;
    assert_eq!(
        history_texts(&result["task"]),
        ["x", "working on it", "anything else?"]
    );
}

#[tokio::test]
async fn status_metadata_is_merged_into_the_task() {
    let server = serve(|_context, updater| async move {
        let first = serde_json::Map::from_iter([
            ("step".to_owned(), json!(1)),
            ("keep".to_owned(), json!("yes")),
        ]);
        updater
            .working(a2a_server::executor::Update::from("one").with_metadata(first))
            .await?;
        let second = serde_json::Map::from_iter([("step".to_owned(), json!(2))]);
        updater
            .complete(a2a_server::executor::Update::from("two").with_metadata(second))
            .await?;
        Ok(())
    })
    .await;
    let result = send_text(&server, "x").await;
    assert_eq!(
        result["task"]["metadata"],
        json!({"step": 2, "keep": "yes"})
    );
}

#[tokio::test]
async fn complete_with_artifacts_is_one_update_with_every_event() {
    let server = serve(|context: RequestContext, updater: TaskUpdater| async move {
        let artifacts = [
            Artifact::from_text(context.text()),
            Artifact::from_text("second"),
        ];
        updater.complete_with_artifacts(artifacts, ()).await?;
        Ok(())
    })
    .await;
    let task = send_text(&server, "first").await;
    assert_eq!(state(&task["task"]), "TASK_STATE_COMPLETED");
    assert_eq!(task["task"]["artifacts"].as_array().map(Vec::len), Some(2));
    let id = task["task"]["id"].as_str().unwrap();
    let fetched = server.call("GetTask", json!({"id": id})).await;
    assert_eq!(fetched["artifacts"][1]["parts"][0]["text"], "second");
}

#[tokio::test]
async fn complete_with_an_empty_artifact_applies_nothing() {
    let server = serve(
        |_context: RequestContext, updater: TaskUpdater| async move {
            updater.working(()).await?;
            let empty = Artifact::new(Vec::new());
            updater
                .complete_with_artifacts([Artifact::from_text("fine"), empty], ())
                .await?;
            Ok(())
        },
    )
    .await;
    let task = send_text(&server, "go").await;
    assert_eq!(state(&task["task"]), "TASK_STATE_FAILED", "{task}");
    assert!(
        task["task"]["artifacts"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "{task}"
    );
}
