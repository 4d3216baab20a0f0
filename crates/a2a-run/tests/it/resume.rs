//! What a message finds when it resumes a run: a stop for tool reconciliation settled by an
//! operator, pending actions asked again, and the refusals of a resume that cannot begin
//! (the run's lease held by another instance, a run store that fails).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use a2a_run::run::{CallState, Run, RunStatus};
use a2a_run::store::{InMemoryRunStore, RunStore, StoredRun};
use a2a_server::store::{Expected, StoreError, TaskScope, TaskStore, Version};
use a2a_test_support::model::Step;
use a2a_types::{Message, TaskId};
use serde_json::{Value, json};

use crate::support::{Binding, Harness, Setup, actions, follow_up, user};

/// A run store that remembers the scope of each task's runs, and can be told to fail: its
/// loads as a broken backend, its saves as the lost race of an instance whose lease another
/// instance holds.
#[derive(Default)]
struct Switchable {
    inner: InMemoryRunStore,
    scopes: Mutex<Vec<(String, TaskScope)>>,
    broken: AtomicBool,
    lease_elsewhere: AtomicBool,
}

impl Switchable {
    fn scope_of(&self, task_id: &str) -> TaskScope {
        self.scopes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|(id, _)| id == task_id)
            .map(|(_, scope)| scope.clone())
            .unwrap()
    }

    /// Loads, changes and saves the run of `task_id` behind the agent's back.
    async fn rewrite(&self, task_id: &str, change: impl FnOnce(&mut Run)) {
        let scope = self.scope_of(task_id);
        let id = TaskId::new(task_id);
        let StoredRun { mut run, version } = self.inner.load(&scope, &id).await.unwrap().unwrap();
        change(&mut run);
        self.inner
            .save(&scope, &run, Expected::Version(version))
            .await
            .unwrap();
    }

    async fn status(&self, task_id: &str) -> RunStatus {
        let scope = self.scope_of(task_id);
        let stored = self.inner.load(&scope, &TaskId::new(task_id)).await;
        stored.unwrap().unwrap().run.status
    }
}

#[async_trait::async_trait]
impl RunStore for Switchable {
    async fn load(&self, scope: &TaskScope, id: &TaskId) -> Result<Option<StoredRun>, StoreError> {
        if self.broken.load(Ordering::SeqCst) {
            return Err(StoreError::Backend("the run database is down".into()));
        }
        self.inner.load(scope, id).await
    }

    async fn save(
        &self,
        scope: &TaskScope,
        run: &Run,
        expected: Expected,
    ) -> Result<Version, StoreError> {
        if self.lease_elsewhere.load(Ordering::SeqCst) {
            return Err(StoreError::Conflict {
                task_id: run.task_id.clone(),
            });
        }
        let version = self.inner.save(scope, run, expected).await?;
        let mut scopes = self.scopes.lock().unwrap_or_else(PoisonError::into_inner);
        if !scopes.iter().any(|(id, _)| id == run.task_id.as_str()) {
            scopes.push((run.task_id.as_str().to_owned(), scope.clone()));
        }
        Ok(version)
    }

    async fn delete(&self, scope: &TaskScope, id: &TaskId) -> Result<bool, StoreError> {
        self.inner.delete(scope, id).await
    }
}

/// An agent over a [`Switchable`] store, and a task waiting for the approval of a
/// `write_file` call (`call-w`); the model then says `Done.`.
async fn waiting_for_approval() -> (Harness, Arc<Switchable>, String) {
    let runs = Arc::new(Switchable::default());
    let setup = Setup {
        store: Arc::clone(&runs) as Arc<dyn RunStore>,
        ..Setup::default()
    };
    let harness = Harness::start_with(
        vec![
            Step::tool_call(
                "call-w",
                "write_file",
                json!({"path": "a.txt", "text": "hi"}),
            ),
            Step::text("Done."),
        ],
        setup,
    )
    .await;
    let task = harness
        .send(Binding::JsonRpc, user("write a.txt"))
        .await
        .unwrap();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let task_id = task["id"].as_str().unwrap().to_owned();
    (harness, runs, task_id)
}

