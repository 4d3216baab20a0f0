//! Helpers of the client-command tests: running `a2a` to its end, and a scripted agent for
//! what `a2a serve` does not do (push configs) or does not show (the headers it received).

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::thread;

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::support::a2a;

/// What a finished `a2a` run left behind.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts exit code 0 and returns stdout.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.code,
            Some(0),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        &self.stdout
    }

    /// stdout as JSON lines.
    #[track_caller]
    pub fn json_lines(&self) -> Vec<Value> {
        self.ok()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
            .collect()
    }

    /// Asserts the exit code and a single `error: …` line on stderr; returns that line.
    #[track_caller]
    pub fn failed(&self, code: i32) -> &str {
        assert_eq!(
            self.code,
            Some(code),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line on stderr: {lines:?}");
        assert!(lines[0].starts_with("error: "), "{lines:?}");
        lines[0]
    }
}

/// Runs `a2a ARGS…` with `stdin` as its input.
pub fn cli_with_input(args: &[&str], stdin: &str) -> Run {
    use std::io::Write as _;
    let mut child = a2a()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_owned();
    let writer = thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// Runs `a2a ARGS…` with no input.
pub fn cli(args: &[&str]) -> Run {
    cli_with_env(args, &[])
}

/// As [`cli`], with these `A2A_*` (or other) environment variables set.
pub fn cli_with_env(args: &[&str], variables: &[(&str, &str)]) -> Run {
    let output = a2a()
        .args(args)
        .envs(variables.iter().copied())
        .output()
        .unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// A scripted JSON-RPC agent on its own thread and runtime: it records every request's
/// headers and answers the push-config methods like an agent that supports them.
pub struct MockAgent {
    pub url: String,
    seen: Arc<Mutex<Vec<HeaderMap>>>,
    _runtime: tokio::runtime::Runtime,
}

#[derive(Clone)]
struct Shared {
    url: String,
    seen: Arc<Mutex<Vec<HeaderMap>>>,
    /// Answer every call with HTTP 401 and a plain-text body.
    deny: bool,
}

impl MockAgent {
    /// An agent that answers.
    pub fn start() -> Self {
        Self::start_with(false)
    }

    /// An agent that answers every call with 401.
    pub fn denying() -> Self {
        Self::start_with(true)
    }

    fn start_with(deny: bool) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let address: SocketAddr = listener.local_addr().unwrap();
        let url = format!("http://{address}");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let shared = Shared {
            url: url.clone(),
            seen: Arc::clone(&seen),
            deny,
        };
        let router = axum::Router::new()
            .route("/.well-known/agent-card.json", get(card))
            .route("/", post(rpc))
            .route("/token", post(token))
            .with_state(shared);
        runtime.spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self {
            url,
            seen,
            _runtime: runtime,
        }
    }

    /// The headers of every request so far, card fetch included.
    pub fn headers(&self) -> Vec<HeaderMap> {
        self.seen.lock().unwrap().clone()
    }
}

async fn card(State(shared): State<Shared>, headers: HeaderMap) -> Json<Value> {
    shared.seen.lock().unwrap().push(headers);
    Json(json!({
        "name": "Mock agent",
        "description": "Scripted answers for the CLI tests",
        "version": "0.0.1",
        "supportedInterfaces": [
            {"url": shared.url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": false, "pushNotifications": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": []
    }))
}

/// An OAuth 2.0 token endpoint that hands out one fixed token.
async fn token(State(shared): State<Shared>, headers: HeaderMap) -> Json<Value> {
    shared.seen.lock().unwrap().push(headers);
    Json(json!({"access_token": "oauth-access-sekrit", "token_type": "Bearer", "expires_in": 3600}))
}

fn config(task_id: &str, id: &str) -> Value {
    json!({"id": id, "taskId": task_id, "url": "https://hooks.example/a2a",
           "token": "push-token-secret",
           "authentication": {"scheme": "Bearer", "credentials": "push-credentials-secret"}})
}

async fn rpc(
    State(shared): State<Shared>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    shared.seen.lock().unwrap().push(headers);
    if shared.deny {
        return (axum::http::StatusCode::UNAUTHORIZED, "go away").into_response();
    }
    let params = &request["params"];
    let task_id = params["taskId"].as_str().unwrap_or("t-1");
    let result = match request["method"].as_str().unwrap_or_default() {
        "CreateTaskPushNotificationConfig" => {
            let mut created = params.clone();
            if created.get("id").is_none() {
                created["id"] = json!("cfg-new");
            }
            created
        }
        "GetTaskPushNotificationConfig" => config(task_id, params["id"].as_str().unwrap_or("?")),
        "ListTaskPushNotificationConfigs" => {
            json!({"configs": [config(task_id, "cfg-1"), config(task_id, "cfg-2")]})
        }
        "DeleteTaskPushNotificationConfig" => json!({}),
        "SendMessage" => json!({"task": {
            "id": "t-mock", "contextId": "c-mock",
            "status": {"state": "TASK_STATE_COMPLETED",
                       "message": {"messageId": "m-a", "role": "ROLE_AGENT",
                                   "parts": [{"text": "mock answer"}]}}
        }}),
        method => {
            return Json(json!({"jsonrpc": "2.0", "id": request["id"],
                               "error": {"code": -32601, "message": format!("no {method}")}}))
            .into_response();
        }
    };
    Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": result})).into_response()
}
