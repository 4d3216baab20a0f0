//! Interop with the official Python SDK: its client (`a2a-sdk` 1.3.0) drives the real
//! `a2a serve --agent conformance` binary over JSON-RPC and over HTTP+JSON, directly and
//! through `a2a gateway`.
//!
//! Each test starts the server on an ephemeral port, reads the `listening on http://…` line it
//! prints first, and runs `tests/interop/python/drive_agent.py` with the virtualenv's
//! interpreter (`target/python-sdk/bin/python`, made by `bash .ci/run`; `A2A_PYTHON`
//! overrides it). The driver checks send, stream, get, list, subscribe, cancel and a
//! follow-up to an input-required task, one line per check.
//!
//! Without the virtualenv the tests are skipped with a notice, except under `CI=true`, where
//! they fail: CI must always run against the real peer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::env;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// `a2a serve` with the conformance agent, tasks in memory, the API key required.
const CONFORMANCE_AGENT: [&str; 9] = [
    "serve",
    "--agent",
    "conformance",
    "--bind",
    "127.0.0.1:0",
    "--store",
    "memory",
    "--api-key",
    API_KEY,
];

/// How long the server may take to print its `listening on` line.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one driver run may take before it is killed.
const DRIVER_TIMEOUT: Duration = Duration::from_secs(180);
/// The venv the tests use by default, relative to the workspace root.
const VENV_PYTHON: &str = "target/python-sdk/bin/python";
/// How to create that venv.
const SETUP: &str = "bash .ci/run (or by hand, from the workspace root: \
    python3 -m venv target/python-sdk && \
    target/python-sdk/bin/python -m pip install 'a2a-sdk[http-server]==1.3.0')";

/// The key `a2a serve` accepts and the Python client presents: authentication stays on,
/// so the official SDK's client is proven to work against a secured agent.
const API_KEY: &str = "interop-key-0123456789";

#[test]
fn python_sdk_client_over_jsonrpc() {
    drive("jsonrpc");
}

#[test]
fn python_sdk_client_over_http_json() {
    drive("rest");
}

#[test]
fn python_sdk_client_through_the_gateway_over_jsonrpc() {
    through_the_gateway("jsonrpc");
}

#[test]
fn python_sdk_client_through_the_gateway_over_http_json() {
    through_the_gateway("rest");
}

/// The driver's checks with `a2a gateway` between the SDK's client and the agent: the
/// client resolves the agent's card at `/a2a/{id}/.well-known/agent-card.json`,
/// whose interfaces point at the gateway, and every call, stream and key goes through it
/// (`X-API-Key` is an `X-*` header, which the gateway forwards).
#[allow(clippy::disallowed_methods)] // a synchronous test: no runtime to block
fn through_the_gateway(binding: &str) {
    let Some(python) = python() else { return };
    let gateway = Server::gateway();
    let registered = ["--register", &gateway.url, "--agent-id", "conformance-01"];
    let agent = Server::spawn(
        &[CONFORMANCE_AGENT.as_slice(), &registered].concat(),
        "a2a serve --register",
    );
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    while !agent.log().contains("registered with the gateway") {
        assert!(
            Instant::now() < deadline,
            "the agent did not register\n--- agent log ---\n{}\n--- gateway log ---\n{}",
            agent.log(),
            gateway.log()
        );
        thread::sleep(Duration::from_millis(50));
    }
    let url = format!("{}/a2a/conformance-01", gateway.url);
    run_driver(&python, &url, binding, &|| {
        format!(
            "--- agent log ---\n{}\n--- gateway log ---\n{}",
            agent.log(),
            gateway.log()
        )
    });
}