/// The data part of the task's status message holding `key`.
fn status_data<'a>(task: &'a Value, key: &str) -> &'a Value {
    task["status"]["message"]["parts"]
        .as_array()
        .and_then(|parts| parts.iter().find(|part| part["data"].get(key).is_some()))
        .map(|part| &part["data"])
        .unwrap_or_else(|| panic!("no {key} part: {task}"))
}

#[tokio::test]
async fn a_run_stopped_for_tool_reconciliation_is_settled_by_the_operators_result() {
    let (harness, runs, task_id) = waiting_for_approval().await;
    // What a crash while write_file ran leaves: the run still running, the call started,
    // and a call with effects cannot simply run again.
    runs.rewrite(&task_id, |run| {
        run.status = RunStatus::Running;
        run.open_calls[0].state = CallState::Started { repeatable: false };
    })
    .await;
    let task = harness
        .send(
            Binding::JsonRpc,
            follow_up(&task_id, json!([{"text": "what happened?"}])),
        )
        .await
        .unwrap();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let stopped = status_data(&task, "stopped");
    assert_eq!(stopped["stopped"], "tool-reconciliation-required");
    assert_eq!(
        stopped["reconcile"],
        json!([{"toolCallId": "call-w", "toolName": "write_file", "input": {"path": "a.txt", "text": "hi"}}])
    );
    assert!(
        task["status"]["message"]
            .to_string()
            .contains("reconciledToolResults"),
        "the stop says how to settle it: {task}"
    );

    // Until it is settled, every message finds the run stopped.
    let refused = harness
        .send(
            Binding::JsonRpc,
            follow_up(&task_id, json!([{"text": "go on"}])),
        )
        .await
        .unwrap_err();
    assert_eq!(refused["code"], -32004, "{refused}");
    // A settlement that names another call, or leaves this one out, changes nothing.
    for wrong in [
        json!({"reconciledToolResults": [{"toolCallId": "call-x", "output": "?"}]}),
        json!({"reconciledToolResults": []}),
        json!({"reconciledToolResults": [{"toolCallId": "call-w", "output": "a"}, {"toolCallId": "call-w", "output": "b"}]}),
    ] {
        let error = harness
            .send(
                Binding::JsonRpc,
                follow_up(&task_id, json!([{ "data": wrong }])),
            )
            .await
            .unwrap_err();
        assert_eq!(error["code"], -32602, "{wrong}: {error}");
    }
    assert!(matches!(
        runs.status(&task_id).await,
        RunStatus::Stopped { .. }
    ));

    // The operator checked: the file was written. The run goes on from there.
    let settle = json!([{"data": {"reconciledToolResults": [{"toolCallId": "call-w", "output": "wrote a.txt"}]}}]);
    let task = harness
        .send(Binding::JsonRpc, follow_up(&task_id, settle))
        .await
        .unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "Done.");
    let last = harness.model.requests().last().cloned().unwrap();
    assert!(
        last["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool" && m["content"] == "wrote a.txt"),
        "{last}"
    );
    assert!(
        harness.files.lock().unwrap().get("a.txt").is_none(),
        "the settled call was not run again"
    );
}

#[tokio::test]
async fn reconciled_results_for_a_run_that_is_not_stopped_are_refused() {
    let (harness, _runs, task_id) = waiting_for_approval().await;
    let settle =
        json!([{"data": {"reconciledToolResults": [{"toolCallId": "call-w", "output": "x"}]}}]);
    let error = harness
        .send(Binding::JsonRpc, follow_up(&task_id, settle))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    assert!(error.to_string().contains("reconciliation"), "{error}");
}

