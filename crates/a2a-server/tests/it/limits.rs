//! Admission limits over the socket: one shared cap on running turns,
//! a queue for `returnImmediately` requests only, and slots given back on every path;
//! a full server answers ServerBusy.

use std::sync::Arc;

use a2a_types::error::ErrorKind;
use serde_json::{Value, json};

use crate::support::{
    Probe, eventually, hold_the_only_slot, send_params, send_params_returning, serve_probe,
    start_blocking,
};

fn assert_busy(error: &Value) {
    assert_eq!(error["code"], -32000, "{error}");
    assert_eq!(error["data"][0]["reason"], "SERVER_BUSY", "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_every_slot_taken_blocking_and_streaming_requests_are_refused_as_busy() {
    let probe = Probe::default();
    let (server, first) = hold_the_only_slot(&probe).await;

    let error = server
        .call_err("SendMessage", send_params("blocking", json!({})))
        .await;
    assert_busy(&error);

    let response = server.rest_send_message("rest").await;
    assert_eq!(response.status, 429, "{}", response.json());
    assert_eq!(
        response.json()["error"]["details"][0]["reason"],
        "SERVER_BUSY"
    );

    let error = server
        .streaming_refusal("s", "while every slot is taken")
        .await;
    assert_eq!(error.kind(), ErrorKind::ServerBusy);

    probe.release();
    let task = first.await.unwrap();
    assert_eq!(task["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        probe.ran(),
        ["hold"],
        "refused requests never reach the agent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_return_immediately_request_waits_as_submitted_and_runs_when_the_slot_frees() {
    let probe = Probe::default();
    let (server, first) = hold_the_only_slot(&probe).await;

    let queued = server.send_returning_immediately("queued").await;
    assert_eq!(queued["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
    assert_eq!(queued["task"]["history"][0]["parts"][0]["text"], "queued");
    let queued_id = queued["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(server.state_of(&queued_id).await, "TASK_STATE_SUBMITTED");

    let error = server
        .call_err("SendMessage", send_params_returning("beyond", true))
        .await;
    assert_busy(&error);
    assert_eq!(probe.ran(), ["hold"], "the queued task waits for the slot");

    probe.release();
    let task = first.await.unwrap();
    assert_eq!(task["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    eventually("the queued task to complete", || async {
        server.state_of(&queued_id).await == "TASK_STATE_COMPLETED"
    })
    .await;
    assert_eq!(probe.ran(), ["hold", "queued"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slot_is_given_back_after_the_agent_panics() {
    let probe = Probe::default();
    let server = serve_probe(&probe, 1, 0).await;
    let failed = server
        .call("SendMessage", send_params("panic", json!({})))
        .await;
    assert_eq!(failed["task"]["status"]["state"], "TASK_STATE_FAILED");

    // The slot is given back once the turn settled, just after the answer went out.
    eventually("a free slot after the panic", || async {
        let response = server
            .jsonrpc("SendMessage", send_params("after", json!({})))
            .await;
        response["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slot_is_given_back_after_the_task_is_canceled() {
    let probe = Probe::default();
    let server = serve_probe(&probe, 1, 0).await;
    let working = server.send_returning_immediately("hold").await;
    assert_eq!(working["task"]["status"]["state"], "TASK_STATE_WORKING");
    let task_id = working["task"]["id"].clone();
    assert_busy(
        &server
            .call_err("SendMessage", send_params("blocked", json!({})))
            .await,
    );

    let canceled = server.call("CancelTask", json!({"id": task_id})).await;
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
    eventually("a free slot after the cancel", || async {
        let response = server
            .jsonrpc("SendMessage", send_params("after", json!({})))
            .await;
        response["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    })
    .await;
    assert_eq!(probe.canceled(), ["hold"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_task_canceled_before_it_starts_never_runs() {
    let probe = Probe::default();
    let (server, first) = hold_the_only_slot(&probe).await;

    let queued = server.send_returning_immediately("queued").await;
    let queued_id = queued["task"]["id"].as_str().unwrap().to_owned();
    let canceled = server.call("CancelTask", json!({"id": queued_id})).await;
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");

    // Its place in the queue is given back too.
    let next_id = Arc::new(std::sync::Mutex::new(None));
    eventually("a free queue place after the cancel", || async {
        let response = server
            .jsonrpc("SendMessage", send_params_returning("next", true))
            .await;
        let id = response["result"]["task"]["id"].as_str().map(str::to_owned);
        let accepted = id.is_some();
        *next_id.lock().unwrap() = id;
        accepted
    })
    .await;
    let next_id = next_id.lock().unwrap().clone().unwrap();

    probe.release();
    first.await.unwrap();
    eventually("the next queued task to complete", || async {
        server.state_of(&next_id).await == "TASK_STATE_COMPLETED"
    })
    .await;
    assert_eq!(server.state_of(&queued_id).await, "TASK_STATE_CANCELED");
    assert_eq!(probe.ran(), ["hold", "next"], "the canceled task never ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_task_is_completed_by_a_reply_and_failed_by_an_agent_that_does_nothing() {
    let probe = Probe::default();
    let server = Arc::new(serve_probe(&probe, 1, 2).await);
    let first = start_blocking(&server, &probe, "hold").await;
    let mut ids = Vec::new();
    for text in ["reply", "idle"] {
        let queued = server.send_returning_immediately(text).await;
        assert_eq!(queued["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
        ids.push(queued["task"]["id"].clone());
    }
    probe.release();
    first.await.unwrap();

    let settled = |id: Value| {
        let server = Arc::clone(&server);
        async move {
            eventually("the queued task to settle", || async {
                server.state_of(id.as_str().unwrap()).await != "TASK_STATE_SUBMITTED"
            })
            .await;
            server.call("GetTask", json!({"id": id})).await
        }
    };
    // The request was answered with the task, so the reply becomes its final status message.
    let replied = settled(ids[0].clone()).await;
    assert_eq!(replied["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(replied["status"]["message"]["parts"][0]["text"], "replied");
    assert_eq!(replied["status"]["message"]["role"], "ROLE_AGENT");
    let idle = settled(ids[1].clone()).await;
    assert_eq!(idle["status"]["state"], "TASK_STATE_FAILED");
    assert_eq!(
        idle["status"]["message"]["parts"][0]["text"],
        "the agent neither replied nor updated the task"
    );
}
