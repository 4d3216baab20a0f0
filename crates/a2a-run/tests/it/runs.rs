//! Whole runs: tool calls allowed, approved, denied and refused; drafts; limits; cancel;
//! drain and resume; isolation between callers.

use std::sync::Arc;
use std::time::Duration;

use a2a_run::Limits;
use a2a_run::run::Run;
use a2a_run::run::RunStatus;
use a2a_run::store::{InMemoryRunStore, RunStore};
use a2a_server::store::{Expected, StoreError, TaskScope, Version};
use a2a_test_support::model::Step;
use a2a_types::TaskId;
use serde_json::{Value, json};

use crate::support::{ALICE, BOB, Binding, Harness, Setup, actions, follow_up, user};

/// The messages of the model request number `index`.
fn messages(harness: &Harness, index: usize) -> Vec<Value> {
    harness.model.requests()[index]["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

async fn approved_and_denied(binding: Binding) {
    let harness = Harness::start(vec![
        Step::tool_call("call-read", "read_file", json!({"path": "notes.txt"})),
        Step::tool_call(
            "call-a",
            "write_file",
            json!({"path": "a.txt", "text": "A"}),
        )
        .and_tool_call(
            "call-b",
            "write_file",
            json!({"path": "b.txt", "text": "B"}),
        )
        .and_tool_call("call-del", "delete_file", json!({"path": "notes.txt"})),
        Step::text("I wrote a.txt; b.txt was refused."),
    ])
    .await;

    let task = harness.send(binding, user("copy my notes")).await.unwrap();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let task_id = task["id"].as_str().unwrap().to_owned();
    let pending = actions(&task);
    assert_eq!(pending.len(), 2, "{task}");
    for action in &pending {
        assert_eq!(action["kind"], "approval");
        assert_eq!(action["toolName"], "write_file");
        assert!(action["token"].is_string());
        assert_ne!(action["approvalId"], action["toolCallId"]);
    }
    // The allowed call ran before the model's second step; the denied one never runs.
    let second = messages(&harness, 1);
    assert!(
        second
            .iter()
            .any(|m| m["role"] == "tool" && m["content"] == "buy milk"),
        "{second:?}"
    );

    let approve = &pending[0];
    let deny = &pending[1];
    let answer = json!([
        {"data": {"approvalResponses": [
            {"approvalId": approve["approvalId"], "approved": true, "token": approve["token"]},
            {"approvalId": deny["approvalId"], "approved": false, "reason": "not b"}
        ]}},
        {"text": "go ahead with the first"}
    ]);
    let task = harness
        .send(binding, follow_up(&task_id, answer))
        .await
        .unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(task["artifacts"][0]["artifactId"], "output");
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"],
        "I wrote a.txt; b.txt was refused."
    );

    let files = harness.files.lock().unwrap().clone();
    let approved_path = if approve["toolCallId"] == "call-a" {
        "a.txt"
    } else {
        "b.txt"
    };
    let denied_path = if approved_path == "a.txt" {
        "b.txt"
    } else {
        "a.txt"
    };
    assert!(files.contains_key(approved_path));
    assert!(!files.contains_key(denied_path));
    assert!(
        files.contains_key("notes.txt"),
        "the denied delete never ran"
    );

    let third = messages(&harness, 2);
    let tool_results: Vec<&Value> = third.iter().filter(|m| m["role"] == "tool").collect();
    assert!(
        tool_results
            .iter()
            .any(|m| m["content"].as_str().unwrap().contains("not allowed")),
        "{third:?}"
    );
    assert!(tool_results.iter().any(|m| {
        m["content"]
            .as_str()
            .unwrap()
            .contains("denied this call: not b")
    }));
    assert!(
        tool_results
            .iter()
            .any(|m| m["content"].as_str().unwrap().starts_with("wrote "))
    );
    // The answer's text stays in the history; the run got only the answers.
    let stored = harness.get(&task_id).await;
    let history = stored["history"].as_array().unwrap();
    assert!(
        history
            .iter()
            .any(|m| m["parts"][1]["text"] == "go ahead with the first")
    );
    assert!(
        !third
            .iter()
            .any(|m| m["content"] == "go ahead with the first")
    );
}

#[tokio::test]
async fn a_run_with_an_approved_and_a_denied_call_over_json_rpc() {
    approved_and_denied(Binding::JsonRpc).await;
}

#[tokio::test]
async fn a_run_with_an_approved_and_a_denied_call_over_http_json() {
    approved_and_denied(Binding::Rest).await;
}

#[tokio::test]
async fn a_client_tool_call_waits_for_the_callers_result() {
    let harness = Harness::start(vec![
        Step::tool_call("call-loc", "get_location", json!({})),
        Step::text("You are in Lisbon."),
    ])
    .await;
    let mut message = user("where am I?");
    message["metadata"] =
        json!({"clientTools": [{"name": "get_location", "description": "The user's city"}]});
    let task = harness.send(Binding::JsonRpc, message).await.unwrap();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let pending = actions(&task);
    assert_eq!(pending[0]["kind"], "clientTool");
    assert_eq!(pending[0]["toolCallId"], "call-loc");
    let offered = &harness.model.requests()[0]["tools"];
    assert!(offered.to_string().contains("get_location"), "{offered}");

    let answer =
        json!([{"data": {"clientToolResults": [{"toolCallId": "call-loc", "output": "Lisbon"}]}}]);
    let task = harness
        .send(
            Binding::JsonRpc,
            follow_up(task["id"].as_str().unwrap(), answer),
        )
        .await
        .unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert!(
        messages(&harness, 1)
            .iter()
            .any(|m| m["role"] == "tool" && m["content"] == "Lisbon")
    );
}

#[tokio::test]
async fn a_streamed_run_sends_drafts_that_are_never_stored() {
    let harness = Harness::start(vec![Step::text("a drafted answer in pieces")]).await;
    let frames = harness.stream(user("hello")).await;
    let results: Vec<&Value> = frames.iter().map(|(_, frame)| &frame["result"]).collect();
    let kinds: Vec<String> = results
        .iter()
        .map(|result| {
            if let Some(update) = result.get("artifactUpdate") {
                let draft = update["artifact"]["metadata"]["draft"] == true;
                format!("artifact:{}", if draft { "draft" } else { "stored" })
            } else if let Some(update) = result.get("statusUpdate") {
                format!("status:{}", update["status"]["state"].as_str().unwrap())
            } else if result.get("task").is_some() {
                "task".to_owned()
            } else {
                format!("{result}")
            }
        })
        .collect();
    assert_eq!(kinds.first().map(String::as_str), Some("task"), "{kinds:?}");
    assert_eq!(
        kinds.get(1).map(String::as_str),
        Some("status:TASK_STATE_WORKING"),
        "{kinds:?}"
    );
    let drafts: Vec<usize> = kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| *k == "artifact:draft")
        .map(|(i, _)| i)
        .collect();
    assert!(drafts.len() >= 2, "{kinds:?}");
    let stored = kinds.iter().position(|k| k == "artifact:stored").unwrap();
    assert!(drafts.iter().all(|i| *i < stored), "{kinds:?}");
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("status:TASK_STATE_COMPLETED")
    );
    // Drafts carry no event id (they are not in the task's log); logged events do.
    for ((id, _), kind) in frames.iter().zip(&kinds) {
        if kind == "artifact:draft" {
            assert!(id.is_none(), "{kinds:?}");
        }
    }
    let text: String = results
        .iter()
        .filter(|r| r["artifactUpdate"]["artifact"]["metadata"]["draft"] == true)
        .filter_map(|r| r["artifactUpdate"]["artifact"]["parts"][0]["text"].as_str())
        .collect();
    assert_eq!(text, "a drafted answer in pieces");

    let task_id = results[0]["task"]["id"].as_str().unwrap();
    let task = harness.get(task_id).await;
    let artifacts = task["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 1, "{task}");
    assert_eq!(artifacts[0]["artifactId"], "output");
}

