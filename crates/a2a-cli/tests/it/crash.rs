//! Crash safety of `a2a serve` on SQLite (issue 6): the server is killed with SIGKILL
//! under load and restarted on the same file; every task a client saw acknowledged is there
//! and consistent, and tasks cut off mid-turn are failed once their lease expires. Also the
//! default store: a SQLite file in the working directory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Server, a2a, eventually, user_message};

/// A fresh directory under the target dir, removed on drop.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "a2a-cli-{name}-{}-{}",
            std::process::id(),
            uuid_like()
        ));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn uuid_like() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// What a client saw acknowledged: the task, and the state and artifact text it was told.
#[derive(Debug, Clone)]
struct Ack {
    state: String,
    text: String,
}

async fn send_blocking(http: &reqwest::Client, url: &str, text: &str) -> Option<(String, Ack)> {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": user_message(&format!("m-{text}"), text)},
    });
    let response = http
        .post(format!("{url}/"))
        .header("A2A-Version", "1.0")
        .json(&body)
        .send()
        .await
        .ok()?;
    let value: Value = response.json().await.ok()?;
    let task = &value["result"]["task"];
    let id = task["id"].as_str()?.to_owned();
    let ack = Ack {
        state: task["status"]["state"].as_str()?.to_owned(),
        text: task["artifacts"][0]["parts"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    };
    Some((id, ack))
}

