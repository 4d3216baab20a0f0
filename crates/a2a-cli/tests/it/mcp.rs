//! `a2a mcp`: A2A agents as MCP tools, driven by rmcp's MCP client over stdio (the binary
//! as a child process) and over streamable HTTP, against `a2a serve` agents and an `a2a
//! gateway` whose agents come and go.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationCapability, Implementation,
    ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt as _;
use tokio::sync::mpsc;

use crate::support::{Server, TempFile, a2a};

/// A secret given to `a2a mcp` that must never come back.
const SECRET: &str = "s3cr3t-bearer-value";

/// The MCP host of these tests: it records progress and list-changed notifications, and
/// answers elicitation with `answer` when it has one (declaring the capability only then).
#[derive(Clone)]
struct Host {
    progress: mpsc::UnboundedSender<ProgressNotificationParam>,
    changed: mpsc::UnboundedSender<()>,
    answer: Option<String>,
    asked: Arc<Mutex<Vec<String>>>,
}

struct Notes {
    progress: mpsc::UnboundedReceiver<ProgressNotificationParam>,
    changed: mpsc::UnboundedReceiver<()>,
}

fn new_host(answer: Option<&str>) -> (Host, Notes, Arc<Mutex<Vec<String>>>) {
    let (progress, progress_rx) = mpsc::unbounded_channel();
    let (changed, changed_rx) = mpsc::unbounded_channel();
    let asked = Arc::new(Mutex::new(Vec::new()));
    (
        Host {
            progress,
            changed,
            answer: answer.map(str::to_owned),
            asked: Arc::clone(&asked),
        },
        Notes {
            progress: progress_rx,
            changed: changed_rx,
        },
        asked,
    )
}

impl ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.answer.is_some() {
            capabilities.elicitation = Some(ElicitationCapability::default());
        }
        ClientConfig::new(capabilities, Implementation::new("a2a-mcp-test", "1"))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.progress.send(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(());
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        Ok(match &self.answer {
            Some(answer) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(json!({"answer": answer}))
            }
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }
}

type Client = RunningService<RoleClient, Host>;

/// `a2a mcp ARGS…` over stdio, as a desktop host starts it; its stderr is collected.
async fn stdio(args: &[&str], host: Host) -> (Client, Arc<Mutex<String>>) {
    let mut command = tokio::process::Command::from(a2a());
    command.arg("mcp").args(args).env("RUST_LOG", "debug");
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let log = Arc::new(Mutex::new(String::new()));
    if let Some(mut stderr) = stderr {
        let sink = Arc::clone(&log);
        tokio::spawn(async move {
            let mut buffer = [0; 4096];
            while let Ok(read @ 1..) = stderr.read(&mut buffer).await {
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buffer[..read]));
            }
        });
    }
    let client = tokio::time::timeout(Duration::from_secs(30), host.serve(transport))
        .await
        .expect("the MCP handshake timed out")
        .unwrap();
    (client, log)
}

/// The client of `a2a mcp --listen` at `url` (`http://ADDR`).
async fn http(url: &str, host: Host) -> Client {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("{url}/mcp")),
    );
    tokio::time::timeout(Duration::from_secs(30), host.serve(transport))
        .await
        .expect("the MCP handshake timed out")
        .unwrap()
}

async fn tool_names(client: &Client) -> Vec<String> {
    let mut names: Vec<String> = client
        .peer()
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    names.sort();
    names
}

async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let params = CallToolRequestParams::new(tool.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone());
    tokio::time::timeout(Duration::from_secs(60), client.peer().call_tool(params))
        .await
        .expect("the tool call timed out")
        .unwrap()
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn structured(result: &CallToolResult) -> Value {
    result.structured_content.clone().unwrap_or(Value::Null)
}

