//! Starting the `a2a` binary and talking to it.

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use serde_json::{Value, json};

/// `a2a serve` without authentication, in memory, on a free local port: the arguments a
/// test adds its own to.
pub const SERVE_IN_MEMORY: [&str; 6] = [
    "serve",
    "--no-auth",
    "--store",
    "memory",
    "--bind",
    "127.0.0.1:0",
];

/// How long a server may take to print its `listening on` line before the test gives up.
const STARTUP_LIMIT: Duration = Duration::from_secs(20);

/// The binary with the test environment's `A2A_*` variables removed, so a developer's
/// settings cannot change what a test sees.
pub fn a2a() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_a2a"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("A2A_") {
            command.env_remove(name);
        }
    }
    command.stdin(Stdio::null());
    command
}

/// Runs `a2a ARGS…` to its end.
pub fn run(args: &[&str]) -> Output {
    a2a().args(args).output().unwrap()
}

/// A running `a2a serve`; stopped (SIGTERM, then SIGKILL) on drop.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// From spawn to the `listening on` line.
    pub startup: Duration,
    log: Arc<Mutex<String>>,
    http: reqwest::Client,
}

impl Server {
    /// `a2a serve --bind 127.0.0.1:0 ARGS…` (ARGS may end with `-- COMMAND…`).
    pub fn start(args: &[&str]) -> Self {
        Self::start_command(a2a(), args)
    }

    /// As [`Server::start`], with a prepared command (extra environment).
    pub fn start_command(mut command: Command, args: &[&str]) -> Self {
        command.args(["serve", "--shutdown-grace", "2s"]);
        if !args.contains(&"--bind") {
            command.args(["--bind", "127.0.0.1:0"]);
        }
        // Tests keep tasks in memory unless they test a store: the default SQLite file
        // would land in the working directory.
        if !args.iter().any(|arg| arg.starts_with("--store")) {
            command.args(["--store", "memory"]);
        }
        // Authentication is on by default and refuses everything until credentials are
        // configured; tests that are not about it run without.
        if !configures_auth(&command, args) {
            command.arg("--no-auth");
        }
        command.args(args);
        Self::spawn(command, &format!("a2a serve {args:?}"))
    }

    /// `a2a gateway --shutdown-grace 1s --bind 127.0.0.1:0 ARGS…` (unless ARGS name their
    /// own `--bind`), once it prints `listening on`.
    pub fn gateway(args: &[&str]) -> Self {
        let mut command = a2a();
        command.args(["gateway", "--shutdown-grace", "1s"]);
        if !args.contains(&"--bind") {
            command.args(["--bind", "127.0.0.1:0"]);
        }
        command.args(args);
        Self::spawn(command, &format!("a2a gateway {args:?}"))
    }

    /// Runs a prepared `a2a` command (`serve`, `gateway`, …) and waits for the
    /// `listening on` line it prints first; `what` names it in failures.
    pub fn spawn(mut command: Command, what: &str) -> Self {
        let started = Instant::now();
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let mut stderr = child.stderr.take().unwrap();
        let sink = Arc::clone(&log);
        thread::spawn(move || {
            let mut buffer = [0; 4096];
            while let Ok(read @ 1..) = stderr.read(&mut buffer) {
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buffer[..read]));
            }
        });
        let stdout = child.stdout.take().unwrap();
        let (first_line, receive) = mpsc::channel();
        thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let _ = first_line.send(lines.next().and_then(Result::ok));
            // Keep draining, so the server never blocks on a full pipe.
            for _ in lines {}
        });
        let line = receive.recv_timeout(STARTUP_LIMIT);
        let startup = started.elapsed();
        let Ok(Some(line)) = line else {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "no `listening on` line from `{what}`; stderr:\n{}",
                log.lock().unwrap()
            );
        };
        let url = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        Self {
            child,
            url,
            startup,
            log,
            http,
        }
    }

    /// What the server wrote to stderr so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// GETs `path` and returns the JSON body.
    pub async fn get(&self, path: &str) -> Value {
        let response = self
            .http
            .get(format!("{}{path}", self.url))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "GET {path}: {response:?}");
        response.json().await.unwrap()
    }

    /// POSTs a JSON body with `A2A-Version: 1.0` and returns the response body as text.
    pub async fn post(&self, path: &str, body: &Value) -> (u16, String) {
        let response = self
            .http
            .post(format!("{}{path}", self.url))
            .header("A2A-Version", "1.0")
            .json(body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    }

    /// Calls a JSON-RPC method at `/`; returns the whole response.
    pub async fn rpc(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let (_, text) = self.post("/", &body).await;
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
    }

    /// Calls a JSON-RPC method and returns its `result`.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        let response = self.rpc(method, params).await;
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}\nserver log:\n{}",
            self.log()
        );
        response["result"].clone()
    }

    /// SendMessage with `text`, `messageId` = `message_id`, and extra `params` members.
    pub async fn send(&self, message_id: &str, text: &str, extra: Value) -> Value {
        let mut params = json!({"message": user_message(message_id, text)});
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        self.call("SendMessage", params).await
    }

    /// POSTs `body` to a streaming endpoint and returns the events' JSON, in order.
    pub async fn stream(&self, path: &str, body: &Value) -> Vec<Value> {
        let (status, text) = self.post(path, body).await;
        assert_eq!(status, 200, "{text}");
        text.split("\n\n")
            .flat_map(|frame| frame.lines())
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| serde_json::from_str(data.trim()).unwrap())
            .collect()
    }
}

