//! A run agent served on a real socket, its scripted model, its tools and small clients for
//! both bindings.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_run::approval::ApprovalKey;
use a2a_run::openai::OpenAiModel;
use a2a_run::policy::ToolPolicy;
use a2a_run::run::ToolSpec;
use a2a_run::store::{InMemoryRunStore, RunStore};
use a2a_run::tools::{FnTools, ToolOutput, ToolSource, Toolbox};
use a2a_run::{Limits, OutputKind, RunAgent};
use a2a_server::auth::Authentication;
use a2a_server::{A2aServer, A2aServerBuilder};
use a2a_test_support::model::{ScriptedModel, Step};
use a2a_types::card::{ApiKeyLocation, SecurityRequirement, SecurityScheme};
use a2a_types::{AgentCapabilities, AgentCard, AgentInterface, ProtocolBinding};
use serde_json::{Value, json};

/// Files the tools read and write.
pub type Files = Arc<Mutex<BTreeMap<String, String>>>;

/// The tools every test agent has: `read_file` runs freely, `write_file` needs approval,
/// `delete_file` is refused, and `wait` sleeps (for cancel and drain tests).
pub fn tools(files: &Files) -> FnTools {
    let read = Arc::clone(files);
    let write = Arc::clone(files);
    let path_schema =
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    FnTools::new()
        .tool(
            ToolSpec::new("read_file", "Reads a file", path_schema.clone()).repeatable(true),
            move |arguments| {
                let files = Arc::clone(&read);
                async move {
                    let path = arguments["path"].as_str().unwrap_or_default().to_owned();
                    Ok(match files.lock().unwrap().get(&path) {
                        Some(text) => ToolOutput::ok(text.clone()),
                        None => ToolOutput::error(format!("no file {path}")),
                    })
                }
            },
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
        .tool(
            ToolSpec::new("delete_file", "Deletes a file", path_schema),
            |_| async { Ok(ToolOutput::ok("deleted")) },
        )
        .tool(
            ToolSpec::new("wait", "Waits", json!({"type": "object"})),
            |arguments| async move {
                let seconds = arguments["seconds"].as_u64().unwrap_or(1);
                tokio::time::sleep(Duration::from_secs(seconds)).await;
                Ok(ToolOutput::ok("waited"))
            },
        )
}

/// The two callers of a secured agent: each has its own tasks (and runs).
pub const ALICE: &str = "alice-key";
pub const BOB: &str = "bob-key";

/// How a test agent is set up.
pub struct Setup {
    pub limits: Limits,
    pub streaming: bool,
    pub store: Arc<dyn RunStore>,
    pub key: Option<ApprovalKey>,
    pub output: OutputKind,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            limits: Limits::default(),
            streaming: true,
            store: Arc::new(InMemoryRunStore::new()),
            key: Some(ApprovalKey::new(b"test approval key".to_vec())),
            output: OutputKind::Text,
        }
    }
}

/// A run agent on a real socket.
pub struct Harness {
    pub model: ScriptedModel,
    pub files: Files,
    pub server: A2aServer,
    pub addr: SocketAddr,
    pub http: reqwest::Client,
}

impl Harness {
    pub async fn start(steps: Vec<Step>) -> Self {
        Self::start_with(steps, Setup::default()).await
    }

    pub async fn start_with(steps: Vec<Step>, setup: Setup) -> Self {
        Self::start_full(steps, setup, None).await
    }

