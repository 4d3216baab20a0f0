//! `ServerConfig::blocking_timeout`: a blocking SendMessage past its time limit answers with
//! the task as it stands, and the turn goes on.

use std::time::{Duration, Instant};

use a2a_server::{A2aServer, ServerConfig};
use serde_json::json;

use crate::support::{FnExecutor, TestServer, eventually, send_params, standard_card};

#[tokio::test]
async fn a_blocking_send_past_its_time_limit_answers_with_the_working_task() {
    let mut config = ServerConfig::default();
    config.blocking_timeout = Duration::from_millis(300);
    let executor = FnExecutor(|_context, updater: a2a_server::TaskUpdater| async move {
        updater.working(()).await?;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        updater.complete("done").await?;
        Ok(())
    });
    let server =
        TestServer::start_with(A2aServer::builder(standard_card(), executor).config(config)).await;

    let started = Instant::now();
    let result = server
        .call("SendMessage", send_params("slow", json!({})))
        .await;
    assert!(
        started.elapsed() < Duration::from_millis(1200),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        result["task"]["status"]["state"], "TASK_STATE_WORKING",
        "{result}"
    );

    let id = result["task"]["id"].as_str().unwrap().to_owned();
    eventually("the turn to finish after the answer", || {
        let server = &server;
        let id = id.clone();
        async move {
            let task = server.call("GetTask", json!({"id": id})).await;
            task["status"]["state"] == "TASK_STATE_COMPLETED"
        }
    })
    .await;
}

#[tokio::test]
async fn a_blocking_send_within_its_time_limit_answers_with_the_finished_task() {
    let executor = FnExecutor(|_context, updater: a2a_server::TaskUpdater| async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        updater.complete("done").await?;
        Ok(())
    });
    let server = TestServer::start(executor).await;
    let result = server
        .call("SendMessage", send_params("quick", json!({})))
        .await;
    assert_eq!(
        result["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{result}"
    );
}

#[test]
fn blocking_calls_are_bounded_by_default() {
    let config = ServerConfig::default();
    assert_eq!(config.blocking_timeout, Duration::from_secs(30));
    assert_eq!(config.event_consumption_timeout, Duration::from_secs(5));
    assert_eq!(config.store_reconciliation_timeout, Duration::from_secs(1));
}

#[tokio::test]
async fn past_the_blocking_limit_the_answer_waits_for_the_first_event_within_the_consumption_limit()
{
    let mut config = ServerConfig::default();
    config.blocking_timeout = Duration::from_millis(200);
    config.event_consumption_timeout = Duration::from_secs(10);
    let executor = FnExecutor(|_context, updater: a2a_server::TaskUpdater| async move {
        // The first event comes after the blocking limit, well within the consumption one.
        tokio::time::sleep(Duration::from_millis(600)).await;
        updater.working(()).await?;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        updater.complete("done").await?;
        Ok(())
    });
    let server =
        TestServer::start_with(A2aServer::builder(standard_card(), executor).config(config)).await;
    let result = server
        .call("SendMessage", send_params("late start", json!({})))
        .await;
    assert_eq!(
        result["task"]["status"]["state"], "TASK_STATE_WORKING",
        "{result}"
    );
}

#[tokio::test]
async fn an_agent_silent_past_both_limits_is_answered_unavailable_and_its_turn_goes_on() {
    let mut config = ServerConfig::default();
    config.blocking_timeout = Duration::from_millis(200);
    config.event_consumption_timeout = Duration::from_millis(200);
    let executor = FnExecutor(|_context, updater: a2a_server::TaskUpdater| async move {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        updater.complete("done").await?;
        Ok(())
    });
    let server =
        TestServer::start_with(A2aServer::builder(standard_card(), executor).config(config)).await;
    let error = server
        .call_err("SendMessage", send_params("silent", json!({})))
        .await;
    assert_eq!(error["data"][0]["reason"], "UNAVAILABLE", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("blocking timeout (200 ms)"),
        "{error}"
    );
    eventually("the turn to finish after the answer", || {
        let server = &server;
        async move {
            let page = server.call("ListTasks", json!({})).await;
            page["tasks"][0]["status"]["state"] == "TASK_STATE_COMPLETED"
        }
    })
    .await;
}