/// Opens a stream and returns the task id of its first event (the acknowledgement), then
/// drops the stream.
async fn stream_first_event(http: &reqwest::Client, url: &str, text: &str) -> Option<String> {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
        "params": {"message": user_message(&format!("s-{text}"), text)},
    });
    let mut response = http
        .post(format!("{url}/"))
        .header("A2A-Version", "1.0")
        .header("Accept", "text/event-stream")
        .json(&body)
        .send()
        .await
        .ok()?;
    let mut buffer = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        buffer.extend_from_slice(&chunk);
        let text = String::from_utf8_lossy(&buffer).into_owned();
        if let Some(end) = text.find("\n\n") {
            let data = text[..end]
                .lines()
                .find_map(|line| line.strip_prefix("data:"))?;
            let value: Value = serde_json::from_str(data.trim()).ok()?;
            return value["result"]["task"]["id"].as_str().map(str::to_owned);
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_under_load_keeps_every_acknowledged_task() {
    let dir = TempDir::new("crash");
    let store = format!("sqlite://{}", dir.0.join("tasks.db").display());
    let args = ["--store", store.as_str(), "--lease-ttl", "1s"];
    let mut server = Server::start(&args);
    let url = server.url.clone();

    let acked: Arc<Mutex<HashMap<String, Ack>>> = Arc::default();
    let streamed: Arc<Mutex<Vec<String>>> = Arc::default();
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let mut workers = Vec::new();
    for worker in 0..16 {
        let (acked, streamed, http, url) = (
            Arc::clone(&acked),
            Arc::clone(&streamed),
            http.clone(),
            url.clone(),
        );
        workers.push(tokio::spawn(async move {
            for round in 0.. {
                let text = format!("w{worker}-r{round}");
                if worker % 4 == 0 {
                    match stream_first_event(&http, &url, &text).await {
                        Some(id) => streamed.lock().unwrap().push(id),
                        None => return,
                    }
                } else {
                    match send_blocking(&http, &url, &text).await {
                        Some((id, ack)) => {
                            acked.lock().unwrap().insert(id, ack);
                        }
                        None => return,
                    }
                }
            }
        }));
    }
    // Let the load run, then kill the server in the middle of it.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    server.kill();
    for worker in workers {
        let _ = worker.await;
    }
    let acked = acked.lock().unwrap().clone();
    let streamed = streamed.lock().unwrap().clone();
    assert!(
        acked.len() > 100,
        "the load acknowledged {} tasks",
        acked.len()
    );

    let restarted = Server::start(&args);
    let mut present = 0;
    for (id, ack) in &acked {
        let response = restarted.rpc("GetTask", json!({"id": id})).await;
        let task = &response["result"];
        assert!(
            task.is_object(),
            "acknowledged task {id} is missing after the crash: {response}"
        );
        assert_eq!(task["status"]["state"], ack.state.as_str(), "{task}");
        assert_eq!(
            task["artifacts"][0]["parts"][0]["text"],
            ack.text.as_str(),
            "{task}"
        );
        assert_eq!(task["history"].as_array().map(Vec::len), Some(1), "{task}");
        present += 1;
    }
    // A stream's first event is an acknowledgement too: the task is stored, and whatever
    // the kill interrupted ends FAILED once the dead instance's lease expired.
    let mut settled = 0;
    for id in &streamed {
        let state = eventually(Duration::from_secs(10), || async {
            let response = restarted.rpc("GetTask", json!({"id": id})).await;
            let state = response["result"]["status"]["state"].as_str()?.to_owned();
            matches!(state.as_str(), "TASK_STATE_COMPLETED" | "TASK_STATE_FAILED").then_some(state)
        })
        .await;
        assert!(state.is_some(), "streamed task {id} is stored and settles");
        settled += 1;
    }
    eprintln!(
        "crash test: {} acknowledged SendMessage tasks, {present} present after SIGKILL and restart; \
         {} acknowledged streams, {settled} stored and settled",
        acked.len(),
        streamed.len()
    );
}

#[tokio::test]
async fn the_default_store_is_a_sqlite_file_in_the_working_directory() {
    let dir = TempDir::new("default-store");
    let mut command = a2a();
    command.current_dir(&dir.0);
    // A `--store…` flag keeps the test support from choosing memory; no `--store` itself,
    // so the default applies.
    let server = Server::start_command(command, &["--store-max-connections", "4"]);
    let task = server
        .call(
            "SendMessage",
            json!({"message": user_message("m-1", "kept")}),
        )
        .await;
    let id = task["task"]["id"].as_str().unwrap().to_owned();
    drop(server);
    assert!(
        dir.0.join("a2a.db").exists(),
        "a2a.db in the working directory"
    );

    let mut command = a2a();
    command.current_dir(&dir.0);
    let server = Server::start_command(command, &["--store-max-connections", "4"]);
    let again = server.call("GetTask", json!({"id": id})).await;
    assert_eq!(again["status"]["state"], "TASK_STATE_COMPLETED");
}

#[test]
fn an_unreachable_database_exits_3_with_one_line_and_no_password() {
    let output = a2a()
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--store",
            "postgres://agent:hunter2@127.0.0.1:1/tasks",
            "--store-connect-timeout",
            "2s",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("cannot open the task store"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_retried_after_sigkill_gets_the_task_the_killed_server_acknowledged() {
    let dir = TempDir::new("crash-retry");
    let store = format!("sqlite://{}", dir.0.join("tasks.db").display());
    let args = ["--store", store.as_str()];
    let mut server = Server::start(&args);
    let message_id = format!("retry-{}", uuid_like());
    let params = json!({"message": user_message(&message_id, "hello")});
    let acked = server.rpc("SendMessage", params.clone()).await;
    let task_id = acked["result"]["task"]["id"].clone();
    assert!(task_id.is_string(), "{acked}");
    // SIGKILL: no shutdown, nothing flushed on the way out.
    server.kill();

    let restarted = Server::start(&args);
    let retried = restarted.rpc("SendMessage", params).await;
    let task = &retried["result"]["task"];
    assert_eq!(task["id"], task_id, "{retried}");
    assert_eq!(task["metadata"]["duplicate_send"], true, "{retried}");
    assert_eq!(task["history"].as_array().map(Vec::len), Some(1), "{task}");
    assert_eq!(
        task["artifacts"].as_array().map(Vec::len),
        Some(1),
        "{task}"
    );
}
