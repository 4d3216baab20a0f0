//! Typed output: a run whose output is JSON completes its task with a data part of media
//! type `application/json`, never streamed in pieces; output that is not JSON fails it.

use a2a_run::OutputKind;
use a2a_test_support::model::Step;
use serde_json::json;

use crate::support::{Binding, Harness, Setup, user};

fn json_output() -> Setup {
    Setup {
        output: OutputKind::Json,
        ..Setup::default()
    }
}

#[tokio::test]
async fn typed_output_is_a_json_data_part_and_is_never_streamed_in_pieces() {
    let answer = "```json\n{\"city\": \"Lisbon\", \"rain\": false}\n```";
    let harness =
        Harness::start_with(vec![Step::text(answer), Step::text(answer)], json_output()).await;
    let task = harness
        .send(Binding::JsonRpc, user("weather as JSON"))
        .await
        .unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let part = &task["artifacts"][0]["parts"][0];
    assert_eq!(
        part["data"],
        json!({"city": "Lisbon", "rain": false}),
        "{task}"
    );
    assert_eq!(part["mediaType"], "application/json");

    let frames = harness.stream(user("again, streamed")).await;
    let updates: Vec<&serde_json::Value> = frames
        .iter()
        .filter_map(|(_, frame)| frame["result"].get("artifactUpdate"))
        .collect();
    assert_eq!(
        updates.len(),
        1,
        "one whole artifact, no drafts: {frames:?}"
    );
    assert_eq!(
        updates[0]["artifact"]["parts"][0]["data"],
        json!({"city": "Lisbon", "rain": false})
    );
    assert_ne!(updates[0]["append"], true);
}

#[tokio::test]
async fn typed_output_that_is_not_json_fails_the_task_with_its_code_only() {
    let harness =
        Harness::start_with(vec![Step::text("It is sunny in Lisbon.")], json_output()).await;
    let task = harness
        .send(Binding::JsonRpc, user("weather as JSON"))
        .await
        .unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED", "{task}");
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"],
        "agent run failed (invalid_output)"
    );
}
