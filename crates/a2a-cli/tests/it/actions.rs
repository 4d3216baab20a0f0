//! `a2a chat` and `a2a send` against an agent run (`a2a-run`) on a real socket: approvals
//! asked and answered, client tools run by the user, drafts shown once, stops noticed.
//!
//! The agent is a `RunAgent` with a scripted model: `write PATH` calls `write_file` (which
//! needs approval), `where am I` calls the client tool `get_location`, `loop` calls
//! `read_file` forever; after a tool result it answers `Done: RESULT`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_run::approval::ApprovalKey;
use a2a_run::model::{Drafts, Model, ModelError, ModelReply, ModelRequest};
use a2a_run::policy::ToolPolicy;
use a2a_run::run::{ChatMessage, ToolCall, ToolSpec};
use a2a_run::store::InMemoryRunStore;
use a2a_run::tools::{FnTools, ToolOutput, ToolSource, Toolbox};
use a2a_run::{Limits, RunAgent};
use a2a_server::A2aServer;
use a2a_server::auth::Authentication;
use a2a_types::{AgentCapabilities, AgentCard, AgentInterface, ProtocolBinding};
use serde_json::{Value, json};

use crate::client_mock::{Run, cli, cli_with_input};

/// The scripted model: decides from the conversation alone, and drafts its text in two
/// pieces when asked to.
struct Scripted;

#[async_trait::async_trait]
impl Model for Scripted {
    async fn complete(
        &self,
        request: ModelRequest<'_>,
        drafts: Option<Drafts>,
    ) -> Result<ModelReply, ModelError> {
        let looping = request
            .transcript
            .iter()
            .any(|message| matches!(message, ChatMessage::User { text } if text == "loop"));
        let step = request.transcript.len();
        let call = |name: &str, arguments: Value| ToolCall {
            id: format!("call-{step}-{name}"),
            name: name.to_owned(),
            arguments,
        };
        let reply = match request.transcript.last() {
            _ if looping => {
                ModelReply::tool_calls(vec![call("read_file", json!({"path": "notes.txt"}))])
            }
            Some(ChatMessage::User { text }) if text.starts_with("write ") => {
                let path = text.trim_start_matches("write ").trim();
                ModelReply::tool_calls(vec![call("write_file", json!({"path": path, "text": "A"}))])
            }
            Some(ChatMessage::User { text }) if text == "where am I" => {
                ModelReply::tool_calls(vec![call("get_location", json!({}))])
            }
            Some(ChatMessage::Tool { content, .. }) => ModelReply::text(format!("Done: {content}")),
            Some(ChatMessage::User { text }) => ModelReply::text(format!("You said: {text}")),
            _ => ModelReply::text("?"),
        };
        if let (Some(drafts), Some(text)) = (drafts, &reply.text) {
            let middle = text.len() / 2;
            let middle = (middle..text.len())
                .find(|index| text.is_char_boundary(*index))
                .unwrap_or(text.len());
            let _ = drafts.send(text[..middle].to_owned());
            let _ = drafts.send(text[middle..].to_owned());
        }
        Ok(reply)
    }
}

type Files = Arc<Mutex<BTreeMap<String, String>>>;

fn tools(files: &Files) -> FnTools {
    let write = Arc::clone(files);
    FnTools::new()
        .tool(
            ToolSpec::new("read_file", "Reads a file", json!({"type": "object"})).repeatable(true),
            |_| async { Ok(ToolOutput::ok("buy milk")) },
        )
        .tool(
            ToolSpec::new("write_file", "Writes a file", json!({"type": "object"})),
            move |arguments| {
                let files = Arc::clone(&write);
                async move {
                    let path = arguments["path"].as_str().unwrap_or_default().to_owned();
                    let text = arguments["text"].as_str().unwrap_or_default().to_owned();
                    files.lock().unwrap().insert(path.clone(), text);
                    Ok(ToolOutput::ok(format!("wrote {path}")))
                }
            },
        )
}

/// A run agent on a real socket, on a runtime of its own (the tests block on `a2a`); the
/// inspector's browser tests use it too.
pub(crate) struct RunServer {
    pub(crate) url: String,
    files: Files,
    http: reqwest::Client,
    runtime: tokio::runtime::Runtime,
}