#[tokio::test]
async fn a_card_without_streaming_gets_no_drafts() {
    let setup = Setup {
        streaming: false,
        ..Setup::default()
    };
    let harness = Harness::start_with(vec![Step::text("plain answer")], setup).await;
    let task = harness.send(Binding::JsonRpc, user("hi")).await.unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_ne!(harness.model.requests()[0]["stream"], true);
}

#[tokio::test]
async fn a_run_out_of_steps_stops_for_good() {
    let mut limits = Limits::default();
    limits.max_steps = 1;
    let setup = Setup {
        limits,
        ..Setup::default()
    };
    let harness = Harness::start_with(
        vec![Step::tool_call(
            "call-1",
            "read_file",
            json!({"path": "notes.txt"}),
        )],
        setup,
    )
    .await;
    let task = harness.send(Binding::JsonRpc, user("read")).await.unwrap();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    assert!(
        task["status"]["message"].to_string().contains("max-steps"),
        "{task}"
    );
    let error = harness
        .send(
            Binding::JsonRpc,
            follow_up(task["id"].as_str().unwrap(), json!([{"text": "go on"}])),
        )
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32004, "{error}");
}

#[tokio::test]
async fn a_failed_model_call_fails_the_task_with_its_code_only() {
    let harness = Harness::start(vec![Step::error(
        429,
        r#"{"error":{"message":"slow down, secret detail"}}"#,
    )])
    .await;
    let task = harness.send(Binding::JsonRpc, user("hi")).await.unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED", "{task}");
    let text = task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert_eq!(text, "agent run failed (rate_limit)");
}

