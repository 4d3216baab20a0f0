//! `a2a serve` in production: health checks for orchestrators, `RUST_LOG`, one access-log
//! line per request, and no secret in any of it.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{SERVE_IN_MEMORY, Server, TempFile, a2a, eventually, user_message};

/// GETs `path` without credentials: its status and JSON body.
async fn probe(server: &Server, path: &str) -> (u16, Value) {
    let response = reqwest::get(format!("{}{path}", server.url)).await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// The access-log lines written so far.
fn access_lines(server: &Server) -> Vec<String> {
    server
        .log()
        .lines()
        .filter(|line| line.contains("a2a::access"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn health_checks_answer_without_the_api_key_the_rest_requires() {
    let server = Server::start(&["--api-key", "k-health-0123456789"]);
    assert_eq!(
        probe(&server, "/healthz").await,
        (200, json!({"status": "ok"}))
    );
    assert_eq!(
        probe(&server, "/readyz").await,
        (200, json!({"status": "ready"}))
    );
    let (status, _) = server.post("/", &json!({})).await;
    assert_eq!(status, 401, "the agent itself still needs the key");
}

#[tokio::test]
async fn readyz_reaches_the_sqlite_store() {
    let file = TempFile::new("tasks.db", "");
    let store = format!("sqlite://{}", file.path());
    let server = Server::start(&["--store", &store]);
    assert_eq!(
        probe(&server, "/readyz").await,
        (200, json!({"status": "ready"}))
    );
}

#[tokio::test]
async fn readyz_answers_503_while_running_turns_drain_after_sigterm() {
    let server = Server::start(&["--agent", "exec", "--", "sleep", "30"]);
    server
        .send(
            "m1",
            "x",
            json!({"configuration": {"returnImmediately": true}}),
        )
        .await;
    server.signal_terminate();
    let draining = eventually(Duration::from_secs(5), || async {
        Some(probe(&server, "/readyz").await).filter(|(status, _)| *status == 503)
    })
    .await
    .expect("/readyz answers 503 while the turn drains");
    assert_eq!(draining.1, json!({"status": "draining"}));
    assert_eq!(probe(&server, "/healthz").await.0, 200, "still alive");
}

#[tokio::test]
async fn rust_log_overrides_the_log_level() {
    let mut command = a2a();
    command.env("RUST_LOG", "warn,a2a::access=info");
    let server = Server::start_command(command, &["--log-level", "debug"]);
    server.rpc("GetTask", json!({"id": "nope"})).await;
    let lines = eventually(Duration::from_secs(5), || async {
        Some(access_lines(&server)).filter(|lines| !lines.is_empty())
    })
    .await
    .expect("the access log is on");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let log = server.log();
    assert!(
        !log.contains("serving"),
        "info lines are filtered out:\n{log}"
    );
    assert!(!log.contains("DEBUG"), "--log-level debug lost:\n{log}");
}

#[tokio::test]
async fn a_bad_rust_log_is_a_usage_error() {
    let output = a2a()
        .env("RUST_LOG", "=[bad")
        .args(SERVE_IN_MEMORY)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("RUST_LOG"), "{stderr}");
}

#[tokio::test]
async fn every_request_gets_one_access_line_and_no_secret_reaches_the_log() {
    let key = "k-access-0123456789";
    let server = Server::start(&["--api-key", key]);
    let http = reqwest::Client::new();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": user_message("m1", "hello")}});
    let sent: Value = http
        .post(format!("{}/", server.url))
        .header("A2A-Version", "1.0")
        .header("X-API-Key", key)
        .header("Authorization", "Bearer t-not-to-be-logged")
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let task_id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let rest = http
        .get(format!("{}/tasks/{task_id}", server.url))
        .header("A2A-Version", "1.0")
        .header("X-API-Key", key)
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 200);
    let refused = http
        .get(format!("{}/tasks/{task_id}", server.url))
        .header("A2A-Version", "1.0")
        .header("X-API-Key", "k-wrong-key-not-logged")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);

    let lines = eventually(Duration::from_secs(5), || async {
        Some(access_lines(&server)).filter(|lines| lines.len() >= 3)
    })
    .await
    .expect("three access lines");
    assert_eq!(lines.len(), 3, "{lines:?}");
    let expect = [
        ("method=POST", "operation=\"SendMessage\"", "status=200"),
        ("method=GET", "operation=\"GetTask\"", "status=200"),
        ("method=GET", "operation=\"-\"", "status=401"),
    ];
    for (line, (method, operation, status)) in lines.iter().zip(expect) {
        assert!(line.contains(" INFO "), "{line}");
        for field in [method, operation, status, "duration_ms="] {
            assert!(line.contains(field), "{field} in {line}");
        }
    }
    assert!(
        lines[0].contains(&format!("task_id=\"{task_id}\"")),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains(&format!("task_id=\"{task_id}\"")),
        "{}",
        lines[1]
    );
    let log = server.log();
    for secret in [key, "t-not-to-be-logged", "k-wrong-key-not-logged"] {
        assert!(!log.contains(secret), "{secret} in the log:\n{log}");
    }
}

#[tokio::test]
async fn a_grpc_call_gets_its_access_line_too() {
    let server = Server::start(&["--agent", "echo", "--grpc-bind", "127.0.0.1:0"]);
    let run = crate::client_mock::cli(&["send", &server.url, "hi", "--json", "--binding", "grpc"]);
    run.ok();
    let line = eventually(Duration::from_secs(5), || async {
        access_lines(&server)
            .into_iter()
            .find(|line| line.contains("A2AService/SendMessage"))
    })
    .await
    .unwrap_or_else(|| panic!("no gRPC access line:\n{}", server.log()));
    assert!(line.contains("operation=\"SendMessage\""), "{line}");
}