impl RunServer {
    pub(crate) fn start(streaming: bool) -> Self {
        Self::start_with(streaming, Limits::default())
    }

    fn start_with(streaming: bool, limits: Limits) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let files: Files = Arc::default();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let address: SocketAddr = listener.local_addr().unwrap();
        let url = format!("http://{address}");
        let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(tools(&files))];
        let toolbox = runtime.block_on(Toolbox::gather(sources)).unwrap();
        let agent = RunAgent::builder(Arc::new(Scripted), Arc::new(InMemoryRunStore::new()))
            .toolbox(toolbox)
            .policy(ToolPolicy::allow_all().ask("write_*").unwrap())
            .limits(limits)
            .approval_key(ApprovalKey::new(b"cli test key".to_vec()))
            .drafts(streaming)
            .label("scripted")
            .build();
        let mut card =
            AgentCard::new("Files agent", "Writes files with approval", "1.0.0").with_interface(
                AgentInterface::new(format!("{url}/a2a"), ProtocolBinding::JsonRpc),
            );
        card.default_input_modes = vec!["text/plain".into()];
        card.default_output_modes = vec!["text/plain".into()];
        card.capabilities = AgentCapabilities::default();
        card.capabilities.streaming = Some(streaming);
        let server = A2aServer::builder(card, agent)
            .authentication(Authentication::disabled())
            .build()
            .unwrap();
        let router = server.router();
        runtime.spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        Self {
            url,
            files,
            http,
            runtime,
        }
    }

    pub(crate) fn file(&self, path: &str) -> Option<String> {
        self.files.lock().unwrap().get(path).cloned()
    }

    /// Every task the agent has, as JSON.
    fn tasks(&self) -> Vec<Value> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}});
        let response: Value = self.runtime.block_on(async {
            self.http
                .post(format!("{}/a2a", self.url))
                .header("A2A-Version", "1.0")
                .json(&body)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap()
        });
        response["result"]["tasks"]
            .as_array()
            .unwrap_or_else(|| panic!("ListTasks: {response}"))
            .clone()
    }

    /// The state of the agent's only task.
    fn only_task_state(&self) -> String {
        let tasks = self.tasks();
        assert_eq!(tasks.len(), 1, "{tasks:?}");
        tasks[0]["status"]["state"].as_str().unwrap().to_owned()
    }
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn chat_asks_for_approval_and_the_approved_call_runs() {
    let server = RunServer::start(true);
    let run = cli_with_input(&["chat", &server.url], "write a.txt\ny\n");
    let text = run.ok();
    let expected = "\
agent: Waiting for you to approve write_file.
▸ write_file wants to run
    {
      \"path\": \"a.txt\",
      \"text\": \"A\"
    }
approve write_file? [y/N] y
agent: Done: wrote a.txt
";
    assert_eq!(
        text, expected,
        "the draft is shown once, the output not again"
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert_eq!(server.file("a.txt").as_deref(), Some("A"));
    assert_eq!(server.only_task_state(), "TASK_STATE_COMPLETED");
}

#[test]
fn the_end_of_input_denies_the_call() {
    let server = RunServer::start(true);
    let run = cli_with_input(&["chat", &server.url], "write a.txt\n");
    let text = run.ok();
    assert!(
        text.contains("approve write_file? [y/N] (end of input)\n"),
        "{text}"
    );
    assert!(
        text.ends_with("agent: Done: error: the user denied this call\n"),
        "{text}"
    );
    assert_eq!(server.file("a.txt"), None, "a denied call does not run");
    assert_eq!(server.only_task_state(), "TASK_STATE_COMPLETED");
}

#[test]
fn anything_but_yes_denies() {
    let server = RunServer::start(true);
    let run = cli_with_input(&["chat", &server.url], "write a.txt\nnope\n");
    let text = run.ok();
    assert!(text.contains("approve write_file? [y/N] nope\n"), "{text}");
    assert!(
        text.ends_with("agent: Done: error: the user denied this call\n"),
        "{text}"
    );
    assert_eq!(server.file("a.txt"), None);
}

#[test]
fn a_client_tool_result_is_typed_by_the_user() {
    let server = RunServer::start(true);
    let run = cli_with_input(
        &[
            "chat",
            &server.url,
            "--client-tool",
            "get_location:Where the user is",
        ],
        "where am I\nParis\n",
    );
    let text = run.ok();
    assert!(
        text.contains("▸ get_location is yours to run; type its result\n    {}\nresult of get_location> Paris\n"),
        "{text}"
    );
    assert!(text.ends_with("agent: Done: Paris\n"), "{text}");
    assert_eq!(server.only_task_state(), "TASK_STATE_COMPLETED");
}

#[test]
fn without_drafts_the_stored_output_is_printed() {
    let server = RunServer::start(false);
    let run = cli_with_input(&["chat", &server.url], "write a.txt\nyes\n");
    let text = run.ok();
    assert!(text.contains("approve write_file? [y/N] yes\n"), "{text}");
    assert_eq!(count(text, "Done: wrote a.txt"), 1, "{text}");
    assert!(text.ends_with("agent: Done: wrote a.txt\n"), "{text}");
    assert_eq!(server.file("a.txt").as_deref(), Some("A"));
}

#[test]
fn chat_json_prints_the_events_and_the_answer() {
    let server = RunServer::start(true);
    let run = cli_with_input(&["chat", &server.url, "--json"], "write a.txt\ny\n");
    let lines = run.json_lines();
    let answer = lines
        .iter()
        .find(|line| line.get("approvalResponses").is_some())
        .unwrap_or_else(|| panic!("no answer line: {lines:?}"));
    let asked = lines
        .iter()
        .find_map(|line| {
            line["statusUpdate"]["status"]["message"]["parts"]
                .as_array()
                .and_then(|parts| parts.iter().find_map(|part| part["data"]["actions"].get(0)))
        })
        .unwrap_or_else(|| panic!("no actions: {lines:?}"));
    assert_eq!(
        answer["approvalResponses"][0],
        json!({"approvalId": asked["approvalId"], "approved": true, "token": asked["token"]})
    );
    let drafts = lines
        .iter()
        .filter(|line| line["artifactUpdate"]["artifact"]["metadata"]["draft"] == true)
        .count();
    assert!(drafts >= 2, "drafts are printed raw: {lines:?}");
    assert_eq!(server.file("a.txt").as_deref(), Some("A"));
}

#[test]
fn a_stopped_run_is_a_one_line_notice_and_the_next_line_starts_a_new_task() {
    let mut limits = Limits::default();
    limits.max_steps = 2;
    let server = RunServer::start_with(true, limits);
    let run = cli_with_input(&["chat", &server.url], "loop\nhello\n");
    let text = run.ok();
    assert!(
        text.contains(
            "[stopped: max-steps] The run stopped (max-steps). (the next message starts a new task)\n"
        ),
        "{text}"
    );
    assert!(text.ends_with("agent: You said: hello\n"), "{text}");
    assert_eq!(server.tasks().len(), 2, "hello started a task of its own");
}

/// `a2a send` with `--json`: the raw task.
fn send_json(args: &[&str]) -> Value {
    let run: Run = cli(args);
    let lines = run.json_lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    lines[0]["task"].clone()
}

#[test]
fn send_lists_the_actions_and_a_follow_up_send_answers_them() {
    let server = RunServer::start(true);
    let run = cli(&["send", &server.url, "write b.txt"]);
    let text = run.ok();
    let task = &server.tasks()[0];
    let task_id = task["id"].as_str().unwrap();
    assert!(
        text.starts_with(&format!("task {task_id}  INPUT_REQUIRED\n")),
        "{text}"
    );
    assert!(
        text.contains("  agent: Waiting for you to approve write_file.\n    approval  write_file {\"path\":\"b.txt\",\"text\":\"A\"}  approvalId="),
        "{text}"
    );
    assert!(!text.contains("\"actions\""), "no raw JSON: {text}");
    assert!(
        text.contains(&format!(
            "  a2a send {} --task-id {task_id} --data '{{\"approvalResponses\":[{{\"approvalId\":",
            server.url
        )),
        "{text}"
    );
    assert_eq!(server.file("b.txt"), None);

    // A script answers from the JSON.
    let task = send_json(&["send", &server.url, "write c.txt", "--json"]);
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let action = task["status"]["message"]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|part| part["data"]["actions"].get(0))
        .unwrap()
        .clone();
    let answer = json!({"approvalResponses": [{
        "approvalId": action["approvalId"], "approved": true, "token": action["token"]
    }]})
    .to_string();
    let done = send_json(&[
        "send",
        &server.url,
        "--task-id",
        task["id"].as_str().unwrap(),
        "--data",
        &answer,
        "--json",
    ]);
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    assert_eq!(server.file("c.txt").as_deref(), Some("A"));
}