/// The other way round: the official SDK serves the agent (its echo agent of the client
/// interop tests), registered with `a2a gateway` by its own card; `a2a send` reaches it
/// through the gateway over both bindings, plain and streaming.
#[test]
fn a_python_sdk_agent_behind_the_gateway_answers_a2a_send() {
    let Some(python) = python() else { return };
    let root = workspace_root();
    let script = root.join("crates/a2a-client/tests/interop/python/echo_agent.py");
    // The SDK's echo agent prints `ready URL` once it serves.
    let mut command = Command::new(&python);
    command
        .arg(&script)
        .arg("0")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONUNBUFFERED", "1");
    let agent = Server::launch(command, "ready ", "echo_agent.py");
    let gateway = Server::gateway();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let http = reqwest::Client::new();
        let card: serde_json::Value = http
            .get(format!("{}/.well-known/agent-card.json", agent.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        // The registry's envelope, `agent_id` beside the card: the card exactly as the SDK
        // serves it.
        let registered = http
            .post(format!("{}/agents/register", gateway.url))
            .json(&serde_json::json!({"agent_id": "py-echo", "card": card}))
            .send()
            .await
            .unwrap();
        assert_eq!(
            registered.status(),
            200,
            "{}",
            registered.text().await.unwrap()
        );
    });

    let url = format!("{}/a2a/py-echo", gateway.url);
    for binding in ["jsonrpc", "rest"] {
        for stream in [false, true] {
            let mut command = Command::new(env!("CARGO_BIN_EXE_a2a"));
            command.args(["send", "--binding", binding]);
            if stream {
                command.arg("--stream");
            }
            let output = command
                .args([url.as_str(), "hello through the gateway"])
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success() && stdout.contains("echo: hello through the gateway"),
                "{binding} stream={stream}: {}\n{stdout}{}\n--- agent log ---\n{}\n--- gateway log ---\n{}",
                describe(output.status),
                String::from_utf8_lossy(&output.stderr),
                agent.log(),
                gateway.log()
            );
        }
    }
}

/// Runs the Python driver against a fresh server over `binding` (`jsonrpc` or `rest`).
fn drive(binding: &str) {
    let Some(python) = python() else { return };
    let server = Server::start();
    run_driver(&python, &server.url, binding, &|| {
        format!("--- server log ---\n{}", server.log())
    });
}

/// Runs the driver against the agent at `url`; `logs` shows the servers' logs on failure.
fn run_driver(python: &Path, url: &str, binding: &str, logs: &dyn Fn() -> String) {
    let root = workspace_root();
    let script = root.join("tests/interop/python/drive_agent.py");
    assert!(
        script.is_file(),
        "driver script missing: {}",
        script.display()
    );

    let mut child = Command::new(python)
        .arg(&script)
        .arg(url)
        .arg(binding)
        .current_dir(&root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("A2A_API_KEY", API_KEY)
        .env("PYTHONUNBUFFERED", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));

    let (tx, rx) = mpsc::channel();
    let out = drain(child.stdout.take().expect("piped stdout"), tx.clone());
    let err = drain(child.stderr.take().expect("piped stderr"), tx);
    // Both pipes close when the driver exits; if they do not in time, kill it.
    let deadline = Instant::now() + DRIVER_TIMEOUT;
    let mut timed_out = false;
    for _ in 0..2 {
        let left = deadline.saturating_duration_since(Instant::now());
        if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(left) {
            timed_out = true;
            let _ = child.kill();
            break;
        }
    }
    let status = child.wait().expect("wait for the driver");
    let output = format!(
        "{}{}",
        out.join().expect("stdout reader"),
        err.join().expect("stderr reader")
    );

    let report = || format!("--- driver output ({binding}) ---\n{output}\n{}", logs());
    assert!(
        !timed_out,
        "the Python SDK driver ({binding}) did not finish within {DRIVER_TIMEOUT:?}\n{}",
        report()
    );
    assert!(
        status.success(),
        "the Python SDK driver ({binding}) failed: {}\n{}",
        describe(status),
        report()
    );
    assert!(
        output.contains(&format!("all checks passed [{binding}]")),
        "the Python SDK driver ({binding}) exited 0 without finishing its checks\n{}",
        report()
    );
    eprintln!("{output}");
}