#[tokio::test]
async fn a_message_without_answers_is_asked_again_when_the_status_lost_the_actions() {
    let runs = Arc::new(Switchable::default());
    let tasks = Arc::new(a2a_server::store::InMemoryTaskStore::new());
    let harness = Harness::start_shared(
        vec![Step::tool_call(
            "call-w",
            "write_file",
            json!({"path": "a.txt", "text": "hi"}),
        )],
        Arc::clone(&runs) as Arc<dyn RunStore>,
        Arc::clone(&tasks),
    )
    .await;
    let task = harness
        .send(Binding::JsonRpc, user("write a.txt"))
        .await
        .unwrap();
    let task_id = TaskId::new(task["id"].as_str().unwrap());
    let first_ask = actions(&task);
    assert_eq!(first_ask.len(), 1, "{task}");
    // The task's status says it waits, but no longer lists what for (as an instance that
    // suspended the run and stopped before updating the task leaves it).
    let scope = tasks.locate(&task_id).await.unwrap().unwrap();
    let stored = tasks.load(&scope, &task_id).await.unwrap().unwrap();
    let mut waiting = stored.task.clone();
    waiting.status.message = Some(Message::agent_text("Waiting."));
    tasks
        .save(&scope, &waiting, Expected::Version(stored.version), &[])
        .await
        .unwrap();
    let calls = harness.model.requests().len();
    let task = harness
        .send(
            Binding::JsonRpc,
            follow_up(task_id.as_str(), json!([{"text": "what now?"}])),
        )
        .await
        .unwrap();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let asked = actions(&task);
    assert_eq!(asked.len(), 1, "{task}");
    assert_eq!(asked[0]["approvalId"], first_ask[0]["approvalId"]);
    assert_eq!(
        harness.model.requests().len(),
        calls,
        "no leg ran: the model was not called"
    );
    // Now that the actions are listed again, a message without answers is refused.
    let refused = harness
        .send(
            Binding::JsonRpc,
            follow_up(task_id.as_str(), json!([{"text": "again?"}])),
        )
        .await
        .unwrap_err();
    assert_eq!(refused["code"], -32602, "{refused}");
}

#[tokio::test]
async fn a_resume_whose_run_another_instance_holds_is_refused_and_the_task_keeps_waiting() {
    let (harness, runs, task_id) = waiting_for_approval().await;
    let task = harness.get(&task_id).await;
    let approval = &actions(&task)[0];
    let answer = json!([{"data": {"approvalResponses": [{
        "approvalId": approval["approvalId"], "approved": true, "token": approval["token"]
    }]}}]);
    runs.lease_elsewhere.store(true, Ordering::SeqCst);
    let refused = harness
        .send(Binding::JsonRpc, follow_up(&task_id, answer.clone()))
        .await
        .unwrap_err();
    assert_eq!(refused["code"], -32004, "UnsupportedOperation: {refused}");
    assert!(
        refused["message"].as_str().unwrap().contains("another"),
        "{refused}"
    );
    let task = harness.get(&task_id).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert!(harness.files.lock().unwrap().get("a.txt").is_none());
    // Once the other instance lets go, the same answer goes through.
    runs.lease_elsewhere.store(false, Ordering::SeqCst);
    let task = harness
        .send(Binding::JsonRpc, follow_up(&task_id, answer))
        .await
        .unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
}

#[tokio::test]
async fn a_resume_whose_run_store_fails_is_an_internal_error_and_the_task_keeps_waiting() {
    let (harness, runs, task_id) = waiting_for_approval().await;
    runs.broken.store(true, Ordering::SeqCst);
    let refused = harness
        .send(
            Binding::JsonRpc,
            follow_up(&task_id, json!([{"text": "are you there?"}])),
        )
        .await
        .unwrap_err();
    assert_eq!(refused["code"], -32603, "{refused}");
    assert!(
        !refused.to_string().contains("database"),
        "the store's error stays in the log: {refused}"
    );
    runs.broken.store(false, Ordering::SeqCst);
    let task = harness.get(&task_id).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(actions(&task).len(), 1, "still asking: {task}");
}
