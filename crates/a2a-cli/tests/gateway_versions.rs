//! `a2a gateway` between A2A versions, with real agents only: seed 004's curl examples
//! (v0.3 calls such as `POST /a2a/echo-agent-01` with `"method":"message/send"`) answered as
//! the seed shows by `a2a serve --register` agents, the slow-agent timeout included, both
//! by agents as `a2a serve` starts them (v0.3 beside v1.0: the gateway passes the v0.3 call
//! through) and by agents that serve v1.0 only (the gateway translates); a v0.3 caller's
//! calls and streams translated for v1.0-only agents; and a
//! v1.0 caller reaching an agent served by the official Python SDK 0.3.26, which speaks
//! v0.3 only.
//!
//! The Python agent is tests/interop/python03/gateway_agent.py, run with
//! `target/python-sdk-03/bin/python` (`A2A_PYTHON_03` overrides it). Without that
//! virtualenv its test is skipped with a notice, except under `CI=true`, where it fails.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

#[allow(dead_code)]
#[path = "it/support.rs"]
mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use a2a_test_support::gateway_seed::{self, as_the_seed_shows};
use a2a_test_support::python::{self, Listening, workspace_root};
use serde_json::{Value, json};

use crate::support::{Server, a2a, eventually};

/// A running `a2a gateway` on a free port, registry in memory.
struct Gateway {
    server: Server,
    http: reqwest::Client,
}

impl Gateway {
    fn start() -> Self {
        let server = Server::gateway(&["--store", "sqlite::memory:"]);
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        Self { server, http }
    }

    fn url(&self) -> &str {
        &self.server.url
    }

    /// POSTs `body` as it is to `path` with this `Content-Type` (and `A2A-Version` when
    /// given); the status and the body as JSON.
    async fn post(
        &self,
        path: &str,
        content_type: &str,
        version: Option<&str>,
        body: &str,
    ) -> (u16, Value) {
        let (status, text) = self.post_text(path, content_type, version, body).await;
        let json = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
        (status, json)
    }

    async fn post_text(
        &self,
        path: &str,
        content_type: &str,
        version: Option<&str>,
        body: &str,
    ) -> (u16, String) {
        let mut request = self
            .http
            .post(format!("{}{path}", self.url()))
            .header("content-type", content_type)
            .body(body.to_owned());
        if let Some(version) = version {
            request = request.header("a2a-version", version);
        }
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    /// A JSON-RPC call to `/a2a/{agent_id}` (v1.0 with the header when `version` says so).
    async fn rpc(&self, agent_id: &str, version: Option<&str>, request: &Value) -> Value {
        let (status, body) = self
            .post(
                &format!("/a2a/{agent_id}"),
                "application/json",
                version,
                &request.to_string(),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// The `data:` documents of a streamed call, in order.
    async fn stream(&self, agent_id: &str, version: Option<&str>, request: &Value) -> Vec<Value> {
        let (status, text) = self
            .post_text(
                &format!("/a2a/{agent_id}"),
                "application/json",
                version,
                &request.to_string(),
            )
            .await;
        assert_eq!(status, 200, "{text}");
        text.split("\n\n")
            .flat_map(str::lines)
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| serde_json::from_str(data.trim()).unwrap())
            .collect()
    }

    /// Waits until `agent_id` is registered.
    async fn knows(&self, agent_id: &str, log: impl Fn() -> String) {
        let found = eventually(Duration::from_secs(15), || async {
            let response = self
                .http
                .get(format!("{}/agents/{agent_id}", self.url()))
                .send()
                .await
                .ok()?;
            (response.status() == 200).then_some(())
        })
        .await;
        assert!(
            found.is_some(),
            "{agent_id} never registered; agent log:\n{}\ngateway log:\n{}",
            log(),
            self.server.log()
        );
    }
}

/// `--protocol-versions 1.0` when `a2a serve` has the flag; without it, `a2a serve` speaks
/// v1.0 only anyway.
fn v1_only() -> Vec<&'static str> {
    let help = a2a().args(["serve", "--help"]).output().unwrap();
    if String::from_utf8_lossy(&help.stdout).contains("--protocol-versions") {
        vec!["--protocol-versions", "1.0"]
    } else {
        Vec::new()
    }
}

/// Which A2A versions an agent of these tests serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Serves {
    /// As `a2a serve` starts: v0.3 beside v1.0.
    Default,
    /// `--protocol-versions 1.0`.
    V1Only,
}

