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
