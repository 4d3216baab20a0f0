//! Each example run over real sockets on 127.0.0.1. The example files are compiled in here
//! as modules, so each test calls the example's own `run` (its `main` only reads the
//! command line): `cargo test --workspace` is all it takes, and an example that stops
//! working fails here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a_client::{A2aClient, ResponseExt as _, message};
use a2a_run::approval::ApprovalKey;
use a2a_run::openai::OpenAiModel;
use a2a_test_support::model::{ScriptedModel, Step};
use a2a_types::{GetTaskRequest, SendMessageResponse, TaskState};
use serde_json::{Value, json};
use tokio::net::TcpListener;

// `dead_code`: each example's `main`; `unreachable_pub`: its `pub fn run`, in a module here.
#[allow(dead_code, unreachable_pub)]
#[path = "../examples/agent_run.rs"]
mod agent_run;
#[allow(dead_code, unreachable_pub)]
#[path = "../examples/client.rs"]
mod client;
#[allow(dead_code, unreachable_pub)]
#[path = "../examples/gateway.rs"]
mod gateway;
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

/// The first action a task's status lists (`status.message.parts[].data.actions`).
fn first_action(task: &a2a_types::Task) -> Value {
    let status = serde_json::to_value(&task.status).unwrap();
    let parts = status["message"]["parts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let actions = parts
        .iter()
        .find_map(|part| part["data"]["actions"].as_array().cloned());
    actions
        .and_then(|actions| actions.first().cloned())
        .unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_run_runs_an_mcp_tool_and_asks_before_sending_email() {
    // The tests' MCP server, over a directory of one file, and a model that calls its
    // `list_files`, then `send_email`, then answers.
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("notes.txt"), "buy milk").unwrap();
    let mcp = format!(
        "{} --root {}",
        a2a_test_support::mcp::server_binary().display(),
        root.path().display()
    );
    let model = ScriptedModel::start(vec![
        Step::tool_call("call-list", "list_files", json!({})),
        Step::tool_call(
            "call-mail",
            "send_email",
            json!({"to": "bob@example.com", "body": "buy milk"}),
        ),
        Step::text("done"),
    ])
    .await
    .unwrap();
    let (listener, url) = bind_local().await;
    let agent = agent_run::run(
        listener,
        OpenAiModel::new(model.base_url(), "scripted"),
        &mcp,
        ApprovalKey::random(),
    );

    let calls = async {
        let client = A2aClient::discover(&url).await.unwrap();
        let asked = task(
            client
                .send_message(message::request("mail Bob my files"))
                .await
                .unwrap(),
        );
        assert_eq!(asked.state(), Some(TaskState::InputRequired), "{asked:?}");
        let action = first_action(&asked);
        assert_eq!(action["kind"], "approval", "{action}");
        assert_eq!(action["toolName"], "send_email", "{action}");

        // Approve, with the request's token, in a data part of a message to the same task.
        let approval = json!({"approvalResponses": [
            {"approvalId": action["approvalId"], "approved": true, "token": action["token"]}
        ]});
        let answer = message::draft()
            .task_id(asked.id.clone())
            .data(approval)
            .into_request();
        task(client.send_message(answer).await.unwrap())
    };
    let done = tokio::select! {
        served = agent => panic!("the agent stopped: {served:?}"),
        done = calls => done,
    };
    assert_eq!(done.state(), Some(TaskState::Completed), "{done:?}");
    assert_eq!(done.artifacts[0].text(), "done");
    // The MCP tool ran before the model's second step; the email only once approved.
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests[1]["messages"].to_string().contains("notes.txt"),
        "{}",
        requests[1]
    );
    assert!(
        !requests[1]["messages"].to_string().contains("email sent"),
        "{}",
        requests[1]
    );
    assert!(
        requests[2]["messages"]
            .to_string()
            .contains("email sent to"),
        "{}",
        requests[2]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gateway_forwards_to_each_registered_agent() {
    let (listener, url) = bind_local().await;
    let gateway = gateway::start(listener).await.unwrap();
    assert_eq!(gateway, url);
    let answers = gateway::call_each(&gateway).await.unwrap();
    assert_eq!(answers, ["Hello, world!", "Bonjour, world!"]);
}
