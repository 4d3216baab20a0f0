//! `a2a serve --agent llm` as users run it: the real binary, the tests' scripted
//! OpenAI-compatible model server, and the tests' MCP server (`a2a-test-mcp`) over stdio.
//! Approvals, start-up errors, and runs that outlive their instance over PostgreSQL (a drain
//! resumed elsewhere; SIGKILL during a tool call recovered elsewhere).

use std::path::{Path, PathBuf};
use std::time::Duration;

use a2a_test_support::model::{ScriptedModel, Step};
use serde_json::{Value, json};

use crate::client_mock::cli;
use crate::support::{Server, a2a, eventually};

/// A directory for the MCP server's files, removed on drop.
struct Root(PathBuf);

impl Root {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "a2a-llm-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&path).unwrap();
        std::fs::write(path.join("notes.txt"), "buy milk").unwrap();
        Self(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn mcp(&self) -> String {
        format!(
            "{} --root {}",
            a2a_test_support::mcp::server_binary().display(),
            self.0.display()
        )
    }

    fn events(&self) -> String {
        std::fs::read_to_string(self.0.join(".events")).unwrap_or_default()
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn llm_args<'a>(model: &'a str, mcp: &'a str) -> Vec<&'a str> {
    vec![
        "--agent",
        "llm",
        "--model",
        "scripted",
        "--model-url",
        model,
        "--mcp",
        mcp,
        "--approve",
        "write_*",
    ]
}

fn actions(task: &Value) -> Vec<Value> {
    task["status"]["message"]["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|part| part["data"]["actions"].as_array().cloned())
        .unwrap_or_default()
}

fn follow_up(task_id: &str, parts: &Value) -> Value {
    json!({"message": {"messageId": format!("m-{}", rand_id()), "role": "ROLE_USER", "taskId": task_id, "parts": parts}})
}

fn rand_id() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_llm_agent_runs_mcp_tools_and_asks_before_writing() {
    let root = Root::new("approve");
    let model = ScriptedModel::start(vec![
        Step::tool_call("call-list", "list_files", json!({})),
        Step::tool_call(
            "call-todo",
            "write_file",
            json!({"path": "todo.txt", "text": "milk"}),
        )
        .and_tool_call(
            "call-junk",
            "write_file",
            json!({"path": "junk.txt", "text": "x"}),
        ),
        Step::text("Saved todo.txt."),
    ])
    .await
    .unwrap();
    let url = model.base_url();
    let mcp = root.mcp();
    let server = Server::start(&llm_args(&url, &mcp));

    // The card lists the tools as skills, saying which need approval.
    let card = server.get("/.well-known/agent-card.json").await;
    let skills: Vec<(&str, &str)> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| {
            (
                skill["id"].as_str().unwrap(),
                skill["tags"][0].as_str().unwrap(),
            )
        })
        .collect();
    assert!(skills.contains(&("list_files", "tool")), "{skills:?}");
    assert!(
        skills.contains(&("write_file", "needs-approval")),
        "{skills:?}"
    );

    let result = server.send("m-1", "save a todo", json!({})).await;
    let task = &result["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let pending = actions(task);
    assert_eq!(pending.len(), 2, "{task}");
    // list_files ran before the model's second step.
    let second = model.requests()[1]["messages"].to_string();
    assert!(second.contains("notes.txt"), "{second}");

    let todo = pending
        .iter()
        .find(|action| action["toolCallId"] == "call-todo")
        .unwrap();
    let junk = pending
        .iter()
        .find(|action| action["toolCallId"] == "call-junk")
        .unwrap();
    let answer = json!([{"data": {"approvalResponses": [
        {"approvalId": todo["approvalId"], "approved": true, "token": todo["token"]},
        {"approvalId": junk["approvalId"], "approved": false}
    ]}}]);
    let task_id = task["id"].as_str().unwrap();
    let result = server
        .call("SendMessage", follow_up(task_id, &answer))
        .await;
    let task = &result["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "Saved todo.txt.");
    assert_eq!(
        std::fs::read_to_string(root.path().join("todo.txt")).unwrap(),
        "milk"
    );
    assert!(!root.path().join("junk.txt").exists());
}

/// Runs `command` as `a2a serve --agent llm` with model `m` at `model_url`, to its end (a
/// start that fails ends at once).
fn start_llm(mut command: std::process::Command, model_url: &str) -> std::process::Output {
    command
        .args([
            "serve",
            "--no-auth",
            "--store",
            "memory",
            "--bind",
            "127.0.0.1:0",
        ])
        .args(["--agent", "llm", "--model", "m", "--model-url", model_url])
        .output()
        .unwrap()
}

#[test]
fn an_unreachable_model_or_a_refused_key_stops_the_start_with_a_clear_error() {
    let output = start_llm(a2a(), "http://127.0.0.1:1/v1");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot reach the model endpoint http://127.0.0.1:1/v1"),
        "{stderr}"
    );

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime
        .block_on(ScriptedModel::start_with_api_key(
            Vec::new(),
            "the-right-key",
        ))
        .unwrap();
    let mut command = a2a();
    command.env("A2A_MODEL_API_KEY", "a-wrong-key-0123");
    let output = start_llm(command, &model.base_url());
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("refused the API key"), "{stderr}");
    assert!(
        !stderr.contains("a-wrong-key-0123"),
        "the key leaked: {stderr}"
    );

    let output = a2a()
        .args(["serve", "--no-auth", "--store", "memory", "--agent", "llm"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--model"), "{stderr}");
}

/// A PostgreSQL schema of the test's own, reached through the URL's search path.
struct Database {
    schema: a2a_test_support::postgres::Schema,
    url: String,
}

impl Database {
    async fn new(prefix: &str) -> Option<Self> {
        let schema = a2a_test_support::postgres::Schema::reachable(prefix).await?;
        let mut conn = schema.connect().await;
        sqlx::raw_sql(&format!("CREATE SCHEMA \"{}\"", schema.name()))
            .execute(&mut conn)
            .await
            .unwrap();
        let separator = if schema.url().contains('?') { '&' } else { '?' };
        let url = format!(
            "{}{separator}options=-c%20search_path%3D{}",
            schema.url(),
            schema.name()
        );
        Some(Self { schema, url })
    }
}

fn instance(database: &Database, model: &str, mcp: &str, id: &str) -> Server {
    let mut args = llm_args(model, mcp);
    args.extend([
        "--store",
        &database.url,
        "--instance-id",
        id,
        "--lease-ttl",
        "2000",
        "--approval-key",
        "shared approval key",
    ]);
    Server::start(&args)
}

async fn state_of(server: &Server, task_id: &str) -> String {
    let task = server.call("GetTask", json!({"id": task_id})).await;
    task["status"]["state"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// `Some` once task `task_id` on `server` is in `state`, within 30 seconds.
async fn reaches(server: &Server, task_id: &str, state: &str) -> Option<()> {
    eventually(Duration::from_secs(30), || async move {
        (state_of(server, task_id).await == state).then_some(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_drained_on_one_instance_resumes_on_another_over_postgres() {
    let Some(database) = Database::new("llm_drain").await else {
        return;
    };
    let root = Root::new("drain");
    let model = ScriptedModel::start(vec![
        Step::tool_call("call-read", "read_file", json!({"path": "notes.txt"})),
        Step::text("never sent").delay(Duration::from_secs(60)),
        Step::text("Your notes say: buy milk."),
    ])
    .await
    .unwrap();
    let url = model.base_url();
    let mcp = root.mcp();
    let first = instance(&database, &url, &mcp, "first");
    let result = first
        .send(
            "m-drain",
            "read my notes",
            json!({"configuration": {"returnImmediately": true}}),
        )
        .await;
    let task_id = result["task"]["id"].as_str().unwrap().to_owned();
    // The second model call (after the tool ran) is under way: drain now.
    let called = eventually(Duration::from_secs(10), || {
        let seen = model.requests().len();
        async move { (seen == 2).then_some(()) }
    })
    .await;
    assert!(called.is_some(), "the second model call never came");
    first.signal_terminate();

    let second = instance(&database, &url, &mcp, "second");
    let drained = eventually(Duration::from_secs(10), || {
        let second = &second;
        let task_id = task_id.clone();
        async move {
            let task = second.call("GetTask", json!({"id": task_id})).await;
            (task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED").then_some(task)
        }
    })
    .await
    .expect("the drained task waits for input");
    assert!(
        drained["status"]["message"].to_string().contains("drained"),
        "{drained}"
    );
    drop(first);

    let result = second
        .call(
            "SendMessage",
            follow_up(&task_id, &json!([{"text": "go on"}])),
        )
        .await;
    let task = &result["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"],
        "Your notes say: buy milk."
    );
    // Resumed from the last save: the tool's result was kept, the tool not called again.
    let resumed = model.requests()[2]["messages"].to_string();
    assert!(resumed.contains("buy milk"), "{resumed}");
    assert_eq!(model.requests().len(), 3);
    drop(second);
    database.schema.finish().await;
}

/// Sends `text` (as message `message_id`, returning at once) to a first instance, waits
/// until the MCP tool `tool` has started, then SIGKILLs that instance; the task's id.
async fn killed_during_a_tool_call(
    database: &Database,
    root: &Root,
    url: &str,
    [message_id, text, tool]: [&str; 3],
) -> String {
    let mcp = root.mcp();
    let mut first = instance(database, url, &mcp, "doomed");
    let result = first
        .send(
            message_id,
            text,
            json!({"configuration": {"returnImmediately": true}}),
        )
        .await;
    let task_id = result["task"]["id"].as_str().unwrap().to_owned();
    let started_line = format!("{tool} started");
    let started = eventually(Duration::from_secs(10), || {
        let events = root.events();
        let started_line = started_line.clone();
        async move { events.contains(&started_line).then_some(()) }
    })
    .await;
    assert!(started.is_some(), "the tool call never started");
    first.kill();
    task_id
}

#[tokio::test(flavor = "multi_thread")]
async fn sigkill_during_a_tool_call_is_recovered_on_another_instance_over_postgres() {
    let Some(database) = Database::new("llm_kill").await else {
        return;
    };
    let root = Root::new("kill");
    let model = ScriptedModel::start(vec![
        Step::tool_call("call-slow", "slow", json!({"seconds": 2})),
        Step::text("Done after the slow tool."),
    ])
    .await
    .unwrap();
    let url = model.base_url();
    let mcp = root.mcp();
    let task_id =
        killed_during_a_tool_call(&database, &root, &url, ["m-kill", "be slow", "slow"]).await;

    // Another instance finds the lease expired and resumes the run: the slow tool is
    // read-only, so calling it again is harmless.
    let second = instance(&database, &url, &mcp, "survivor");
    let done = reaches(&second, &task_id, "TASK_STATE_COMPLETED").await;
    let task = second.call("GetTask", json!({"id": task_id})).await;
    assert!(done.is_some(), "never completed: {task}\n{}", second.log());
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"],
        "Done after the slow tool."
    );
    assert_eq!(
        root.events().matches("slow started").count(),
        2,
        "{}",
        root.events()
    );
    drop(second);
    database.schema.finish().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigkill_during_a_tool_call_with_effects_stops_the_run_for_an_operator() {
    let Some(database) = Database::new("llm_reconcile").await else {
        return;
    };
    let root = Root::new("reconcile");
    let model = ScriptedModel::start(vec![
        Step::tool_call("call-change", "slow_change", json!({"seconds": 30})),
        Step::text("The change is in place."),
    ])
    .await
    .unwrap();
    let url = model.base_url();
    let mcp = root.mcp();
    let task_id = killed_during_a_tool_call(
        &database,
        &root,
        &url,
        ["m-change", "change something", "slow_change"],
    )
    .await;

    // Whether the change happened is unknown: the recovered run is not driven on, and the
    // task says why instead of staying WORKING.
    let second = instance(&database, &url, &mcp, "survivor");
    let waiting = reaches(&second, &task_id, "TASK_STATE_INPUT_REQUIRED").await;
    let task = second.call("GetTask", json!({"id": task_id})).await;
    assert!(waiting.is_some(), "never settled: {task}\n{}", second.log());
    assert!(
        task["status"]["message"]
            .to_string()
            .contains("tool-reconciliation-required"),
        "{task}"
    );
    assert_eq!(root.events().matches("slow_change started").count(), 1);
    let refused = second
        .rpc(
            "SendMessage",
            follow_up(&task_id, &json!([{"text": "go on"}])),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32004, "{refused}");

    // An operator checked that the change happened, and settles the call with `a2a send
    // --data`: the run goes on from there, and the tool is not run again.
    let shown = cli(&["get", &second.url, &task_id]);
    assert!(
        shown.ok().contains("settle  slow_change"),
        "{}",
        shown.stdout
    );
    let settle =
        r#"{"reconciledToolResults": [{"toolCallId": "call-change", "output": "changed"}]}"#;
    let run = cli(&["send", &second.url, "--task-id", &task_id, "--data", settle]);
    let text = run.ok();
    assert!(text.contains("The change is in place."), "{text}");
    assert!(text.contains("COMPLETED"), "{text}");
    assert_eq!(root.events().matches("slow_change started").count(), 1);
    drop(second);
    database.schema.finish().await;
}
