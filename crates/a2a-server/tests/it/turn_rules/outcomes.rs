//! What a turn makes of the task: the first update creates it, returning ends or leaves it
//! waiting, errors fail it, and a refusal answers the request while nothing was updated.

use std::sync::Arc;
use std::time::Duration;

use a2a_server::ExecutorError;
use a2a_types::{A2aError, Artifact};
use serde_json::json;
use tokio::sync::{Notify, mpsc};

use super::{history_texts, input_required_task, send_text, state};
use crate::support::{send_params, serve};

#[tokio::test]
async fn new_interaction_creates_its_task_at_the_first_update_with_the_message_in_history() {
    let server = serve(|_context, updater| async move {
        updater.working("Thinking…").await?;
        updater.complete("Done").await?;
        Ok(())
    })
    .await;
    let result = send_text(&server, "hello").await;
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
    let result = send_text(&server, "hi").await;
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
    let result = send_text(&server, "go").await;
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
    let result = send_text(&server, "x").await;
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
    let result = send_text(&server, "x").await;
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
    let result = send_text(&server, "x").await;
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
    let result = send_text(&server, "x").await;
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
        let result = send_text(&server, text).await;
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
    let result = send_text(&server, "x").await;
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