/// The interpreter of the venv with the SDK, or `None` (after a notice) to skip.
///
/// Panics instead of skipping when `CI=true`.
fn python() -> Option<PathBuf> {
    let (python, origin) = match env::var_os("A2A_PYTHON") {
        Some(path) => (PathBuf::from(path), "A2A_PYTHON"),
        None => (workspace_root().join(VENV_PYTHON), "the default venv"),
    };
    if python.is_file() {
        return Some(python);
    }
    let missing = format!(
        "the Python SDK interpreter ({origin}, {}) does not exist; create it with {SETUP}",
        python.display()
    );
    assert!(!is_ci(), "CI=true and {missing}");
    eprintln!("skipping the Python SDK interop test: {missing}");
    None
}

fn is_ci() -> bool {
    env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("../..");
    root.canonicalize().unwrap_or(root)
}

fn describe(status: ExitStatus) -> String {
    status
        .code()
        .map_or_else(|| format!("{status}"), |code| format!("exit code {code}"))
}

/// Reads a pipe to the end on a thread; signals `done` when the pipe closes.
fn drain(
    mut pipe: impl Read + Send + 'static,
    done: mpsc::Sender<()>,
) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = done.send(());
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// A server (`a2a serve`, `a2a gateway`, the SDK's echo agent) on an ephemeral port;
/// killed on drop.
struct Server {
    child: Child,
    url: String,
    log: Arc<Mutex<String>>,
}

impl Server {
    /// `a2a serve --agent conformance` with the API key.
    fn start() -> Self {
        Self::spawn(&CONFORMANCE_AGENT, "a2a serve --agent conformance")
    }

    /// `a2a gateway` with its registry in memory.
    fn gateway() -> Self {
        Self::spawn(
            &[
                "gateway",
                "--bind",
                "127.0.0.1:0",
                "--store",
                "sqlite::memory:",
            ],
            "a2a gateway",
        )
    }

    /// `a2a ARGS…`, once it printed its `listening on` line; `what` names it in failures.
    fn spawn(args: &[&str], what: &str) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_a2a"));
        command.args(args);
        Self::launch(command, "listening on ", what)
    }

    /// Runs `command` until its first stdout line, `PREFIX http://…`, names its URL.
    fn launch(mut command: Command, prefix: &str, what: &str) -> Self {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start `{what}`: {error}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let mut server = Self {
            child,
            url: String::new(),
            log: Arc::default(),
        };

        // The first stdout line goes to the channel; everything else, on both pipes, is
        // kept in the log and shown when a test fails.
        let (tx, rx) = mpsc::channel();
        let log = Arc::clone(&server.log);
        thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let _ = tx.send(lines.next().and_then(Result::ok));
            for line in lines.map_while(Result::ok) {
                push_line(&log, &line);
            }
        });
        let log = Arc::clone(&server.log);
        let stderr_reader = thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                push_line(&log, &line);
            }
        });

        let first = match rx.recv_timeout(STARTUP_TIMEOUT) {
            Ok(Some(line)) => line,
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                let status = server.child.wait().expect("wait for the server");
                let _ = stderr_reader.join();
                panic!(
                    "`{what}` printed no `{prefix}URL` line ({})\n--- server log ---\n{}",
                    describe(status),
                    server.log()
                );
            }
            Err(RecvTimeoutError::Timeout) => panic!(
                "`{what}` printed nothing within {STARTUP_TIMEOUT:?}\n--- server log ---\n{}",
                server.log()
            ),
        };
        server.url = first
            .trim()
            .strip_prefix(prefix)
            .filter(|url| url.starts_with("http://"))
            .unwrap_or_else(|| {
                panic!("expected `{prefix}http://HOST:PORT` as the first line, got {first:?}")
            })
            .trim_end_matches('/')
            .to_owned();
        server
    }

    fn log(&self) -> String {
        self.log.lock().map(|log| log.clone()).unwrap_or_default()
    }
}

fn push_line(log: &Mutex<String>, line: &str) {
    if let Ok(mut log) = log.lock() {
        log.push_str(line);
        log.push('\n');
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
