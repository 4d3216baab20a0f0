//! Each example run over real sockets on 127.0.0.1. The example files are compiled in here
//! as modules, so each test calls the example's own `run` (its `main` only reads the
//! command line): `cargo test --workspace` is all it takes, and an example that stops
//! working fails here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a_client::{A2aClient, ResponseExt as _, message};
use a2a_types::{GetTaskRequest, SendMessageResponse, TaskState};
use tokio::net::TcpListener;

// `dead_code`: each example's `main`; `unreachable_pub`: its `pub fn run`, in a module here.
#[allow(dead_code, unreachable_pub)]
#[path = "../examples/client.rs"]
mod client;
#[allow(dead_code, unreachable_pub)]
#[path = "../examples/hello_agent.rs"]
mod hello_agent;
#[allow(dead_code, unreachable_pub)]
#[path = "../examples/sqlite_agent.rs"]
mod sqlite_agent;
#[allow(dead_code, unreachable_pub)]
#[path = "../examples/streaming_agent.rs"]
mod streaming_agent;

/// A listener on a fresh port of 127.0.0.1, and its URL.
async fn bind_local() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    (listener, url)
}

/// The task `answer` carries.
fn task(answer: SendMessageResponse) -> a2a_types::Task {
    match answer {
        SendMessageResponse::Task(task) => task,
        SendMessageResponse::Message(message) => panic!("a message, not a task: {message:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hello_agent_answers_with_an_artifact() {
    let (listener, url) = bind_local().await;
    tokio::spawn(hello_agent::run(listener));

    let client = A2aClient::discover(&url).await.unwrap();
    let task = task(
        client
            .send_message(message::request("world"))
            .await
            .unwrap(),
    );
    assert_eq!(task.state(), Some(TaskState::Completed));
    assert_eq!(task.artifacts[0].text(), "Hello, world!");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_streams_the_streaming_agents_chunks() {
    let (listener, url) = bind_local().await;
    tokio::spawn(streaming_agent::run(listener));

    // The client example itself, against the streaming agent.
    let chunks = client::run(&url, "one two three").await.unwrap();
    assert_eq!(chunks, ["ONE", "TWO", "THREE"]);

    // The stored task holds the whole artifact, assembled from its chunks.
    let client = A2aClient::discover(&url).await.unwrap();
    let task = task(client.send_message(message::request("a b")).await.unwrap());
    assert_eq!(task.state(), Some(TaskState::Completed));
    assert_eq!(task.artifacts.len(), 1);
    assert_eq!(task.artifacts[0].parts.len(), 2);
    assert_eq!(task.artifacts[0].text(), "A\nB");
    let said = task.status.message.map(|message| message.text());
    assert_eq!(said.as_deref(), Some("All spelled out."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_agent_keeps_its_tasks_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let database = format!("sqlite://{}", dir.path().join("tasks.db").display());

    // The first life: one task, then a clean stop. (The agent runs beside the calls, on this
    // task: sqlx's futures cannot be proven `Send` to `tokio::spawn` here.)
    let (listener, url) = bind_local().await;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let shutdown = async {
        let _ = stopped.await;
    };
    let calls = async {
        let client = A2aClient::discover(&url).await.unwrap();
        let task = task(client.send_message(message::request("disk")).await.unwrap());
        stop.send(()).unwrap();
        task
    };
    let (served, task) = tokio::join!(
        sqlite_agent::run(listener, database.clone(), shutdown),
        calls
    );
    served.unwrap();
    assert_eq!(task.state(), Some(TaskState::Completed));
    assert!(
        A2aClient::discover(&url).await.is_err(),
        "the first life is over"
    );

    // The second life, on another port, over the same file: the task is still there.
    let (listener, url) = bind_local().await;
    let calls = async {
        let client = A2aClient::discover(&url).await.unwrap();
        let request = GetTaskRequest {
            tenant: String::new(),
            id: task.id.clone(),
            history_length: None,
        };
        client.get_task(request).await.unwrap()
    };
    let again = tokio::select! {
        served = sqlite_agent::run(listener, database, std::future::pending()) => panic!("stopped: {served:?}"),
        again = calls => again,
    };
    assert_eq!(again.state(), Some(TaskState::Completed));
    assert_eq!(again.artifacts[0].text(), "Hello, disk!");
}
