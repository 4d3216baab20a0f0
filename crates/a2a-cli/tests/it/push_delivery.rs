//! `a2a serve --push-notifications` end to end (issue 8): deliveries arrive at `a2a webhook`
//! signed with a key the agent publishes; with SQLite a delivery still pending when the
//! server is killed is made after it restarts.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{Server, a2a};

/// A running `a2a webhook`; its stdout lines come through a channel.
struct Webhook {
    child: Child,
    url: String,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Webhook {
    fn start(args: &[&str]) -> Self {
        let mut child = a2a()
            .args(["webhook", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        let first = lines.recv_timeout(Duration::from_secs(20)).unwrap();
        let url = first.strip_prefix("listening on ").unwrap().to_owned();
        Self { child, url, lines }
    }

    fn line(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(20))
            .expect("a delivery line")
    }
}

impl Drop for Webhook {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn inline_webhook(url: &str, token: &str) -> Value {
    json!({"configuration": {"taskPushNotificationConfig": {"url": url, "token": token}}})
}

#[tokio::test]
async fn deliveries_reach_a2a_webhook_signed_and_with_their_token() {
    let server = Server::start(&["--push-notifications", "--allow-local-webhooks"]);
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["capabilities"]["pushNotifications"], true);
    assert!(
        server.log().contains("local webhooks are allowed"),
        "{}",
        server.log()
    );
    let webhook = Webhook::start(&["--jwks", &server.url, "--token", "tok-7"]);
    let task = server
        .send(
            "m-1",
            "hello hooks",
            inline_webhook(&format!("{}/hook", webhook.url), "tok-7"),
        )
        .await;
    assert_eq!(task["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let mut lines = Vec::new();
    while !lines
        .last()
        .is_some_and(|line: &String| line.contains("COMPLETED"))
    {
        lines.push(webhook.line());
    }
    assert!(lines.len() >= 2, "{lines:#?}");
    for line in &lines {
        assert!(line.contains("signature: ok"), "{line}");
        assert!(line.contains("token: ok"), "{line}");
        assert!(line.ends_with("-> 200"), "{line}");
    }
    assert!(
        lines.iter().any(|line| line.contains("artifact")),
        "{lines:#?}"
    );
}

/// A receiver that answers 503 until `open` is set, recording each hit's body and status.
async fn gated_receiver(open: Arc<Mutex<bool>>, hits: Arc<Mutex<Vec<(u16, Value)>>>) -> String {
    let router = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: axum::body::Bytes| {
            let (open, hits) = (Arc::clone(&open), Arc::clone(&hits));
            async move {
                let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let status = if *open.lock().unwrap() { 200 } else { 503 };
                hits.lock().unwrap().push((status, body));
                StatusCode::from_u16(status).unwrap()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

#[tokio::test]
async fn a_pending_delivery_survives_a_crash_with_sqlite() {
    let dir = std::env::temp_dir().join(format!("a2a-push-restart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = format!("sqlite://{}", dir.join("push.db").display());
    let args = [
        "--store",
        store.as_str(),
        "--push-notifications",
        "--allow-local-webhooks",
        "--push-retry-backoff",
        "3000",
        // The kill may come before the failed attempt is recorded, while this instance
        // still holds the webhook: the restarted one takes it over once the hold runs out.
        "--push-timeout",
        "2000",
        "--push-claim-ttl",
        "4000",
    ];
    let open = Arc::new(Mutex::new(false));
    let hits = Arc::new(Mutex::new(Vec::new()));
    let url = gated_receiver(Arc::clone(&open), Arc::clone(&hits)).await;

    let mut server = Server::start(&args);
    let task = server
        .send("m-1", "survive", inline_webhook(&url, "t"))
        .await;
    let task_id = task["task"]["id"].as_str().unwrap().to_owned();
    // The first attempt fails with 503; the retry is 3 s away when the server dies.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while hits.lock().unwrap().is_empty() {
        assert!(std::time::Instant::now() < deadline, "no first attempt");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.kill();
    let failed = hits.lock().unwrap().len();
    *open.lock().unwrap() = true;

    let restarted = Server::start(&args);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let delivered: Vec<Value> = hits
            .lock()
            .unwrap()
            .iter()
            .filter(|(status, _)| *status == 200)
            .map(|(_, body)| body.clone())
            .collect();
        let done = delivered.iter().any(|body| {
            body.pointer("/statusUpdate/status/state") == Some(&json!("TASK_STATE_COMPLETED"))
        });
        if done {
            // Every delivered event is this task's, each once.
            let mut seen = Vec::new();
            for body in &delivered {
                assert!(body.to_string().contains(&task_id), "{body}");
                assert!(!seen.contains(body), "delivered twice: {body}");
                seen.push(body.clone());
            }
            assert!(failed >= 1);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not delivered after the restart: {:?}\n{}",
            hits.lock().unwrap(),
            restarted.log()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(restarted);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn max_push_configs_per_task_limits_the_webhooks_of_one_task() {
    let server = Server::start_command(
        {
            let mut command = a2a();
            command.env("A2A_MAX_PUSH_CONFIGS_PER_TASK", "1");
            command
        },
        &["--push-notifications", "--allow-local-webhooks"],
    );
    let task = server.send("m-limit", "hi", json!({})).await;
    let id = task["task"]["id"].as_str().unwrap().to_owned();
    server
        .call(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "id": "one", "url": "http://127.0.0.1:9/one"}),
        )
        .await;
    let refused = server
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "id": "two", "url": "http://127.0.0.1:9/two"}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    // Replacing the one it has is still allowed.
    server
        .call(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "id": "one", "url": "http://127.0.0.1:9/again"}),
        )
        .await;
}
