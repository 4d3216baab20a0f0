//! The official Python SDK (`a2a-sdk` 1.3.0, and 0.3.26 for the v0.3 tests) for the interop
//! tests: its interpreters, its scripts, and the programs the tests start.
//!
//! The interpreter is the virtualenv's, `target/python-sdk/bin/python` (made by
//! `bash .ci/run`), or `A2A_PYTHON`. A test that needs it asks [`interpreter`]: without it,
//! the test prints a notice and passes, except under `CI=true`, where it fails, because CI
//! must always run against the real peer.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use crate::ci::is_ci;

/// The virtualenv's interpreter unless `A2A_PYTHON` says otherwise, under the workspace root.
pub const VENV_PYTHON: &str = "target/python-sdk/bin/python";

/// How to create that virtualenv.
const SETUP: &str = "bash .ci/run (or by hand, from the workspace root: \
    python3 -m venv target/python-sdk && \
    target/python-sdk/bin/python -m pip install 'a2a-sdk[http-server]==1.3.0')";

/// The SDK's echo agent: serves on the port it is given (`0`: any) and prints
/// `ready http://127.0.0.1:PORT` once it listens. Relative to the workspace root.
pub const ECHO_AGENT: &str = "crates/a2a-client/tests/interop/python/echo_agent.py";

