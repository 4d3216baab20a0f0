//! Every refused answer message: InvalidParams, the task and run untouched, the message out
//! of the history; then a correct answer still completes the run.

use serde_json::{Value, json};

use a2a_test_support::model::Step;

use crate::support::{Binding, Harness, actions, follow_up};

/// A run waiting for one approval (`write_file`) and one client tool (`get_location`).
async fn suspended() -> (Harness, String, Vec<Value>) {
    let harness = Harness::start(vec![
        Step::tool_call(
            "call-w",
            "write_file",
            json!({"path": "a.txt", "text": "A"}),
        )
        .and_tool_call("call-c", "get_location", json!({})),
        Step::text("done"),
    ])
    .await;
    let mut message = crate::support::user("write and locate");
    message["metadata"] = json!({"clientTools": [{"name": "get_location"}]});
    let task = harness.send(Binding::JsonRpc, message).await.unwrap();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let pending = actions(&task);
    assert_eq!(pending.len(), 2, "{task}");
    let task_id = task["id"].as_str().unwrap().to_owned();
    (harness, task_id, pending)
}

fn approval(pending: &[Value]) -> &Value {
    pending.iter().find(|a| a["kind"] == "approval").unwrap()
}

fn approve(action: &Value) -> Value {
    json!({"approvalId": action["approvalId"], "approved": true, "token": action["token"]})
}

fn located() -> Value {
    json!({"toolCallId": "call-c", "output": "Lisbon"})
}

#[tokio::test]
async fn every_malformed_answer_is_refused_and_changes_nothing() {
    let (harness, task_id, pending) = suspended().await;
    let action = approval(&pending).clone();
    let before = harness.get(&task_id).await;
    let requests = harness.model.requests().len();

    let cases: Vec<(&str, Value)> = vec![
        ("no answers", json!([{"text": "hello?"}])),
        (
            "empty answers",
            json!([{"data": {"approvalResponses": [], "clientToolResults": []}}]),
        ),
        (
            "an action left open",
            json!([{"data": {"approvalResponses": [approve(&action)]}}]),
        ),
        (
            "an unknown action",
            json!([{"data": {
            "approvalResponses": [approve(&action), {"approvalId": "nope", "approved": false}],
            "clientToolResults": [located()]}}]),
        ),
        (
            "answered twice",
            json!([
            {"data": {"approvalResponses": [approve(&action)], "clientToolResults": [located()]}},
            {"data": {"approvalResponses": [{"approvalId": action["approvalId"], "approved": false}]}}]),
        ),
        (
            "the wrong kind",
            json!([{"data": {
            "approvalResponses": [approve(&action)],
            "clientToolResults": [located(), {"toolCallId": action["toolCallId"], "output": "x"}]}}]),
        ),
        (
            "an approval named by its tool-call id",
            json!([{"data": {
            "approvalResponses": [{"approvalId": action["toolCallId"], "approved": true, "token": action["token"]}],
            "clientToolResults": [located()]}}]),
        ),
        (
            "an approval without its token",
            json!([{"data": {
            "approvalResponses": [{"approvalId": action["approvalId"], "approved": true}],
            "clientToolResults": [located()]}}]),
        ),
        (
            "an approval with a forged token",
            json!([{"data": {
            "approvalResponses": [{"approvalId": action["approvalId"], "approved": true, "token": "AAAA"}],
            "clientToolResults": [located()]}}]),
        ),
        (
            "another data shape",
            json!([
            {"data": {"approvalResponses": [approve(&action)], "clientToolResults": [located()]}},
            {"data": {"note": "extra"}}]),
        ),
        (
            "extra keys in an answer part",
            json!([{"data": {
            "approvalResponses": [approve(&action)], "clientToolResults": [located()], "more": 1}}]),
        ),
        (
            "a malformed entry",
            json!([{"data": {
            "approvalResponses": [{"approvalId": action["approvalId"], "approved": "yes"}],
            "clientToolResults": [located()]}}]),
        ),
        (
            "a file part",
            json!([
            {"data": {"approvalResponses": [approve(&action)], "clientToolResults": [located()]}},
            {"url": "https://example.com/a.png", "mediaType": "image/png"}]),
        ),
    ];
    for (case, parts) in cases {
        let error = harness
            .send(Binding::JsonRpc, follow_up(&task_id, parts))
            .await
            .expect_err(case);
        assert_eq!(error["code"], -32602, "{case}: {error}");
        let after = harness.get(&task_id).await;
        assert_eq!(after["status"], before["status"], "{case}");
        assert_eq!(
            after["history"], before["history"],
            "{case}: the message stays out of the history"
        );
        assert_eq!(
            harness.model.requests().len(),
            requests,
            "{case}: no leg ran"
        );
    }

    // Over HTTP+JSON the refusal is the same error.
    let error = harness
        .send(
            Binding::Rest,
            follow_up(&task_id, json!([{"text": "hello?"}])),
        )
        .await
        .unwrap_err();
    assert_eq!(error["error"]["status"], "INVALID_ARGUMENT", "{error}");

    // The run was untouched: the right answer still completes it.
    let parts = json!([{"data": {"approvalResponses": [approve(&action)]}}, {"data": {"clientToolResults": [located()]}}]);
    let task = harness
        .send(Binding::JsonRpc, follow_up(&task_id, parts))
        .await
        .unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(
        harness
            .files
            .lock()
            .unwrap()
            .get("a.txt")
            .map(String::as_str),
        Some("A")
    );
}

#[tokio::test]
async fn answers_sent_while_nothing_is_pending_are_refused() {
    let harness = Harness::start(vec![Step::text("hi")]).await;
    let message = json!({"messageId": crate::support::id(), "role": "ROLE_USER", "parts": [
        {"data": {"approvalResponses": [{"approvalId": "x", "approved": true}]}}
    ]});
    let error = harness.send(Binding::JsonRpc, message).await.unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    assert!(harness.model.requests().is_empty());
}

#[tokio::test]
async fn per_turn_options_the_executor_owns_are_refused() {
    let (harness, task_id, pending) = suspended().await;
    let approval = approval(&pending);
    // Answers belong in a data part: in the message's metadata they would be ignored.
    let mut message = follow_up(&task_id, json!([{"text": "yes"}]));
    message["metadata"] = json!({"approvalResponses": [approve(approval)]});
    let error = harness.send(Binding::JsonRpc, message).await.unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("data part"),
        "{error}"
    );
    // The request's metadata is held to the same rule, and the run's own parts are the
    // run's to write.
    let params = json!({"message": follow_up(&task_id, json!([{"text": "yes"}])),
                        "metadata": {"reconciledToolResults": []}});
    let error = harness
        .send_as(crate::support::ALICE, Binding::JsonRpc, params)
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    let mut message = crate::support::user("start something");
    message["metadata"] = json!({"actions": []});
    let error = harness.send(Binding::JsonRpc, message).await.unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    // None of it changed the run: the answers in data parts still complete it.
    let task = harness
        .send(
            Binding::JsonRpc,
            follow_up(
                &task_id,
                json!([{"data": {"approvalResponses": [approve(approval)], "clientToolResults": [located()]}}]),
            ),
        )
        .await
        .unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
}