#[test]
fn send_stream_shows_drafts_and_the_pending_client_tool() {
    let server = RunServer::start(true);
    let run = cli(&[
        "send",
        &server.url,
        "where am I",
        "--stream",
        "--data",
        r#"{"clientTools":[{"name":"get_location"}]}"#,
    ]);
    let text = run.ok();
    assert!(
        text.contains("● INPUT_REQUIRED  Waiting for you to run get_location.\n  clientTool  get_location {}  toolCallId="),
        "{text}"
    );
    assert!(
        text.contains("--data '{\"clientToolResults\":[{\"toolCallId\":"),
        "{text}"
    );
    let task_id = server.tasks()[0]["id"].as_str().unwrap().to_owned();
    let call_id = text
        .split("toolCallId=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_owned();
    let answer =
        json!({"clientToolResults": [{"toolCallId": call_id, "output": "Oslo"}]}).to_string();
    let run = cli(&[
        "send",
        &server.url,
        "--task-id",
        &task_id,
        "--data",
        &answer,
        "--stream",
    ]);
    let text = run.ok();
    assert!(text.contains("── draft ──\nDone: Oslo\n"), "{text}");
    assert!(text.contains("── output ──\nDone: Oslo\n"), "{text}");
    assert_eq!(server.only_task_state(), "TASK_STATE_COMPLETED");
}

/// `a2a chat` against `a2a serve --agent llm`: the scripted OpenAI-compatible model, the
/// tests' MCP server's file tools, `write_*` approved in the chat.
#[tokio::test(flavor = "multi_thread")]
async fn chat_with_a_served_llm_agent_approves_a_write() {
    use a2a_test_support::model::{ScriptedModel, Step};

    let root = std::env::temp_dir().join(format!(
        "a2a-cli-actions-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&root).unwrap();
    let model = ScriptedModel::start(vec![
        Step::tool_call(
            "call-todo",
            "write_file",
            json!({"path": "todo.txt", "text": "milk"}),
        ),
        Step::text("Saved todo.txt."),
    ])
    .await
    .unwrap();
    let mcp = format!(
        "{} --root {}",
        a2a_test_support::mcp::server_binary().display(),
        root.display()
    );
    let model_url = model.base_url();
    let server = crate::support::Server::start(&[
        "--agent",
        "llm",
        "--model",
        "scripted",
        "--model-url",
        &model_url,
        "--mcp",
        &mcp,
        "--approve",
        "write_*",
    ]);
    let url = server.url.clone();
    let run = tokio::task::spawn_blocking(move || {
        cli_with_input(&["chat", &url], "save a todo\ny\n/task\n")
    })
    .await
    .unwrap();
    let text = run.ok();
    let expected_start = "\
agent: Waiting for you to approve write_file.
▸ write_file wants to run
    {
      \"path\": \"todo.txt\",
      \"text\": \"milk\"
    }
approve write_file? [y/N] y
agent: Saved todo.txt.
";
    assert!(
        text.starts_with(expected_start),
        "{text}\nserver log:\n{}",
        server.log()
    );
    // Drafted, then not repeated: next comes `/task`.
    assert!(
        text[expected_start.len()..].starts_with("context "),
        "{text}"
    );
    assert!(text.contains("  COMPLETED\n"), "{text}");
    assert_eq!(
        std::fs::read_to_string(root.join("todo.txt")).unwrap(),
        "milk"
    );
    let _ = std::fs::remove_dir_all(&root);
}