/// The interpreter of the virtualenv with the SDK, or `None` (after a notice on stderr) to
/// skip the test.
///
/// # Panics
/// When there is none and [`is_ci`]: CI must run every interop test.
#[must_use]
pub fn interpreter() -> Option<PathBuf> {
    let (python, origin) = match std::env::var_os("A2A_PYTHON") {
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

/// The virtualenv with the v0.3 SDK (`a2a-sdk` 0.3.26), unless `A2A_PYTHON_03` says
/// otherwise, under the workspace root.
pub const VENV_PYTHON_03: &str = "target/python-sdk-03/bin/python";

/// How to create the v0.3 virtualenv.
const SETUP_03: &str = "bash .ci/run (or by hand, from the workspace root: \
    python3 -m venv target/python-sdk-03 && \
    target/python-sdk-03/bin/python -m pip install 'a2a-sdk[http-server]==0.3.26')";

/// The interpreter of the virtualenv with the v0.3 SDK, or `None` (after a notice on
/// stderr) to skip the test.
///
/// # Panics
/// When there is none and [`is_ci`]: CI must run every interop test.
#[must_use]
pub fn interpreter_03() -> Option<PathBuf> {
    let (python, origin) = match std::env::var_os("A2A_PYTHON_03") {
        Some(path) => (PathBuf::from(path), "A2A_PYTHON_03"),
        None => (
            workspace_root().join(VENV_PYTHON_03),
            "the default v0.3 venv",
        ),
    };
    if python.is_file() {
        return Some(python);
    }
    let missing = format!(
        "the v0.3 Python SDK interpreter ({origin}, {}) does not exist; create it with {SETUP_03}",
        python.display()
    );
    assert!(!is_ci(), "CI=true and {missing}");
    eprintln!("skipping the v0.3 Python SDK interop test: {missing}");
    None
}

/// The v0.3 SDK's agent: serves on the port it is given (`0`: any), its card preferring the
/// binding it is given (`JSONRPC` unless told), and prints `ready http://127.0.0.1:PORT`
/// once it listens. Relative to the workspace root.
pub const SERVE_AGENT_03: &str = "tests/interop/python03/serve_agent.py";

/// The v0.3 SDK's agent ([`SERVE_AGENT_03`]) on an ephemeral port, its card preferring
/// `preferred` (`JSONRPC` or `HTTP+JSON`; the script's default when `None`), once it serves.
///
/// # Panics
/// As [`Listening::start`].
#[must_use]
pub fn serve_agent_03(
    python: &Path,
    preferred: Option<&str>,
    startup_limit: Duration,
) -> Listening {
    let mut agent = command(python, &workspace_root().join(SERVE_AGENT_03));
    agent.arg("0").args(preferred);
    Listening::start(agent, "ready ", "serve_agent.py", startup_limit)
}

/// The virtualenv with the official MCP Python SDK (`mcp` 2.3.0), the host of `a2a mcp`'s
/// interop tests, unless `A2A_MCP_PYTHON` says otherwise, under the workspace root.
pub const VENV_MCP_PYTHON: &str = "target/mcp-sdk/bin/python";

/// How to create the MCP virtualenv.
const SETUP_MCP: &str = "bash .ci/run (or by hand, from the workspace root: \
    python3 -m venv target/mcp-sdk && target/mcp-sdk/bin/python -m pip install 'mcp==2.3.0')";

/// The interpreter of the virtualenv with the MCP Python SDK, or `None` (after a notice on
/// stderr) to skip the test.
///
/// # Panics
/// When there is none and [`is_ci`]: CI must run every interop test.
#[must_use]
pub fn mcp_interpreter() -> Option<PathBuf> {
    let (python, origin) = match std::env::var_os("A2A_MCP_PYTHON") {
        Some(path) => (PathBuf::from(path), "A2A_MCP_PYTHON"),
        None => (
            workspace_root().join(VENV_MCP_PYTHON),
            "the default MCP venv",
        ),
    };
    if python.is_file() {
        return Some(python);
    }
    let missing = format!(
        "the MCP Python SDK interpreter ({origin}, {}) does not exist; create it with {SETUP_MCP}",
        python.display()
    );
    assert!(!is_ci(), "CI=true and {missing}");
    eprintln!("skipping the MCP Python SDK interop test: {missing}");
    None
}

/// The workspace's root directory.
#[must_use]
pub fn workspace_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// `python SCRIPT`, writing no bytecode next to the script and flushing every line, so the
/// test reads what it prints as it prints it.
#[must_use]
pub fn command(python: &Path, script: &Path) -> Command {
    let mut command = Command::new(python);
    command
        .arg(script)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONUNBUFFERED", "1");
    command
}

/// The SDK's echo agent ([`ECHO_AGENT`]) on an ephemeral port, once it serves.
///
/// # Panics
/// As [`Listening::start`].
#[must_use]
pub fn echo_agent(python: &Path, startup_limit: Duration) -> Listening {
    let mut agent = command(python, &workspace_root().join(ECHO_AGENT));
    agent.arg("0");
    Listening::start(agent, "ready ", "echo_agent.py", startup_limit)
}

/// The SDK's echo agent with its gRPC binding too, both on ephemeral ports, once it serves;
/// its card names the GRPC interface last.
///
/// # Panics
/// As [`Listening::start`].
#[must_use]
pub fn echo_agent_grpc(python: &Path, startup_limit: Duration) -> Listening {
    let mut agent = command(python, &workspace_root().join(ECHO_AGENT));
    agent.args(["0", "0"]);
    Listening::start(agent, "ready ", "echo_agent.py", startup_limit)
}

/// `exit code N`, or how the process ended without one.
#[must_use]
pub fn describe(status: ExitStatus) -> String {
    status
        .code()
        .map_or_else(|| format!("{status}"), |code| format!("exit code {code}"))
}

/// A server the test started (`a2a serve`, `a2a gateway`, the SDK's echo agent) whose first
/// line on stdout named its URL; killed on drop. Everything else it prints, on both pipes,
/// is kept for the test's failure messages.
#[derive(Debug)]
pub struct Listening {
    child: Child,
    /// `http://HOST:PORT`, without a trailing `/`.
    pub url: String,
    log: Arc<Mutex<String>>,
}

impl Listening {
    /// Runs `command` until its first stdout line, `PREFIX http://…`, names its URL; `what`
    /// names it in failures.
    ///
    /// # Panics
    /// When it cannot start, prints nothing within `startup_limit`, ends first, or its first
    /// line is not `PREFIX http://…`.
    #[must_use]
    pub fn start(mut command: Command, prefix: &str, what: &str, startup_limit: Duration) -> Self {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start `{what}`: {error}"));
        let stdout = child
            .stdout
            .take()
            .unwrap_or_else(|| panic!("`{what}`: stdout is not piped"));
        let stderr = child
            .stderr
            .take()
            .unwrap_or_else(|| panic!("`{what}`: stderr is not piped"));
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

        let first = match rx.recv_timeout(startup_limit) {
            Ok(Some(line)) => line,
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                let status = server
                    .child
                    .wait()
                    .map_or_else(|error| format!("cannot wait for it: {error}"), describe);
                let _ = stderr_reader.join();
                panic!(
                    "`{what}` printed no `{prefix}URL` line ({status})\n--- server log ---\n{}",
                    server.log()
                );
            }
            Err(RecvTimeoutError::Timeout) => panic!(
                "`{what}` printed nothing within {startup_limit:?}\n--- server log ---\n{}",
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

    /// What it printed after its first line, on stdout and stderr.
    #[must_use]
    pub fn log(&self) -> String {
        self.log.lock().map(|log| log.clone()).unwrap_or_default()
    }
}

fn push_line(log: &Mutex<String>, line: &str) {
    if let Ok(mut log) = log.lock() {
        log.push_str(line);
        log.push('\n');
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