    async fn start_full(
        steps: Vec<Step>,
        setup: Setup,
        tasks: Option<Arc<a2a_server::store::InMemoryTaskStore>>,
    ) -> Self {
        let model = ScriptedModel::start(steps).await.unwrap();
        let files: Files = Arc::default();
        files
            .lock()
            .unwrap()
            .insert("notes.txt".to_owned(), "buy milk".to_owned());
        let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(tools(&files))];
        let toolbox = Toolbox::gather(sources).await.unwrap();
        let policy = ToolPolicy::allow_all()
            .ask("write_*")
            .unwrap()
            .deny("delete_*")
            .unwrap();
        let mut builder = RunAgent::builder(
            Arc::new(
                OpenAiModel::new(model.base_url(), "scripted")
                    .with_timeout(Duration::from_secs(60)),
            ),
            setup.store,
        )
        .system("You manage files.")
        .toolbox(toolbox)
        .policy(policy)
        .limits(setup.limits)
        .drafts(setup.streaming)
        .output(setup.output)
        .label("scripted");
        if let Some(key) = setup.key {
            builder = builder.approval_key(key);
        }
        let agent = builder.build();
        let mut builder = A2aServer::builder(card(setup.streaming), agent).authentication(
            Authentication::required()
                .named_api_key("alice", ALICE)
                .named_api_key("bob", BOB),
        );
        if let Some(tasks) = tasks {
            builder = builder.shared_store(tasks);
        }
        Self::serve(model, files, builder).await
    }

    async fn serve(model: ScriptedModel, files: Files, builder: A2aServerBuilder) -> Self {
        let server = builder.build().expect("server builds");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = server.router();
        tokio::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        Self {
            model,
            files,
            server,
            addr,
            http,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// A JSON-RPC call as `caller`; the whole response.
    pub async fn jsonrpc_as(&self, caller: &str, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.http
            .post(self.url("/a2a"))
            .header("A2A-Version", "1.0")
            .header("X-API-Key", caller)
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// SendMessage over `binding` as Alice; the task, or the error (JSON-RPC `error`, or
    /// the HTTP+JSON error body).
    pub async fn send(&self, binding: Binding, message: Value) -> Result<Value, Value> {
        self.send_as(ALICE, binding, json!({"message": message}))
            .await
    }

    pub async fn send_as(
        &self,
        caller: &str,
        binding: Binding,
        params: Value,
    ) -> Result<Value, Value> {
        match binding {
            Binding::JsonRpc => {
                let response = self.jsonrpc_as(caller, "SendMessage", params).await;
                match response.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(response["result"]["task"].clone()),
                }
            }
            Binding::Rest => {
                let response = self
                    .http
                    .post(self.url("/rest/message:send"))
                    .header("A2A-Version", "1.0")
                    .header("X-API-Key", caller)
                    .json(&params)
                    .send()
                    .await
                    .unwrap();
                let ok = response.status().is_success();
                let body: Value = response.json().await.unwrap();
                if ok {
                    Ok(body["task"].clone())
                } else {
                    Err(body)
                }
            }
        }
    }

    /// GetTask as `caller` (full history); `Err` with the JSON-RPC error.
    pub async fn get_as(&self, caller: &str, task_id: &str) -> Result<Value, Value> {
        let response = self
            .jsonrpc_as(caller, "GetTask", json!({"id": task_id}))
            .await;
        match response.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(response["result"].clone()),
        }
    }

    pub async fn get(&self, task_id: &str) -> Value {
        self.get_as(ALICE, task_id).await.unwrap()
    }

    /// Polls GetTask until the task is in `state` (10 s at most).
    pub async fn wait_for(&self, task_id: &str, state: &str) -> Value {
        for _ in 0..200 {
            let task = self.get(task_id).await;
            if task["status"]["state"] == state {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "task {task_id} never reached {state}: {}",
            self.get(task_id).await
        );
    }

    /// SendStreamingMessage as Alice: every SSE frame as (id, data).
    pub async fn stream(&self, message: Value) -> Vec<(Option<String>, Value)> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": message}});
        let text = self
            .http
            .post(self.url("/a2a"))
            .header("A2A-Version", "1.0")
            .header("X-API-Key", ALICE)
            .json(&body)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let mut frames = Vec::new();
        for block in text.split("\n\n") {
            let mut id = None;
            let mut data = String::new();
            for line in block.lines() {
                if let Some(value) = line.strip_prefix("id:") {
                    id = Some(value.trim().to_owned());
                } else if let Some(value) = line.strip_prefix("data:") {
                    data.push_str(value.trim_start());
                }
            }
            if !data.is_empty() {
                frames.push((id, serde_json::from_str(&data).unwrap()));
            }
        }
        frames
    }
}

/// The two bindings of the test agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    JsonRpc,
    Rest,
}

fn card(streaming: bool) -> AgentCard {
    let mut card = AgentCard::new("Files agent", "Manages files with approval", "1.0.0")
        .with_interface(AgentInterface::new(
            "http://localhost/a2a",
            ProtocolBinding::JsonRpc,
        ))
        .with_interface(AgentInterface::new(
            "http://localhost/rest",
            ProtocolBinding::HttpJson,
        ));
    card.default_input_modes = vec!["text/plain".into()];
    card.default_output_modes = vec!["text/plain".into()];
    card.capabilities = AgentCapabilities::default();
    card.capabilities.streaming = Some(streaming);
    card.security_schemes.insert(
        "key".to_owned(),
        SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
    );
    card.security_requirements.push(SecurityRequirement::scheme(
        "key",
        std::iter::empty::<&str>(),
    ));
    card
}

/// A user text message.
pub fn user(text: &str) -> Value {
    json!({"messageId": id(), "role": "ROLE_USER", "parts": [{"text": text}]})
}

/// A follow-up message of task `task_id` made of `parts`.
#[allow(clippy::needless_pass_by_value)]
pub fn follow_up(task_id: &str, parts: Value) -> Value {
    json!({"messageId": id(), "role": "ROLE_USER", "taskId": task_id, "parts": parts})
}

pub fn id() -> String {
    a2a_types::MessageId::generate().into_string()
}

/// The pending actions listed by a task's status message.
pub fn actions(task: &Value) -> Vec<Value> {
    task["status"]["message"]["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|part| part["data"]["actions"].as_array().cloned())
        .unwrap_or_default()
}

impl Harness {
    /// An agent over the given run and task stores (two of these are two instances).
    pub async fn start_shared(
        steps: Vec<Step>,
        runs: Arc<dyn RunStore>,
        tasks: Arc<a2a_server::store::InMemoryTaskStore>,
    ) -> Self {
        let setup = Setup {
            store: runs,
            ..Setup::default()
        };
        Self::start_full(steps, setup, Some(tasks)).await
    }
}