#[tokio::test]
async fn cancel_during_a_model_call_aborts_it_and_keeps_the_run_canceled() {
    let store = Arc::new(Recording::default());
    let setup = Setup {
        store: Arc::clone(&store) as Arc<dyn RunStore>,
        ..Setup::default()
    };
    let harness = Harness::start_with(
        vec![Step::text("too late").delay(Duration::from_secs(30))],
        setup,
    )
    .await;
    let params = json!({"message": user("slow"), "configuration": {"returnImmediately": true}});
    let task = harness
        .send_as(ALICE, Binding::JsonRpc, params)
        .await
        .unwrap();
    let task_id = task["id"].as_str().unwrap().to_owned();
    harness.wait_for(&task_id, "TASK_STATE_WORKING").await;
    // The model call is under way.
    for _ in 0..100 {
        if !harness.model.requests().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let started = std::time::Instant::now();
    let canceled = harness
        .jsonrpc_as(ALICE, "CancelTask", json!({"id": task_id}))
        .await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    let mut status = None;
    for _ in 0..100 {
        status = store.last_status(&task_id);
        if status == Some(RunStatus::Canceled) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, Some(RunStatus::Canceled));
}

#[tokio::test]
async fn another_caller_never_sees_a_run() {
    let harness = Harness::start(vec![Step::tool_call(
        "call-a",
        "write_file",
        json!({"path": "a.txt", "text": "A"}),
    )])
    .await;
    let task = harness.send(Binding::JsonRpc, user("write")).await.unwrap();
    let task_id = task["id"].as_str().unwrap();
    let pending = actions(&task);
    let answer = json!([{"data": {"approvalResponses": [
        {"approvalId": pending[0]["approvalId"], "approved": true, "token": pending[0]["token"]}
    ]}}]);
    // Bob cannot read the task, nor answer its approval.
    let error = harness.get_as(BOB, task_id).await.unwrap_err();
    assert_eq!(error["code"], -32001, "{error}");
    let error = harness
        .send_as(
            BOB,
            Binding::JsonRpc,
            json!({"message": follow_up(task_id, answer)}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32001, "{error}");
    assert!(!harness.files.lock().unwrap().contains_key("a.txt"));
    let task = harness.get(task_id).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
}

#[tokio::test]
async fn a_drained_run_resumes_on_the_next_message_on_another_instance() {
    let runs: Arc<dyn RunStore> = Arc::new(InMemoryRunStore::new());
    let tasks = Arc::new(a2a_server::store::InMemoryTaskStore::new());
    let first = Harness::start_shared(
        vec![
            Step::tool_call("call-read", "read_file", json!({"path": "notes.txt"})),
            Step::text("never sent").delay(Duration::from_secs(30)),
        ],
        Arc::clone(&runs),
        Arc::clone(&tasks),
    )
    .await;
    let params =
        json!({"message": user("read my notes"), "configuration": {"returnImmediately": true}});
    let task = first
        .send_as(ALICE, Binding::JsonRpc, params)
        .await
        .unwrap();
    let task_id = task["id"].as_str().unwrap().to_owned();
    // Wait until the second model call (after the tool ran) is under way, then drain.
    for _ in 0..200 {
        if first.model.requests().len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(first.model.requests().len(), 2);
    first.server.shutdown(Duration::from_secs(10)).await;
    let task = first.get(&task_id).await;
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    assert!(
        task["status"]["message"].to_string().contains("drained"),
        "{task}"
    );

    let second =
        Harness::start_shared(vec![Step::text("your notes say: buy milk")], runs, tasks).await;
    let task = second
        .send(
            Binding::JsonRpc,
            follow_up(&task_id, json!([{"text": "go on"}])),
        )
        .await
        .unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    // The resumed run picked up from its last save: the tool result is in its transcript,
    // and the tool was not called again.
    let resumed = messages(&second, 0);
    assert!(
        resumed
            .iter()
            .any(|m| m["role"] == "tool" && m["content"] == "buy milk"),
        "{resumed:?}"
    );
    assert_eq!(second.model.requests().len(), 1);
}

/// A run store that remembers the status of each run's last save, whoever owns it.
#[derive(Default)]
struct Recording {
    inner: InMemoryRunStore,
    last: std::sync::Mutex<std::collections::HashMap<String, RunStatus>>,
}

impl Recording {
    fn last_status(&self, task_id: &str) -> Option<RunStatus> {
        self.last.lock().unwrap().get(task_id).cloned()
    }
}

#[async_trait::async_trait]
impl RunStore for Recording {
    async fn load(
        &self,
        scope: &TaskScope,
        id: &TaskId,
    ) -> Result<Option<a2a_run::store::StoredRun>, StoreError> {
        self.inner.load(scope, id).await
    }

    async fn save(
        &self,
        scope: &TaskScope,
        run: &Run,
        expected: Expected,
    ) -> Result<Version, StoreError> {
        let version = self.inner.save(scope, run, expected).await?;
        self.last
            .lock()
            .unwrap()
            .insert(run.task_id.as_str().to_owned(), run.status.clone());
        Ok(version)
    }

    async fn delete(&self, scope: &TaskScope, id: &TaskId) -> Result<bool, StoreError> {
        self.inner.delete(scope, id).await
    }
}
