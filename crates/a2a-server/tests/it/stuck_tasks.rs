//! `ServerConfig::stuck_task_ttl`: a task left WORKING with no turn running it is failed
//! after the TTL and its subscribers see the FAILED event; a task whose turn still runs is
//! never failed by the sweep, nor is one whose turn waits in the queue for a slot; a push
//! receiver of a stuck task is told it failed.

use std::sync::Arc;
use std::time::Duration;

use a2a_server::store::{Expected, InMemoryTaskStore, TaskScope, TaskStore};
use a2a_server::{A2aServer, ServerConfig, TaskUpdater};
use a2a_types::{ContextId, Task, TaskId, TaskState};
use serde_json::json;

use crate::push::receiver::Receiver;
use crate::streaming::{Binding, Sse, kind, state, streaming_card};
use crate::support::{FnExecutor, Probe, TestServer, eventually, send_params, start_blocking};

fn with_ttl(ttl: Duration) -> ServerConfig {
    let mut config = ServerConfig::default();
    config.stuck_task_ttl = ttl;
    config
}

#[tokio::test]
async fn a_working_task_without_a_turn_is_failed_after_the_ttl_and_its_subscriber_told() {
    let store = Arc::new(InMemoryTaskStore::new());
    // A task WORKING in the store with no turn in this process (as after a turn that was
    // lost), its status stamped now.
    let task = Task::new(
        TaskId::generate(),
        ContextId::generate(),
        TaskState::Working,
    );
    store
        .save(&TaskScope::default(), &task, Expected::Absent, &[])
        .await
        .unwrap();
    let executor = FnExecutor(|_context, updater: TaskUpdater| async move {
        updater.complete("done").await?;
        Ok(())
    });
    let builder = A2aServer::builder(streaming_card(), executor)
        .config(with_ttl(Duration::from_millis(800)))
        .shared_store(store);
    let server = TestServer::start_with(builder).await;

    let id = task.id.as_str();
    let mut stream = Sse::open(Binding::JsonRpc.subscribe(&server, id).await);
    let snapshot = Binding::JsonRpc.payload(&stream.next_event().await.unwrap());
    assert_eq!(state(&snapshot), "TASK_STATE_WORKING", "{snapshot}");

    let failed = Binding::JsonRpc.payload(&stream.next_event().await.unwrap());
    assert_eq!(kind(&failed), "statusUpdate", "{failed}");
    assert_eq!(state(&failed), "TASK_STATE_FAILED", "{failed}");
    assert_eq!(
        failed["statusUpdate"]["status"]["message"]["parts"][0]["text"],
        "the task made no progress for 800ms and was failed",
        "{failed}"
    );
    assert!(stream.next_event().await.is_none(), "the stream ends");

    let stored = server.call("GetTask", json!({"id": id})).await;
    assert_eq!(stored["status"]["state"], "TASK_STATE_FAILED", "{stored}");
}

#[tokio::test]
async fn a_task_whose_turn_still_runs_past_the_ttl_is_not_failed() {
    let executor = FnExecutor(|_context, updater: TaskUpdater| async move {
        updater.working(()).await?;
        tokio::time::sleep(Duration::from_millis(1200)).await;
        updater.complete("done").await?;
        Ok(())
    });
    let builder =
        A2aServer::builder(streaming_card(), executor).config(with_ttl(Duration::from_millis(200)));
    let server = TestServer::start_with(builder).await;

    let result = server
        .call("SendMessage", send_params("slow", json!({})))
        .await;
    assert_eq!(
        result["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{result}"
    );
    assert_eq!(
        result["task"]["status"]["message"]["parts"][0]["text"], "done",
        "{result}"
    );
}

#[tokio::test]
async fn a_task_queued_for_a_slot_past_the_ttl_is_not_failed() {
    let probe = Probe::default();
    let mut config = with_ttl(Duration::from_millis(200));
    config.max_concurrent_tasks = 1;
    config.task_queue_size = 1;
    let server = Arc::new(
        TestServer::start_with(
            A2aServer::builder(streaming_card(), probe.executor()).config(config),
        )
        .await,
    );
    let held = start_blocking(&server, &probe, "hold").await;
    let queued = server.send_returning_immediately("queued").await;
    assert_eq!(
        queued["task"]["status"]["state"], "TASK_STATE_SUBMITTED",
        "{queued}"
    );
    let queued_id = queued["task"]["id"].as_str().unwrap().to_owned();

    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(server.state_of(&queued_id).await, "TASK_STATE_SUBMITTED");

    probe.release();
    let held = held.await.unwrap();
    assert_eq!(
        held["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{held}"
    );
    eventually("the queued task to run and complete", || {
        let server = Arc::clone(&server);
        let id = queued_id.clone();
        async move { server.state_of(&id).await == "TASK_STATE_COMPLETED" }
    })
    .await;
}

#[tokio::test]
async fn the_push_receiver_of_a_stuck_task_is_told_it_failed() {
    let store = Arc::new(InMemoryTaskStore::new());
    let task = Task::new(
        TaskId::generate(),
        ContextId::generate(),
        TaskState::Working,
    );
    store
        .save(&TaskScope::default(), &task, Expected::Absent, &[])
        .await
        .unwrap();
    let receiver = Receiver::start(vec![]).await;
    let mut config = crate::push::push_config();
    config.stuck_task_ttl = Duration::from_millis(800);
    let mut card = streaming_card();
    card.capabilities.push_notifications = Some(true);
    let executor = FnExecutor(|_context, updater: TaskUpdater| async move {
        updater.complete("done").await?;
        Ok(())
    });
    let builder = A2aServer::builder(card, executor)
        .config(config)
        .shared_store(store);
    let server = TestServer::start_with(builder).await;
    server
        .call(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task.id.as_str(), "url": receiver.url("/stuck")}),
        )
        .await;

    let failed = crate::push::until("the FAILED event at the webhook", || {
        let bodies = receiver.bodies();
        async move {
            bodies
                .into_iter()
                .find(|body| body["statusUpdate"]["status"]["state"] == "TASK_STATE_FAILED")
        }
    })
    .await;
    assert_eq!(
        failed["statusUpdate"]["status"]["message"]["parts"][0]["text"],
        "the task made no progress for 800ms and was failed",
        "{failed}"
    );
}
