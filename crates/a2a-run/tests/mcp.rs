//! `McpTools` against the tests' own MCP server (`a2a-test-mcp`), over stdio and streamable
//! HTTP: listing, calls, errors, big answers, cancellation and dead servers.

#![cfg(feature = "mcp")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use a2a_run::mcp::McpTools;
use a2a_run::tools::{ToolOutput, ToolSource};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A directory of its own for each test, removed afterwards.
struct Root(PathBuf);

impl Root {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "a2a-run-mcp-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("hello.txt"), "hello, world\n").unwrap();
        Self(dir)
    }

    fn events(&self) -> String {
        std::fs::read_to_string(self.0.join(".events")).unwrap_or_default()
    }

    /// Waits (5 s at most) for `.events` to have `line`.
    async fn wait_for_event(&self, line: &str) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !self.events().lines().any(|seen| seen == line) {
            assert!(
                Instant::now() < deadline,
                "no {line:?} in .events: {:?}",
                self.events()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn stdio(root: &Root) -> McpTools {
    let server = a2a_test_support::mcp::server_binary();
    McpTools::stdio(&server, [Path::new("--root"), &root.0])
        .await
        .unwrap()
}

/// `a2a-test-mcp --http 127.0.0.1:0`, killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(root: &Root) -> Self {
        let mut child = Command::new(a2a_test_support::mcp::server_binary())
            .arg("--root")
            .arg(&root.0)
            .args(["--http", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Self { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn call(tools: &McpTools, name: &str, arguments: serde_json::Value) -> ToolOutput {
    tokio::time::timeout(
        Duration::from_secs(20),
        tools.call(name, arguments, CancellationToken::new()),
    )
    .await
    .unwrap()
    .unwrap()
}

/// What both transports must do alike.
async fn exercise(tools: &McpTools, root: &Root) {
    assert_eq!(tools.server_name(), "a2a-test-mcp");

    let specs = tools.list().await.unwrap();
    let names: Vec<&str> = specs.iter().map(|spec| spec.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "list_files",
            "read_file",
            "write_file",
            "slow",
            "slow_change",
            "fail",
            "big"
        ]
    );
    let repeatable: Vec<bool> = specs.iter().map(|spec| spec.repeatable).collect();
    assert_eq!(repeatable, [true, true, false, true, false, false, true]);
    let read = &specs[1];
    assert_eq!(read.description, "Reads a file under the root.");
    assert_eq!(read.input_schema["type"], "object");
    assert_eq!(read.input_schema["properties"]["path"]["type"], "string");
    assert_eq!(read.input_schema["required"], json!(["path"]));

    assert_eq!(
        call(tools, "read_file", json!({"path": "hello.txt"})).await,
        ToolOutput::ok("hello, world\n")
    );
    let wrote = call(
        tools,
        "write_file",
        json!({"path": "notes/today.md", "text": "two\nlines"}),
    )
    .await;
    assert!(!wrote.is_error, "{wrote:?}");
    assert_eq!(
        std::fs::read_to_string(root.0.join("notes/today.md")).unwrap(),
        "two\nlines"
    );
    assert_eq!(
        call(tools, "read_file", json!({"path": "notes/today.md"})).await,
        ToolOutput::ok("two\nlines")
    );
    assert_eq!(
        call(tools, "list_files", json!({})).await,
        ToolOutput::ok("hello.txt\nnotes/today.md")
    );
    let escape = call(tools, "read_file", json!({"path": "../outside"})).await;
    assert!(escape.is_error, "{escape:?}");
    assert!(escape.content.contains("outside the root"), "{escape:?}");

    // A tool's own error, and the server refusing the call, both reach the model as errors.
    assert_eq!(
        call(tools, "fail", json!({"message": "it broke"})).await,
        ToolOutput::error("it broke")
    );
    let unknown = call(tools, "no_such_tool", json!({})).await;
    assert!(unknown.is_error, "{unknown:?}");
    let not_an_object = call(tools, "fail", json!([1, 2])).await;
    assert!(not_an_object.is_error, "{not_an_object:?}");

    // Capping is the engine's business: a big answer arrives whole.
    let big = call(tools, "big", json!({"bytes": 3_000_000})).await;
    assert!(!big.is_error);
    assert_eq!(big.content.len(), 3_000_000);
    assert!(big.content.bytes().all(|byte| byte == b'x'));
}

/// A canceled `slow` call returns at once, and the server stops it.
async fn cancel_slow(tools: &McpTools, root: &Root) {
    let cancel = CancellationToken::new();
    let call = tools.call("slow", json!({"seconds": 60}), cancel.clone());
    let canceler = async {
        root.wait_for_event("slow started").await;
        cancel.cancel();
        Instant::now()
    };
    let (result, canceled_at) = tokio::time::timeout(Duration::from_secs(20), async {
        tokio::join!(call, canceler)
    })
    .await
    .expect("the canceled call did not return");
    assert!(
        canceled_at.elapsed() < Duration::from_secs(1),
        "the call returned {:?} after the cancel",
        canceled_at.elapsed()
    );
    assert_eq!(result.unwrap_err().message, "the tool call was canceled");
    root.wait_for_event("slow canceled").await;
    // The session is still good afterwards.
    assert_eq!(call_ok(tools).await, ToolOutput::ok("hello, world\n"));
}

async fn call_ok(tools: &McpTools) -> ToolOutput {
    call(tools, "read_file", json!({"path": "hello.txt"})).await
}

/// A call to a dead server fails (soon) instead of hanging.
async fn dead_server_fails(tools: &McpTools) {
    let started = Instant::now();
    let result = tokio::time::timeout(
        Duration::from_secs(20),
        tools.call("list_files", json!({}), CancellationToken::new()),
    )
    .await
    .expect("a call to a dead server hung");
    let error = result.expect_err("a call to a dead server succeeded");
    assert!(error.message.contains("a2a-test-mcp"), "{error:?}");
    eprintln!(
        "a call to the dead server failed after {:?}: {error}",
        started.elapsed()
    );
}

#[cfg(target_os = "linux")]
/// True while `pid` is a live process (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_server() {
    let root = Root::new();
    let tools = stdio(&root).await;
    assert!(tools.process_id().is_some());
    exercise(&tools, &root).await;
    cancel_slow(&tools, &root).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_server() {
    let root = Root::new();
    let server = HttpServer::start(&root);
    let tools = McpTools::http(&server.url).await.unwrap();
    assert_eq!(tools.process_id(), None);
    exercise(&tools, &root).await;
    cancel_slow(&tools, &root).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn command_line_starts_the_server() {
    let root = Root::new();
    let line = format!(
        "'{}' --root \"{}\"",
        a2a_test_support::mcp::server_binary().display(),
        root.0.display()
    );
    let tools = McpTools::command_line(&line).await.unwrap();
    assert_eq!(call_ok(&tools).await, ToolOutput::ok("hello, world\n"));
    assert!(McpTools::command_line("  ").await.is_err());
    assert!(McpTools::command_line("prog 'open").await.is_err());
    let missing = McpTools::command_line("/no/such/mcp-server")
        .await
        .unwrap_err();
    assert!(
        missing.message.contains("/no/such/mcp-server"),
        "{missing:?}"
    );
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_stdio_server_gives_tool_errors() {
    let root = Root::new();
    let tools = stdio(&root).await;
    let pid = tools.process_id().unwrap();
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    dead_server_fails(&tools).await;
    dead_server_fails(&tools).await;
}

/// A server that dies during a call ends the call with a [`ToolError`](a2a_run::tools::ToolError).
async fn dies_during_a_call(tools: &McpTools, root: &Root, kill: impl FnOnce()) {
    let call = tools.call("slow", json!({"seconds": 60}), CancellationToken::new());
    let killer = async {
        root.wait_for_event("slow started").await;
        kill();
        Instant::now()
    };
    let (result, killed_at) = tokio::time::timeout(Duration::from_secs(20), async {
        tokio::join!(call, killer)
    })
    .await
    .expect("a call to a server that died hung");
    let error = result.expect_err("a call to a server that died succeeded");
    eprintln!(
        "a call to a server that died failed {:?} after: {error}",
        killed_at.elapsed()
    );
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_server_dying_during_a_call() {
    let root = Root::new();
    let tools = stdio(&root).await;
    let pid = tools.process_id().unwrap();
    dies_during_a_call(&tools, &root, || {
        let killed = Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_server_dying_during_a_call() {
    let root = Root::new();
    let server = HttpServer::start(&root);
    let tools = McpTools::http(&server.url).await.unwrap();
    dies_during_a_call(&tools, &root, move || drop(server)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_http_server_gives_tool_errors() {
    let root = Root::new();
    let server = HttpServer::start(&root);
    let tools = McpTools::http(&server.url).await.unwrap();
    assert_eq!(call_ok(&tools).await, ToolOutput::ok("hello, world\n"));
    drop(server);
    dead_server_fails(&tools).await;
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_tools_kills_the_server() {
    let root = Root::new();
    let tools = stdio(&root).await;
    let pid = tools.process_id().unwrap();
    assert!(alive(pid));
    drop(tools);
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) {
        assert!(
            Instant::now() < deadline,
            "the server {pid} outlived its McpTools"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // And `close` ends it too.
    let tools = stdio(&root).await;
    let pid = tools.process_id().unwrap();
    tools.close().await;
    assert!(!alive(pid), "the server {pid} outlived close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_is_not_there() {
    let error = McpTools::http("http://127.0.0.1:9/mcp").await.unwrap_err();
    assert!(error.message.contains("127.0.0.1:9"), "{error:?}");
}