/// The conformance agent (streaming, its behaviour picked by the message id) as `Tck`, and
/// the echo agent as `Echo`.
fn agents() -> (Server, Server) {
    (
        Server::start(&["--agent", "conformance", "--name", "Tck"]),
        Server::start(&["--agent", "echo", "--name", "Echo"]),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_tools_are_listed_sends_answered_streamed_continued_and_secrets_kept() {
    let (tck, echo) = agents();
    let (host, mut notes, _) = new_host(None);
    let (client, log) = stdio(
        &[
            &tck.url,
            &echo.url,
            "http://127.0.0.1:1",
            "--bearer",
            SECRET,
        ],
        host,
    )
    .await;

    // Tools listed: one per agent (the unreachable one too), and the generic three.
    let names = tool_names(&client).await;
    assert_eq!(
        names,
        [
            "cancel_task",
            "get_task",
            "list_agents",
            "send_to_127_0_0_1_1",
            "send_to_echo",
            "send_to_tck"
        ]
    );
    let tools = client.peer().list_all_tools().await.unwrap();
    let tck_tool = tools
        .iter()
        .find(|tool| tool.name == "send_to_tck")
        .unwrap();
    assert!(
        tck_tool.description.as_deref().unwrap().contains("Tck"),
        "{tck_tool:?}"
    );

    // A plain send, answered.
    let answer = call(&client, "send_to_echo", json!({"message": "hello there"})).await;
    assert_eq!(answer.is_error, Some(false), "{answer:?}");
    assert!(text(&answer).contains("hello there"), "{answer:?}");
    assert_eq!(structured(&answer)["state"], "completed");
    assert_eq!(structured(&answer)["agent"], "echo");

    // A streamed send: progress notifications as the events arrive, the artifact in the result.
    let streamed = call(
        &client,
        "send_to_tck",
        json!({"message": "stream please", "message_id": "tck-stream-001-mcp"}),
    )
    .await;
    assert!(
        text(&streamed).contains("Stream hello from TCK"),
        "{streamed:?}"
    );
    assert_eq!(structured(&streamed)["state"], "completed");
    let mut progress = Vec::new();
    while let Ok(note) = notes.progress.try_recv() {
        progress.push(note.message.unwrap_or_default());
    }
    assert!(progress.len() >= 2, "{progress:?}");
    assert!(
        progress.iter().any(|line| line.starts_with("working")),
        "{progress:?}"
    );
    assert!(
        progress.iter().any(|line| line.starts_with("artifact")),
        "{progress:?}"
    );

    // INPUT_REQUIRED: the question and the task id come back; the host continues with task_id.
    let asked = call(
        &client,
        "send_to_tck",
        json!({"message": "start", "message_id": "tck-input-required-mcp"}),
    )
    .await;
    assert_eq!(structured(&asked)["state"], "input_required", "{asked:?}");
    assert!(text(&asked).contains("Input required"), "{asked:?}");
    let task_id = structured(&asked)["task_id"].as_str().unwrap().to_owned();
    assert!(text(&asked).contains(&task_id));
    let continued = call(
        &client,
        "send_to_tck",
        json!({"message": "the answer is 42", "task_id": task_id}),
    )
    .await;
    assert_eq!(
        structured(&continued)["state"],
        "completed",
        "{continued:?}"
    );
    assert_eq!(structured(&continued)["task_id"], task_id.as_str());
    assert!(
        text(&continued).contains("the answer is 42"),
        "{continued:?}"
    );

    // get_task reads it again.
    let read = call(
        &client,
        "get_task",
        json!({"agent": "tck", "task_id": task_id}),
    )
    .await;
    assert_eq!(structured(&read)["state"], "completed", "{read:?}");

    // An agent that cannot be reached is a tool error; the server carries on.
    let unreachable = call(
        &client,
        "send_to_127_0_0_1_1",
        json!({"message": "anyone?"}),
    )
    .await;
    assert_eq!(unreachable.is_error, Some(true), "{unreachable:?}");
    assert!(
        text(&unreachable).contains("Cannot reach"),
        "{unreachable:?}"
    );
    // Bad arguments are a tool error too.
    let bad = call(
        &client,
        "get_task",
        json!({"agent": "nobody", "task_id": "t"}),
    )
    .await;
    assert_eq!(bad.is_error, Some(true), "{bad:?}");
    let listed = call(&client, "list_agents", json!({})).await;
    let agents = structured(&listed)["agents"].as_array().unwrap().clone();
    assert_eq!(agents.len(), 3, "{listed:?}");
    assert_eq!(agents[2]["reached"], false);
    assert_eq!(
        tool_names(&client).await.len(),
        6,
        "the server still serves"
    );

    // The secret is in no description, no result and no log line (debug level).
    let everything = format!(
        "{}{}{}{:?}{}",
        serde_json::to_string(&tools).unwrap(),
        serde_json::to_string(&[
            &answer,
            &streamed,
            &asked,
            &continued,
            &unreachable,
            &listed
        ])
        .unwrap(),
        serde_json::to_string(&read).unwrap(),
        client.peer_info(),
        log.lock().unwrap()
    );
    assert!(!everything.contains(SECRET), "the secret leaked");
    assert!(
        log.lock().unwrap().contains("agent reached"),
        "logs go to stderr: {}",
        log.lock().unwrap()
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_run_comes_back_with_its_task_id_and_is_canceled_by_tool_or_by_the_host() {
    let tck = Server::start(&["--agent", "conformance", "--name", "Tck"]);
    let (host, _notes, _) = new_host(None);
    let (client, _log) = stdio(&[&tck.url, "--max-wait", "1s"], host).await;

    // Longer than the host's patience: the task id and state come back, get_task picks it up.
    let running = call(
        &client,
        "send_to_tck",
        json!({"message": "slow", "message_id": "test-resubscribe-message-id-mcp-1"}),
    )
    .await;
    assert_eq!(structured(&running)["state"], "working", "{running:?}");
    assert!(text(&running).contains("get_task"), "{running:?}");
    let task_id = structured(&running)["task_id"].as_str().unwrap().to_owned();
    let canceled = call(
        &client,
        "cancel_task",
        json!({"agent": "tck", "task_id": task_id}),
    )
    .await;
    assert_eq!(structured(&canceled)["state"], "canceled", "{canceled:?}");

    // The host gives up on a call: the A2A task is canceled.
    let (second, _notes, _) = new_host(None);
    let (patient, _log) = stdio(&[&tck.url, "--max-wait", "30s"], second).await;
    let params = CallToolRequestParams::new("send_to_tck").with_arguments(
        json!({"message": "slow", "message_id": "test-resubscribe-message-id-mcp-2"})
            .as_object()
            .unwrap()
            .clone(),
    );
    // Dropping the call's future sends notifications/cancelled.
    let gave_up = tokio::time::timeout(
        Duration::from_millis(1500),
        patient.peer().call_tool(params),
    )
    .await;
    assert!(
        gave_up.is_err(),
        "the slow task ended too soon: {gave_up:?}"
    );
    let mut state = String::new();
    let mut tasks = Value::Null;
    for _ in 0..40 {
        tasks = tck.rpc("ListTasks", json!({"historyLength": 10})).await;
        let second = tasks["result"]["tasks"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|task| {
                task["history"].as_array().is_some_and(|history| {
                    history
                        .iter()
                        .any(|message| message["messageId"] == "test-resubscribe-message-id-mcp-2")
                })
            })
            .cloned();
        if let Some(task) = second {
            state = task["status"]["state"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if state == "TASK_STATE_CANCELED" {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(state, "TASK_STATE_CANCELED", "{tasks}");
    patient.cancel().await.unwrap();
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_with_elicitation_is_asked_the_agents_question() {
    let tck = Server::start(&["--agent", "conformance", "--name", "Tck"]);
    let (host, _notes, asked) = new_host(Some("blue"));
    let (client, log) = stdio(&[&tck.url], host).await;
    let answer = call(
        &client,
        "send_to_tck",
        json!({"message": "start", "message_id": "tck-input-required-elicit"}),
    )
    .await;
    // The question went to the user; their answer continued the task to its end.
    assert_eq!(
        structured(&answer)["state"],
        "completed",
        "{answer:?}\nagent log:\n{}\nlog:\n{}",
        tck.log(),
        log.lock().unwrap()
    );
    assert!(text(&answer).contains("blue"), "{answer:?}");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("Input required"), "{asked:?}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_streamable_http_tools_are_listed_and_sends_answered() {
    let (tck, echo) = agents();
    let mut command = a2a();
    command.args([
        "mcp",
        "--listen",
        "127.0.0.1:0",
        &tck.url,
        &echo.url,
        "--tool-per-skill",
    ]);
    let mcp = Server::spawn(command, "a2a mcp --listen");
    let (host, mut notes, _) = new_host(None);
    let client = http(&mcp.url, host).await;
    let names = tool_names(&client).await;
    assert_eq!(
        names.len(),
        5,
        "one tool per skill of each agent: {names:?}"
    );
    let echo_tool = names
        .iter()
        .find(|name| name.starts_with("echo_"))
        .unwrap()
        .clone();
    let tck_tool = names
        .iter()
        .find(|name| name.starts_with("tck_"))
        .unwrap()
        .clone();

    let answer = call(&client, &echo_tool, json!({"message": "over http"})).await;
    assert!(text(&answer).contains("over http"), "{answer:?}");
    assert_eq!(structured(&answer)["state"], "completed");

    let streamed = call(
        &client,
        &tck_tool,
        json!({"message": "x", "message_id": "tck-stream-artifact-chunked-http"}),
    )
    .await;
    assert!(text(&streamed).contains("chunk-1 chunk-2"), "{streamed:?}");
    assert!(notes.progress.try_recv().is_ok(), "progress over HTTP");

    let asked = call(
        &client,
        &tck_tool,
        json!({"message": "x", "message_id": "tck-input-required-http"}),
    )
    .await;
    let task_id = structured(&asked)["task_id"].as_str().unwrap().to_owned();
    let continued = call(
        &client,
        &tck_tool,
        json!({"message": "done", "task_id": task_id}),
    )
    .await;
    assert_eq!(
        structured(&continued)["state"],
        "completed",
        "{continued:?}"
    );
    client.cancel().await.unwrap();
}

/// `a2a gateway` on an ephemeral port with a SQLite store in a temporary file (removed when
/// the file is dropped).
fn sqlite_gateway() -> (TempFile, Server) {
    let db = TempFile::new("gw.db", "");
    let store = format!("sqlite://{}", db.path());
    let mut gateway = a2a();
    gateway.args([
        "gateway",
        "--shutdown-grace",
        "1s",
        "--bind",
        "127.0.0.1:0",
        "--store",
        &store,
    ]);
    (db, Server::spawn(gateway, "a2a gateway"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateways_agents_coming_and_going_change_the_tools_with_a_notification() {
    let (_db, gateway) = sqlite_gateway();
    let (host, mut notes, _) = new_host(None);
    let (client, log) = stdio(
        &["--gateway", &gateway.url, "--gateway-poll", "200ms"],
        host,
    )
    .await;
    assert_eq!(
        tool_names(&client).await,
        ["cancel_task", "get_task", "list_agents"]
    );

    // An agent registers: the host is told, and the agent has a tool.
    let mut agent = Server::start(&[
        "--agent",
        "echo",
        "--name",
        "Echo",
        "--register",
        &gateway.url,
        "--agent-id",
        "echo-01",
        "--heartbeat-interval",
        "250ms",
    ]);
    tokio::time::timeout(Duration::from_secs(20), notes.changed.recv())
        .await
        .unwrap_or_else(|_| {
            panic!(
                "no list-changed notification; log:\n{}",
                log.lock().unwrap()
            )
        })
        .unwrap();
    assert!(
        tool_names(&client)
            .await
            .contains(&"send_to_echo".to_owned())
    );
    let answer = call(
        &client,
        "send_to_echo",
        json!({"message": "through the gateway"}),
    )
    .await;
    assert!(text(&answer).contains("through the gateway"), "{answer:?}");

    // It leaves (deregistering on SIGTERM): the host is told again, and the tool is gone.
    agent.terminate();
    tokio::time::timeout(Duration::from_secs(20), notes.changed.recv())
        .await
        .expect("no second list-changed notification")
        .unwrap();
    assert_eq!(
        tool_names(&client).await,
        ["cancel_task", "get_task", "list_agents"]
    );
    client.cancel().await.unwrap();
}

#[test]
fn print_config_gives_each_hosts_block_without_the_secrets() {
    let output = a2a()
        .args([
            "mcp",
            "http://localhost:9000",
            "--bearer",
            SECRET,
            "--print-config",
            "claude",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let block: Value = serde_json::from_slice(&output.stdout).unwrap();
    let server = &block["mcpServers"]["a2a"];
    assert_eq!(server["args"], json!(["mcp", "http://localhost:9000"]));
    assert_eq!(server["env"]["A2A_BEARER_TOKEN"], "<your bearer token>");
    assert!(!String::from_utf8_lossy(&output.stdout).contains(SECRET));

    let output = a2a()
        .args([
            "mcp",
            "--listen",
            "127.0.0.1:8765",
            "http://a:1",
            "--print-config",
            "vscode",
        ])
        .output()
        .unwrap();
    let block: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        block["servers"]["a2a"],
        json!({"type": "http", "url": "http://127.0.0.1:8765/mcp"})
    );
}

/// `tests/mcp/host.py MODE ARGS…` with the official MCP Python SDK, to its end: every check
/// it prints must pass.
fn python_host(python: &std::path::Path, args: &[&str]) {
    let script =
        a2a_test_support::python::workspace_root().join("crates/a2a-cli/tests/mcp/host.py");
    let output = a2a_test_support::python::command(python, &script)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("done"),
        "host.py {args:?} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        !stderr.contains(SECRET) && !stdout.contains(SECRET),
        "the secret leaked"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_drives_it_over_stdio_http_and_a_gateway() {
    let Some(python) = a2a_test_support::python::mcp_interpreter() else {
        return;
    };
    let (tck, echo) = agents();
    let binary = env!("CARGO_BIN_EXE_a2a");
    tokio::task::block_in_place(|| python_host(&python, &["stdio", binary, &tck.url, &echo.url]));

    let mut command = a2a();
    command.args([
        "mcp",
        "--listen",
        "127.0.0.1:0",
        "--max-wait",
        "2s",
        &tck.url,
        &echo.url,
    ]);
    let mcp = Server::spawn(command, "a2a mcp --listen");
    let url = format!("{}/mcp", mcp.url);
    tokio::task::block_in_place(|| python_host(&python, &["http", &url]));

    let (_db, gateway) = sqlite_gateway();
    tokio::task::block_in_place(|| python_host(&python, &["gateway", binary, &gateway.url]));
}
