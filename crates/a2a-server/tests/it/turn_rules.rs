//! The turn rules (those of a TS SDK's A2A module), cancels included, one test per rule,
//! over a real socket through the JSON-RPC binding.

use std::sync::Arc;
use std::time::Duration;

use a2a_server::executor::{CancelRequest, progress};
use a2a_server::{AgentExecutor, ExecutorError, RequestContext, ServerConfig, TaskUpdater};
use a2a_types::{A2aError, Artifact, Message, TaskState};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

use crate::support::{TestServer, send_params, serve, standard_card};

fn state(task: &Value) -> &str {
    task["status"]["state"].as_str().unwrap_or_default()
}

fn history_texts(task: &Value) -> Vec<String> {
    task["history"]
        .as_array()
        .map(|history| {
            history
                .iter()
                .map(|message| {
                    message["parts"][0]["text"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Asks for input on the first turn, completes on the next (the weather example of a TS
/// SDK's A2A module).
async fn ask_then_complete(
    context: RequestContext,
    updater: TaskUpdater,
) -> Result<(), ExecutorError> {
    if context.task.is_none() {
        updater.require_input("Which city?").await?;
    } else {
        updater
            .complete(format!("Sunny in {}.", context.text()))
            .await?;
    }
    Ok(())
}

async fn input_required_task(server: &TestServer) -> Value {
    let result = server
        .call(
            "SendMessage",
            send_params("What is the weather?", json!({})),
        )
        .await;
    assert_eq!(state(&result["task"]), "TASK_STATE_INPUT_REQUIRED");
    result["task"].clone()
}

/// Serves an agent that sets `first` (with `text`), waits until the test releases the
/// returned gate, then completes with `done` when given (or just returns).
async fn serve_gated(
    first: TaskState,
    text: Option<&'static str>,
    done: Option<&'static str>,
) -> (TestServer, Arc<Notify>) {
    let release = Arc::new(Notify::new());
    let gate = Arc::clone(&release);
    let server = serve(move |_context, updater| {
        let gate = Arc::clone(&gate);
        async move {
            match text {
                Some(text) => updater.status(first, text).await?,
                None => updater.status(first, ()).await?,
            }
            gate.notified().await;
            if let Some(done) = done {
                updater.complete(done).await?;
            }
            Ok(())
        }
    })
    .await;
    (server, release)
}

#[tokio::test]
async fn new_interaction_creates_its_task_at_the_first_update_with_the_message_in_history() {
    let server = serve(|_context, updater| async move {
        updater.working("Thinking…").await?;
        updater.complete("Done").await?;
        Ok(())
    })
    .await;
    let result = server
        .call("SendMessage", send_params("hello", json!({})))
        .await;
    let task = &result["task"];
    assert_eq!(state(task), "TASK_STATE_COMPLETED");
    assert_eq!(history_texts(task), ["hello", "Thinking…", "Done"]);
    assert!(task["contextId"].as_str().is_some_and(|id| !id.is_empty()));
    let stored = server.call("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(&stored, task);
}

#[tokio::test]
async fn a_reply_answers_with_a_message_and_creates_no_task() {
    let server = serve(|context, updater| async move {
        updater
            .reply(format!("You said {}", context.text()))
            .await?;
        Ok(())
    })
    .await;
    let result = server
        .call("SendMessage", send_params("hi", json!({})))
        .await;
    let message = &result["message"];
    assert_eq!(message["role"], "ROLE_AGENT");
    assert_eq!(message["parts"][0]["text"], "You said hi");
    assert!(message["contextId"].is_string());
    assert!(message.get("taskId").is_none());
    let listed = server.call("ListTasks", json!({})).await;
    assert_eq!(listed["totalSize"], 0);
}

#[tokio::test]
async fn updates_after_the_turn_ended_are_rejected() {
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let server = serve(move |_context, updater| {
        let sender = sender.clone();
        async move {
            let again = a2a_server::executor::progress::current().unwrap();
            updater.complete("done").await?;
            let late = again.working("too late").await;
            sender.send(late).unwrap();
            Ok(())
        }
    })
    .await;
    let result = server
        .call("SendMessage", send_params("go", json!({})))
        .await;
    assert_eq!(state(&result["task"]), "TASK_STATE_COMPLETED");
    let late = receiver.recv().await.unwrap();
    assert_eq!(late, Err(a2a_server::executor::UpdateError::TurnEnded));
}

#[tokio::test]
async fn a_follow_up_shows_input_required_until_the_executor_changes_it_so_an_artifact_first_ends_nothing()
 {
    let seen = Arc::new(Notify::new());
    let proceed = Arc::new(Notify::new());
    let (seen2, proceed2) = (Arc::clone(&seen), Arc::clone(&proceed));
    let server = serve(move |context, updater| {
        let (seen, proceed) = (Arc::clone(&seen2), Arc::clone(&proceed2));
        async move {
            if context.task.is_none() {
                return Ok(updater.require_input("More?").await?);
            }
            updater.add_artifact(Artifact::from_text("partial")).await?;
            seen.notify_one();
            proceed.notified().await;
            updater.complete("finished").await?;
            Ok(())
        }
    })
    .await;
    let task = input_required_task(&server).await;
    let follow_up = send_params("more", json!({"taskId": task["id"]}));
    let server = Arc::new(server);
    let pending = tokio::spawn({
        let server = Arc::clone(&server);
        async move { server.call("SendMessage", follow_up).await }
    });
    seen.notified().await;
    let during = server.call("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&during), "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(during["artifacts"][0]["parts"][0]["text"], "partial");
    assert!(
        !pending.is_finished(),
        "a blocking send must wait past the artifact"
    );
    proceed.notify_one();
    let result = pending.await.unwrap();
    assert_eq!(state(&result["task"]), "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn returning_while_working_completes_the_task() {
    let server = serve(|_context, updater| async move {
        updater.working(()).await?;
        Ok(())
    })
    .await;
    let result = server
        .call("SendMessage", send_params("x", json!({})))
        .await;
    assert_eq!(state(&result["task"]), "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn returning_while_auth_required_leaves_the_task_waiting() {
    let server = serve(|_context, updater| async move {
        updater
            .require_auth("Sign in at https://idp.example")
            .await?;
        Ok(())
    })
    .await;
    let result = server
        .call("SendMessage", send_params("x", json!({})))
        .await;
    let task = &result["task"];
    assert_eq!(state(task), "TASK_STATE_AUTH_REQUIRED");
    tokio::time::sleep(Duration::from_millis(50)).await;
    let stored = server.call("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&stored), "TASK_STATE_AUTH_REQUIRED");
}

#[tokio::test]
async fn an_executor_error_fails_the_task_with_its_message() {
    let server = serve(|_context, updater| async move {
        updater.working(()).await?;
        Err(ExecutorError::failed("the weather service is down"))
    })
    .await;
    let result = server
        .call("SendMessage", send_params("x", json!({})))
        .await;
    let task = &result["task"];
    assert_eq!(state(task), "TASK_STATE_FAILED");
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"],
        "the weather service is down"
    );
}

#[tokio::test]
async fn an_error_before_the_first_update_still_creates_and_fails_the_task() {
    let server =
        serve(|_context, _updater| async move { Err(ExecutorError::failed("no luck")) }).await;
    let result = server
        .call("SendMessage", send_params("x", json!({})))
        .await;
    assert_eq!(state(&result["task"]), "TASK_STATE_FAILED");
    assert_eq!(history_texts(&result["task"]), ["x", "no luck"]);
}

#[tokio::test]
async fn internal_errors_and_panics_fail_the_task_without_leaking_details() {
    let server = serve(|context, _updater| async move {
        if context.text() == "panic" {
            panic!("secret panic detail");
        }
        Err(ExecutorError::internal(std::io::Error::other(
            "db password=hunter2",
        )))
    })
    .await;
    for text in ["internal", "panic"] {
        let result = server
            .call("SendMessage", send_params(text, json!({})))
            .await;
        let task = &result["task"];
        assert_eq!(state(task), "TASK_STATE_FAILED", "{text}");
        let shown = task["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap();
        assert!(
            !shown.contains("hunter2") && !shown.contains("secret"),
            "{shown}"
        );
    }
}

#[tokio::test]
async fn refusal_before_first_update_answers_the_request_and_leaves_history_untouched() {
    let server = serve(|context, updater| async move {
        if context.task.is_none() {
            return Ok(updater.require_input("Send a picture").await?);
        }
        Err(A2aError::content_type_not_supported("text/plain").into())
    })
    .await;
    // A new interaction refused: the error answers, no task exists.
    let refused = serve(|_context, _updater| async move {
        Err(ExecutorError::Refuse(A2aError::content_type_not_supported(
            "text/plain",
        )))
    })
    .await;
    let error = refused
        .call_err("SendMessage", send_params("hi", json!({})))
        .await;
    assert_eq!(error["code"], -32005);
    assert_eq!(refused.call("ListTasks", json!({})).await["totalSize"], 0);

    // A follow-up refused: the error answers, the message leaves the history again.
    let task = input_required_task(&server).await;
    let before = server.call("GetTask", json!({"id": task["id"]})).await;
    let error = server
        .call_err(
            "SendMessage",
            send_params("just text", json!({"taskId": task["id"]})),
        )
        .await;
    assert_eq!(error["code"], -32005);
    let after = server.call("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(after["history"], before["history"]);
    assert_eq!(state(&after), "TASK_STATE_INPUT_REQUIRED");
}

#[tokio::test]
async fn a_refusal_after_an_update_fails_the_task_instead() {
    let server = serve(|_context, updater| async move {
        updater.working(()).await?;
        Err(A2aError::unsupported_operation("changed my mind").into())
    })
    .await;
    let result = server
        .call("SendMessage", send_params("x", json!({})))
        .await;
    assert_eq!(state(&result["task"]), "TASK_STATE_FAILED");
    assert_eq!(
        result["task"]["status"]["message"]["parts"][0]["text"],
        "changed my mind"
    );
}

#[tokio::test]
async fn a_new_interaction_with_no_update_is_an_invalid_agent_response() {
    let server = serve(|_context, _updater| async move { Ok(()) }).await;
    let error = server
        .call_err("SendMessage", send_params("x", json!({})))
        .await;
    assert_eq!(error["code"], -32006);
}

#[tokio::test]
async fn a_follow_up_with_no_update_answers_with_the_waiting_task_ending_with_the_new_message() {
    let server = serve(|context, updater| async move {
        if context.task.is_none() {
            updater.require_input("Which city?").await?;
        }
        Ok(())
    })
    .await;
    let task = input_required_task(&server).await;
    let result = server
        .call(
            "SendMessage",
            send_params("Izmir", json!({"taskId": task["id"]})),
        )
        .await;
    assert_eq!(state(&result["task"]), "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(history_texts(&result["task"]).last().unwrap(), "Izmir");
}

#[tokio::test]
async fn return_immediately_answers_at_the_first_update() {
    let (server, release) =
        serve_gated(TaskState::Working, Some("started"), Some("finished")).await;
    let mut params = send_params("x", json!({}));
    params["configuration"] = json!({"returnImmediately": true});
    let result = server.call("SendMessage", params).await;
    let task = &result["task"];
    assert_eq!(state(task), "TASK_STATE_WORKING");
    release.notify_one();
    for _ in 0..100 {
        let stored = server.call("GetTask", json!({"id": task["id"]})).await;
        if state(&stored) == "TASK_STATE_COMPLETED" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the task never completed in the background");
}

#[tokio::test]
async fn a_legacy_blocking_false_means_return_immediately() {
    let (server, release) = serve_gated(TaskState::Working, None, None).await;
    let mut params = send_params("x", json!({}));
    params["configuration"] = json!({"blocking": false});
    let result = server.call("SendMessage", params).await;
    assert_eq!(state(&result["task"]), "TASK_STATE_WORKING");
    release.notify_one();
}

#[tokio::test]
async fn return_immediately_on_a_follow_up_waits_for_the_executor_to_change_the_task() {
    let server = serve(|context, updater| async move {
        if context.task.is_none() {
            return Ok(updater.require_input("Which city?").await?);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        updater.working("Looking it up").await?;
        updater.complete("Sunny").await?;
        Ok(())
    })
    .await;
    let task = input_required_task(&server).await;
    let mut params = send_params("Izmir", json!({"taskId": task["id"]}));
    params["configuration"] = json!({"returnImmediately": true});
    let result = server.call("SendMessage", params).await;
    assert_ne!(state(&result["task"]), "TASK_STATE_INPUT_REQUIRED");
}

#[tokio::test]
async fn blocking_send_returns_at_an_interrupted_state_while_the_turn_goes_on() {
    let (server, release) = serve_gated(
        TaskState::AuthRequired,
        Some("Approve in your banking app"),
        Some("Paid"),
    )
    .await;
    let result = server
        .call("SendMessage", send_params("pay", json!({})))
        .await;
    assert_eq!(state(&result["task"]), "TASK_STATE_AUTH_REQUIRED");
    // The turn still runs: a follow-up message to the task is refused until it ends.
    let error = server
        .call_err(
            "SendMessage",
            send_params("hurry", json!({"taskId": result["task"]["id"]})),
        )
        .await;
    assert_eq!(error["code"], -32004);
    release.notify_one();
}

#[tokio::test]
async fn a_message_to_a_working_task_is_unsupported() {
    let (server, release) = serve_gated(TaskState::Working, None, None).await;
    let mut params = send_params("x", json!({}));
    params["configuration"] = json!({"returnImmediately": true});
    let task = server.call("SendMessage", params).await["task"].clone();
    let error = server
        .call_err(
            "SendMessage",
            send_params("again", json!({"taskId": task["id"]})),
        )
        .await;
    assert_eq!(error["code"], -32004);
    release.notify_one();
}

#[tokio::test]
async fn a_message_to_a_finished_task_is_unsupported() {
    let server = serve(ask_then_complete).await;
    let task = input_required_task(&server).await;
    let done = server
        .call(
            "SendMessage",
            send_params("Izmir", json!({"taskId": task["id"]})),
        )
        .await;
    assert_eq!(state(&done["task"]), "TASK_STATE_COMPLETED");
    assert_eq!(
        done["task"]["status"]["message"]["parts"][0]["text"],
        "Sunny in Izmir."
    );
    let error = server
        .call_err(
            "SendMessage",
            send_params("again", json!({"taskId": task["id"]})),
        )
        .await;
    assert_eq!(error["code"], -32004);
}

#[tokio::test]
async fn a_message_naming_another_context_is_invalid_params() {
    let server = serve(ask_then_complete).await;
    let task = input_required_task(&server).await;
    let error = server
        .call_err(
            "SendMessage",
            send_params(
                "Izmir",
                json!({"taskId": task["id"], "contextId": "someone-elses"}),
            ),
        )
        .await;
    assert_eq!(error["code"], -32602);
}

#[tokio::test]
async fn a_message_to_an_unknown_task_is_task_not_found() {
    let server = serve(ask_then_complete).await;
    let error = server
        .call_err(
            "SendMessage",
            send_params("x", json!({"taskId": "no-such-task"})),
        )
        .await;
    assert_eq!(error["code"], -32001);
}

#[tokio::test]
async fn an_async_timeout_fails_overrunning_work() {
    let mut config = ServerConfig::default();
    config.async_timeout = Duration::from_millis(100);
    let builder = a2a_server::A2aServer::builder(
        standard_card(),
        crate::support::FnExecutor(|context: RequestContext, updater: TaskUpdater| async move {
            updater.working(()).await?;
            // Honours cancellation, as executors must.
            context.cancellation.cancelled().await;
            Ok(())
        }),
    )
    .config(config);
    let server = TestServer::start_with(builder).await;
    let result = server
        .call("SendMessage", send_params("x", json!({})))
        .await;
    assert_eq!(state(&result["task"]), "TASK_STATE_FAILED");
}

#[tokio::test]
async fn progress_helpers_report_through_the_current_turn() {
    let server = serve(|_context, _updater| async move {
        progress::emit("step 1").await.unwrap();
        progress::emit_artifact(Artifact::from_text("a"), false, true)
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
    let result = server
        .call("SendMessage", send_params("x", json!({})))
        .await;
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

/// An executor with a cancel hook that refuses shipped orders.
struct Shop;

#[async_trait::async_trait]
impl AgentExecutor for Shop {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        updater.working("Packing").await?;
        context.cancellation.cancelled().await;
        let late = updater.working("still packing").await;
        assert!(late.is_err(), "updates after cancel are rejected");
        Ok(())
    }

    async fn cancel(&self, request: CancelRequest<'_>) -> Result<(), ExecutorError> {
        match request.task.history[0].text().as_str() {
            "shipped" => Err(A2aError::task_not_cancelable(request.task.id.as_str())
                .with_metadata("why", "shipped")
                .into()),
            "broken hook" => Err(ExecutorError::failed("database unreachable")),
            _ => Ok(()),
        }
    }
}

async fn working_task(server: &TestServer, text: &str) -> Value {
    let mut params = send_params(text, json!({}));
    params["configuration"] = json!({"returnImmediately": true});
    server.call("SendMessage", params).await["task"].clone()
}

#[tokio::test]
async fn cancel_calls_the_hook_marks_the_task_canceled_and_aborts_the_running_turn() {
    let server = TestServer::start(Shop).await;
    let task = working_task(&server, "order 1").await;
    let canceled = server.call("CancelTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&canceled), "TASK_STATE_CANCELED");
    tokio::time::sleep(Duration::from_millis(50)).await;
    let stored = server.call("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&stored), "TASK_STATE_CANCELED");
}

#[tokio::test]
async fn a_cancel_hook_refusal_answers_and_keeps_the_task() {
    let server = TestServer::start(Shop).await;
    let task = working_task(&server, "shipped").await;
    let error = server
        .call_err("CancelTask", json!({"id": task["id"]}))
        .await;
    assert_eq!(error["code"], -32002);
    let stored = server.call("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&stored), "TASK_STATE_WORKING");
    let broken = working_task(&server, "broken hook").await;
    let error = server
        .call_err("CancelTask", json!({"id": broken["id"]}))
        .await;
    assert_eq!(error["code"], -32603);
}

#[tokio::test]
async fn cancel_of_a_terminal_task_is_not_cancelable_unless_idempotent_cancel_is_on() {
    let server = TestServer::start(Shop).await;
    let task = working_task(&server, "order").await;
    server.call("CancelTask", json!({"id": task["id"]})).await;
    let error = server
        .call_err("CancelTask", json!({"id": task["id"]}))
        .await;
    assert_eq!(error["code"], -32002);

    let mut config = ServerConfig::default();
    config.idempotent_cancel = true;
    let lenient = TestServer::start_with(
        a2a_server::A2aServer::builder(standard_card(), Shop).config(config),
    )
    .await;
    let task = working_task(&lenient, "order").await;
    lenient.call("CancelTask", json!({"id": task["id"]})).await;
    let again = lenient.call("CancelTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&again), "TASK_STATE_CANCELED");
}

#[tokio::test]
async fn cancel_of_a_task_waiting_for_input_needs_no_running_turn() {
    let server = serve(ask_then_complete).await;
    let task = input_required_task(&server).await;
    let canceled = server.call("CancelTask", json!({"id": task["id"]})).await;
    assert_eq!(state(&canceled), "TASK_STATE_CANCELED");
    let error = server
        .call_err("CancelTask", json!({"id": "missing"}))
        .await;
    assert_eq!(error["code"], -32001);
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
async fn client_message_shape_is_checked() {
    let server = serve(ask_then_complete).await;
    let cases = [
        json!({"message": {"role": "ROLE_USER", "parts": [{"text": "no id"}]}}),
        json!({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}]}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": []}}),
    ];
    for params in cases {
        let error = server.call_err("SendMessage", params.clone()).await;
        assert_eq!(error["code"], -32602, "{params}");
    }
    let mut lenient = ServerConfig::default();
    lenient.lenient_message_id = true;
    let server = TestServer::start_with(
        a2a_server::A2aServer::builder(
            standard_card(),
            crate::support::FnExecutor(ask_then_complete),
        )
        .config(lenient),
    )
    .await;
    let result = server
        .call(
            "SendMessage",
            json!({"message": {"role": "ROLE_USER", "parts": [{"text": "no id"}]}}),
        )
        .await;
    assert!(
        result["task"]["history"][0]["messageId"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
}

#[tokio::test]
async fn referenced_tasks_reach_the_executor() {
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let server = serve(move |context, updater| {
        let sender = sender.clone();
        async move {
            sender
                .send(
                    context
                        .referenced_tasks
                        .iter()
                        .map(|task| task.id.to_string())
                        .collect::<Vec<_>>(),
                )
                .unwrap();
            updater.complete(()).await?;
            Ok(())
        }
    })
    .await;
    let first = server
        .call("SendMessage", send_params("a", json!({})))
        .await;
    let _ = receiver.recv().await;
    let id = first["task"]["id"].clone();
    server
        .call(
            "SendMessage",
            send_params("b", json!({"referenceTaskIds": [id, "unknown"]})),
        )
        .await;
    assert_eq!(receiver.recv().await.unwrap(), [id.as_str().unwrap()]);
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
    let result = server
        .call("SendMessage", send_params("x", json!({})))
        .await;
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
    let result = server
        .call("SendMessage", send_params("x", json!({})))
        .await;
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
    let task = server
        .call("SendMessage", send_params("first", json!({})))
        .await;
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
    let task = server
        .call("SendMessage", send_params("go", json!({})))
        .await;
    assert_eq!(state(&task["task"]), "TASK_STATE_FAILED", "{task}");
    assert!(
        task["task"]["artifacts"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "{task}"
    );
}