impl Server {
    /// Sends SIGTERM and waits up to 5 s for the exit; `None` if the server did not stop.
    #[allow(clippy::disallowed_methods)] // also runs in Drop, which cannot await
    pub fn terminate(&mut self) -> Option<ExitStatus> {
        let pid = Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        let _ = signal::kill(pid, Signal::SIGTERM);
        for _ in 0..100 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Server {
    /// Sends SIGTERM and returns at once: the server drains while the test watches.
    pub fn signal_terminate(&self) {
        let pid = Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        signal::kill(pid, Signal::SIGTERM).unwrap();
    }
}

impl Server {
    /// Kills the server with SIGKILL, as a crash would, and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGTERM first: the server then ends its turns and their commands itself.
        if self.terminate().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A user message as JSON.
pub fn user_message(message_id: &str, text: &str) -> Value {
    json!({"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}]})
}

/// The text of a task's artifact: its text parts joined with `\n`, as a client reads them;
/// empty when there is no such artifact yet.
pub fn artifact_text(artifact: &Value) -> String {
    artifact["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|part| part["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `protocolBinding` of each of a card's `supportedInterfaces`, in order.
pub fn interface_bindings(card: &Value) -> Vec<&str> {
    card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        // The 1.0 interfaces; the v0.3 twins the server adds follow them.
        .filter(|interface| interface["protocolVersion"] != "0.3")
        .map(|interface| interface["protocolBinding"].as_str().unwrap())
        .collect()
}

/// Polls `check` every 50 ms until it returns `Some`, for at most `limit`.
pub async fn eventually<T, F>(limit: Duration, mut check: impl FnMut() -> F) -> Option<T>
where
    F: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = check().await {
            return Some(value);
        }
        if Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A file in a fresh temp directory, removed on drop.
pub struct TempFile {
    pub path: std::path::PathBuf,
}

impl TempFile {
    pub fn new(name: &str, text: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("a2a-cli-it-{}-{}", std::process::id(), next_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        Self { path }
    }

    pub fn path(&self) -> &str {
        self.path.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A name unique within this test process.
fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// True when the arguments or the environment say who may call.
fn configures_auth(command: &Command, args: &[&str]) -> bool {
    const FLAGS: [&str; 7] = [
        "--no-auth",
        "--api-key",
        "--bearer-token",
        "--jwks-url",
        "--oidc-issuer",
        "--introspection-url",
        "--client-ca",
    ];
    const VARIABLES: [&str; 7] = [
        "A2A_NO_AUTH",
        "A2A_API_KEY",
        "A2A_BEARER_TOKEN",
        "A2A_JWKS_URL",
        "A2A_OIDC_ISSUER",
        "A2A_INTROSPECTION_URL",
        "A2A_CLIENT_CA",
    ];
    let before_command = args.iter().take_while(|arg| **arg != "--");
    before_command
        .clone()
        .any(|arg| FLAGS.iter().any(|flag| arg.starts_with(flag)))
        || command
            .get_envs()
            .any(|(name, _)| VARIABLES.iter().any(|variable| name == *variable))
}