/// `a2a serve` registered with `gateway` as `agent_id`, serving `serves`; `extra` is more
/// arguments (`--agent exec -- …`).
async fn agent(gateway: &Gateway, agent_id: &str, serves: Serves, extra: &[&str]) -> Server {
    let mut args = vec![
        "--register",
        gateway.url(),
        "--agent-id",
        agent_id,
        "--heartbeat-interval",
        "500ms",
    ];
    let versions = if serves == Serves::V1Only {
        v1_only()
    } else {
        Vec::new()
    };
    args.extend(versions.iter().copied());
    args.extend_from_slice(extra);
    let server = Server::start(&args);
    gateway.knows(agent_id, || server.log()).await;
    let card: Value = gateway
        .http
        .get(format!("{}/agents/{agent_id}", gateway.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let versions: Vec<&str> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|interface| interface["protocolVersion"].as_str())
        .collect();
    let v1_only = versions.iter().all(|version| version.starts_with('1'));
    assert_eq!(
        v1_only,
        serves == Serves::V1Only,
        "the agent must serve {serves:?}: {card}"
    );
    server
}

/// Asserts the gateway's own error `code` with `message`.
fn assert_gateway_error(body: &Value, code: i64, message: &str) {
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["error"]["message"], message, "{body}");
    assert_eq!(body["error"]["data"][0]["domain"], "a2a-gateway", "{body}");
    assert_eq!(
        body["error"]["data"][0]["metadata"]["executed"], "false",
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seeds_examples_are_answered_as_the_seed_shows_by_default_agents() {
    the_seeds_examples_are_answered_as_the_seed_shows(Serves::Default).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seeds_examples_are_answered_as_the_seed_shows_by_v1_only_agents() {
    the_seeds_examples_are_answered_as_the_seed_shows(Serves::V1Only).await;
}

/// Seed 004's curl examples against real agents serving `serves`.
async fn the_seeds_examples_are_answered_as_the_seed_shows(serves: Serves) {
    let gateway = Gateway::start();
    let _echo = agent(&gateway, "echo-agent-01", serves, &[]).await;
    // slow-agent-01 takes 5 s, as in the seed.
    let _slow = agent(
        &gateway,
        "slow-agent-01",
        serves,
        &["--agent", "exec", "--", "sh", "-c", "sleep 5; cat"],
    )
    .await;

    // Agent not found (-32002): the seed's curl, byte for byte.
    let (status, body) = gateway
        .post(
            "/a2a/nonexistent-agent",
            "application/json",
            None,
            gateway_seed::UNKNOWN_AGENT_CALL,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        as_the_seed_shows(&body),
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"agent not found: nonexistent-agent"}})
    );
    assert_gateway_error(&body, -32002, "agent not found: nonexistent-agent");

    // Invalid requests (the JSON-RPC base codes), before any routing.
    for case in gateway_seed::invalid_requests() {
        let (status, body) = gateway
            .post(
                &format!("/a2a/{}", case.agent_id),
                case.content_type,
                None,
                case.body,
            )
            .await;
        let request = case.body;
        assert_eq!(status, 200, "{request}: {body}");
        assert_eq!(body["id"], case.id, "{request}: {body}");
        assert_eq!(body["error"]["code"], case.code, "{request}: {body}");
        assert_eq!(body["error"]["data"][0]["domain"], "a2a-gateway", "{body}");
    }

    // Timeout (-32001): the seed's curl to the slow agent, answered after one second.
    let started = Instant::now();
    let (status, body) = gateway
        .post(
            "/a2a/slow-agent-01",
            "application/json",
            None,
            gateway_seed::SLOW_AGENT_CALL,
        )
        .await;
    let elapsed = started.elapsed();
    assert_eq!(status, 200);
    assert_eq!(
        as_the_seed_shows(&body),
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"agent timeout: slow-agent-01"}})
    );
    assert_gateway_error(&body, -32001, "agent timeout: slow-agent-01");
    assert!(
        elapsed >= Duration::from_secs(1) && elapsed < Duration::from_secs(3),
        "answered after {elapsed:?}"
    );

    // And the seed's message to the echo agent is answered, in v0.3.
    let body = gateway
        .rpc(
            "echo-agent-01",
            None,
            &json!({
                "jsonrpc": "2.0", "id": 1, "method": "message/send",
                "params": {"message": {"parts": [{"text": "Hello?"}]}}
            }),
        )
        .await;
    let task = &body["result"];
    assert_eq!(task["kind"], "task", "{body}");
    assert_eq!(task["status"]["state"], "completed", "{body}");
    assert_eq!(task["artifacts"][0]["parts"][0]["kind"], "text", "{body}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "Hello?", "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_v03_caller_reaches_a_v1_only_agent_calls_and_streams() {
    let gateway = Gateway::start();
    let _echo = agent(&gateway, "echo-agent-01", Serves::V1Only, &[]).await;
    let message = json!({
        "kind": "message", "messageId": "m-1", "role": "user",
        "parts": [{"kind": "text", "text": "one two three"}]
    });

    // message/stream: v0.3 events, the last one final.
    let events = gateway
        .stream(
            "echo-agent-01",
            None,
            &json!({"jsonrpc": "2.0", "id": "s", "method": "message/stream", "params": {"message": message}}),
        )
        .await;
    assert!(events.len() >= 3, "{events:?}");
    assert!(events.iter().all(|event| event["id"] == "s"), "{events:?}");
    let kinds: Vec<&str> = events
        .iter()
        .map(|event| event["result"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds[0], "task", "{events:?}");
    assert!(kinds.contains(&"artifact-update"), "{events:?}");
    let last = &events.last().unwrap()["result"];
    assert_eq!(last["kind"], "status-update", "{events:?}");
    assert_eq!(last["status"]["state"], "completed");
    assert_eq!(last["final"], true);
    let text: String = events
        .iter()
        .filter(|event| event["result"]["kind"] == "artifact-update")
        .flat_map(|event| event["result"]["artifact"]["parts"].as_array().unwrap())
        .map(|part| part["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "one two three");

    // tasks/get of that task, in v0.3.
    let task_id = events[0]["result"]["id"].as_str().unwrap();
    let body = gateway
        .rpc(
            "echo-agent-01",
            None,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}}),
        )
        .await;
    assert_eq!(body["result"]["kind"], "task", "{body}");
    assert_eq!(body["result"]["id"], task_id);
    assert_eq!(body["result"]["history"][0]["role"], "user", "{body}");

    // The agent's own error, with v0.3's code: TaskNotFound is -32001 in both versions,
    // told apart from the gateway's timeout by its domain.
    let body = gateway
        .rpc(
            "echo-agent-01",
            None,
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/cancel", "params": {"id": "no-such-task"}}),
        )
        .await;
    assert_eq!(body["error"]["code"], -32001, "{body}");
    assert_eq!(
        body["error"]["data"][0]["domain"], "a2a-protocol.org",
        "{body}"
    );

    // A request v0.3 cannot read is refused by the gateway (-32602), never sent.
    let body = gateway
        .rpc(
            "echo-agent-01",
            None,
            &json!({"jsonrpc": "2.0", "id": 4, "method": "message/send", "params": {"message": {"parts": [{"kind": "text"}]}}}),
        )
        .await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert_eq!(body["error"]["data"][0]["domain"], "a2a-gateway", "{body}");

    // A v1.0 caller to the same agent is forwarded as before.
    let body = gateway
        .rpc(
            "echo-agent-01",
            Some("1.0"),
            &json!({"jsonrpc": "2.0", "id": 5, "method": "GetTask", "params": {"id": task_id}}),
        )
        .await;
    assert_eq!(
        body["result"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_v1_caller_reaches_a_v03_only_python_agent_calls_and_streams() {
    let Some(python) = python::interpreter_03() else {
        return;
    };
    let gateway = Gateway::start();
    let mut command = Command::new(python);
    command
        .arg(workspace_root().join("tests/interop/python03/gateway_agent.py"))
        .arg("0");
    let agent = Listening::start(
        command,
        "ready ",
        "gateway_agent.py",
        Duration::from_secs(30),
    );
    // Registered with the card exactly as the agent serves it: a v0.3 card.
    let card: Value = reqwest::get(format!("{}/.well-known/agent-card.json", agent.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["protocolVersion"], "0.3.0", "{card}");
    assert!(card.get("supportedInterfaces").is_none(), "{card}");
    let (status, record) = gateway
        .post(
            "/agents/register",
            "application/json",
            None,
            &json!({"agent_id": "python-03", "card": card}).to_string(),
        )
        .await;
    assert_eq!(status, 200, "{record}");
    let send = |id: i64, method: &str, text: &str| {
        json!({
            "jsonrpc": "2.0", "id": id, "method": method,
            "params": {"message": {"messageId": format!("m-{id}"), "role": "ROLE_USER", "parts": [{"text": text}]}}
        })
    };

    // SendMessage: a v1.0 task.
    let body = gateway
        .rpc("python-03", Some("1.0"), &send(1, "SendMessage", "Hello?"))
        .await;
    let task = &body["result"]["task"];
    assert_eq!(
        task["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{body}\n{}",
        agent.log()
    );
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"], "echo: Hello?",
        "{body}"
    );
    let task_id = task["id"].as_str().unwrap().to_owned();

    // SendStreamingMessage: v1.0 stream responses.
    let events = gateway
        .stream(
            "python-03",
            Some("1.0"),
            &send(2, "SendStreamingMessage", "steps 2"),
        )
        .await;
    assert!(events.iter().all(|event| event["id"] == 2), "{events:?}");
    assert!(events[0]["result"]["task"]["id"].is_string(), "{events:?}");
    let steps: Vec<&str> = events
        .iter()
        .filter_map(|event| {
            event["result"]["artifactUpdate"]["artifact"]["parts"][0]["text"].as_str()
        })
        .collect();
    assert_eq!(steps, ["step 0", "step 1"], "{events:?}");
    let last = &events.last().unwrap()["result"]["statusUpdate"];
    assert_eq!(
        last["status"]["state"], "TASK_STATE_COMPLETED",
        "{events:?}"
    );

    // GetTask: the task, in v1.0.
    let body = gateway
        .rpc(
            "python-03",
            Some("1.0"),
            &json!({"jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": task_id}}),
        )
        .await;
    assert_eq!(body["result"]["id"], task_id.as_str(), "{body}");
    assert_eq!(body["result"]["history"][0]["role"], "ROLE_USER", "{body}");

    // The SDK's own v0.3 error, read as v1.0.
    let body = gateway
        .rpc(
            "python-03",
            Some("1.0"),
            &json!({"jsonrpc": "2.0", "id": 4, "method": "GetTask", "params": {"id": "no-such-task"}}),
        )
        .await;
    assert_eq!(body["error"]["code"], -32001, "{body}");
    assert_eq!(
        body["error"]["data"][0]["reason"], "TASK_NOT_FOUND",
        "{body}"
    );

    // SubscribeToTask (v0.3 tasks/resubscribe) to a running task: its updates, in v1.0.
    let body = gateway
        .rpc(
            "python-03",
            Some("1.0"),
            &json!({
                "jsonrpc": "2.0", "id": 7, "method": "SendMessage",
                "params": {
                    "message": {"messageId": "m-7", "role": "ROLE_USER", "parts": [{"text": "steps 10"}]},
                    "configuration": {"returnImmediately": true}
                }
            }),
        )
        .await;
    let running = body["result"]["task"]["id"].as_str().unwrap().to_owned();
    let events = gateway
        .stream(
            "python-03",
            Some("1.0"),
            &json!({"jsonrpc": "2.0", "id": 8, "method": "SubscribeToTask", "params": {"id": running}}),
        )
        .await;
    let last = &events.last().unwrap()["result"]["statusUpdate"];
    assert_eq!(last["taskId"], running.as_str(), "{events:?}");
    assert_eq!(
        last["status"]["state"], "TASK_STATE_COMPLETED",
        "{events:?}"
    );

    // CancelTask of a finished task: the agent's TaskNotCancelable (-32002, as the
    // gateway's agent-not-found), told apart by its domain.
    let body = gateway
        .rpc(
            "python-03",
            Some("1.0"),
            &json!({"jsonrpc": "2.0", "id": 9, "method": "CancelTask", "params": {"id": task_id}}),
        )
        .await;
    assert_eq!(body["error"]["code"], -32002, "{body}");
    assert_eq!(
        body["error"]["data"][0]["domain"], "a2a-protocol.org",
        "{body}"
    );

    // ListTasks has no v0.3 form: the gateway refuses it.
    let body = gateway
        .rpc(
            "python-03",
            Some("1.0"),
            &json!({"jsonrpc": "2.0", "id": 5, "method": "ListTasks", "params": {}}),
        )
        .await;
    assert_eq!(body["error"]["code"], -32601, "{body}");
    assert_eq!(body["error"]["data"][0]["domain"], "a2a-gateway", "{body}");

    // `a2a send` through the gateway: the card there offers both versions, at the gateway.
    let url = format!("{}/a2a/python-03", gateway.url());
    let output = tokio::task::spawn_blocking(move || {
        a2a()
            .args(["send", &url, "from a2a send"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("echo: from a2a send"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // A v0.3 caller reaches it untouched.
    let body = gateway
        .rpc(
            "python-03",
            None,
            &json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/get", "params": {"id": task_id}}),
        )
        .await;
    assert_eq!(body["result"]["kind"], "task", "{body}");
}
