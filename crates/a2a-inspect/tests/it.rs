//! The inspector's API over real sockets: an `a2a-server` agent on 127.0.0.1, the inspector
//! on another port, and reqwest as the page.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

use std::sync::Arc;
use std::time::Duration;

use a2a_inspect::Inspector;
use a2a_server::auth::Authentication;
use a2a_server::{
    A2aServer, AgentExecutor, ExecutorError, RequestContext, ServerConfig, TaskUpdater,
};
use a2a_types::card::{ApiKeyLocation, SecurityRequirement, SecurityScheme};
use a2a_types::{AgentCard, AgentInterface, AgentSkill, Artifact, ProtocolBinding};
use serde_json::{Value, json};

/// An agent that does what the message says: `ask` asks for input; `sign-in` asks for
/// authorization, then completes as if it came; `wait` works until
/// canceled; `slow N MS` sends N artifact chunks MS apart, then completes; anything else is
/// echoed in two chunks, then completed.
struct Script;

#[async_trait::async_trait]
impl AgentExecutor for Script {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let text = context.text();
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["ask"] => updater.require_input("what colour?").await?,
            ["sign-in"] => {
                // Credentials arrive out of band; the turn goes on once they have.
                updater
                    .require_auth("sign in at the identity provider")
                    .await?;
                tokio::time::sleep(Duration::from_millis(100)).await;
                updater.complete(()).await?;
            }
            ["wait"] => {
                updater.working("waiting").await?;
                context.cancellation.cancelled().await;
            }
            ["slow", steps, millis] => {
                let steps: usize = steps.parse().unwrap_or(1);
                let pause = Duration::from_millis(millis.parse().unwrap_or(10));
                updater.working("starting").await?;
                for step in 0..steps {
                    tokio::time::sleep(pause).await;
                    updater
                        .add_artifact(
                            Artifact::from_text(format!("chunk {step}"))
                                .with_id(format!("chunk-{step}")),
                        )
                        .await?;
                }
                updater.complete(()).await?;
            }
            _ => {
                updater.working("echoing").await?;
                updater
                    .add_artifact(Artifact::from_text(format!("echo: {text}")).with_id("a1"))
                    .await?;
                updater
                    .add_artifact(Artifact::from_text("done").with_id("a2"))
                    .await?;
                updater.complete(()).await?;
            }
        }
        Ok(())
    }
}

const KEY: &str = "sekret-key-123";

struct Agent {
    base: String,
}

/// What an agent asks of its callers.
enum Security<'a> {
    None,
    /// This API key in `X-API-Key`.
    ApiKey(&'a str),
    /// This API key in the header `header`.
    ApiKeyIn {
        header: &'a str,
        key: &'a str,
    },
    /// This static bearer token.
    Bearer(&'a str),
    /// OAuth 2.0 client credentials: tokens from `{server}/token`, checked at
    /// `{server}/introspect`.
    OAuth {
        server: String,
    },
}

/// An agent on 127.0.0.1 (JSON-RPC at /a2a, HTTP+JSON at /rest); with `key`, it requires
/// that API key in `X-API-Key`.
async fn agent(key: Option<&str>) -> Agent {
    let security = key.map_or(Security::None, Security::ApiKey);
    agent_with(security, false, false).await
}

/// [`agent`], its card and push deliveries signed when `signed`; with `extended`, it serves
/// an extended card with one more skill to GetExtendedAgentCard.
async fn agent_with(security: Security<'_>, signed: bool, extended: bool) -> Agent {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let grpc_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let grpc_base = format!("http://{}", grpc_listener.local_addr().unwrap());
    let mut card = AgentCard::new("Script agent", "Does what the message says", "1.0.0")
        .with_interface(AgentInterface::new(
            format!("{base}/a2a"),
            ProtocolBinding::JsonRpc,
        ))
        .with_interface(AgentInterface::new(
            format!("{base}/rest"),
            ProtocolBinding::HttpJson,
        ))
        .with_interface(AgentInterface::new(grpc_base, ProtocolBinding::Grpc))
        .with_skill(AgentSkill::new("script", "Script", "Follows the message"));
    card.capabilities.streaming = Some(true);
    card.capabilities.push_notifications = Some(true);
    card.default_input_modes = vec!["text/plain".into()];
    card.default_output_modes = vec!["text/plain".into()];
    let authentication = match security {
        Security::ApiKey(key) | Security::ApiKeyIn { key, .. } => {
            let header = match security {
                Security::ApiKeyIn { header, .. } => header,
                _ => "X-API-Key",
            };
            card.security_schemes.insert(
                "key".into(),
                SecurityScheme::api_key(ApiKeyLocation::Header, header),
            );
            card.security_requirements
                .push(SecurityRequirement::scheme("key", Vec::<String>::new()));
            Authentication::required().api_key(key)
        }
        Security::Bearer(token) => {
            card.security_schemes
                .insert("bearer".into(), SecurityScheme::bearer(""));
            card.security_requirements
                .push(SecurityRequirement::scheme("bearer", Vec::<String>::new()));
            Authentication::required().bearer_token(token)
        }
        Security::OAuth { server } => {
            use a2a_server::auth::token::{IntrospectionConfig, Introspector};
            let scheme = json!({"oauth2SecurityScheme": {"flows": {"clientCredentials": {
                "tokenUrl": format!("{server}/token"), "scopes": {"tasks": "Work with tasks"}
            }}}});
            card.security_schemes
                .insert("oauth".into(), serde_json::from_value(scheme).unwrap());
            card.security_requirements
                .push(SecurityRequirement::scheme("oauth", ["tasks"]));
            let introspection = IntrospectionConfig::new(
                format!("{server}/introspect").parse().unwrap(),
                "agent",
                "agent-secret",
            );
            Authentication::required().token_verifier(Introspector::new(introspection).unwrap())
        }
        Security::None => Authentication::disabled(),
    };
    let mut config = ServerConfig::default();
    config.push.allow_local_webhooks = true;
    config.push.poll_interval = Duration::from_millis(50);
    let extended_card = extended.then(|| {
        card.capabilities.extended_agent_card = Some(true);
        card.clone().with_skill(AgentSkill::new(
            "secret",
            "Secret",
            "Only for callers with a key",
        ))
    });
    let mut builder = A2aServer::builder(card, Script)
        .config(config)
        .authentication(authentication);
    if let Some(extended_card) = extended_card {
        builder = builder.extended_card(extended_card);
    }
    if signed {
        builder = builder
            .card_signing_key(a2a_signature::SigningKey::generate_es256().unwrap())
            .push_signer(a2a_server::push::signing::PushSigner::generate().unwrap());
    }
    let server = builder.build().unwrap();
    let router = server.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let grpc = server.grpc_router();
    tokio::spawn(async move { axum::serve(grpc_listener, grpc).await });
    Agent { base }
}

/// The inspector on 127.0.0.1, and a client that talks to it as the page does.
struct Page {
    base: String,
    http: reqwest::Client,
}

async fn inspector() -> Page {
    inspector_with(Inspector::builder()).await
}

/// A gateway on 127.0.0.1 with its registry in memory, `agent` registered in it as
/// `agent_id`: the gateway's base URL, its registry (to register more) and the agent's card.
async fn gateway_in_front_of(
    agent: &Agent,
    agent_id: &str,
) -> (String, Arc<a2a_gateway::registry::Registry>, Value) {
    use a2a_gateway::Gateway;
    use a2a_gateway::proxy::ProxyConfig;
    use a2a_gateway::registry::Registry;

    let registry = Arc::new(Registry::in_memory().await.unwrap());
    let gateway = Gateway::new(Arc::clone(&registry), ProxyConfig::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gateway_base = format!("http://{}", listener.local_addr().unwrap());
    let router = gateway.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let card: Value = reqwest::get(format!("{}/.well-known/agent-card.json", agent.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut record = card.clone();
    record["agent_id"] = json!(agent_id);
    registry.register(record).await.unwrap();
    (gateway_base, registry, card)
}

/// An agent without credentials, and an inspector connected to it as `c1`.
async fn connected() -> (Agent, Page) {
    let agent = agent(None).await;
    let page = inspector().await;
    page.connect(&agent.base, json!({"kind": "none"})).await;
    (agent, page)
}

async fn inspector_with(builder: a2a_inspect::InspectorBuilder) -> Page {
    let inspector = builder
        .request_timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { inspector.serve(listener).await });
    Page {
        base,
        http: reqwest::Client::new(),
    }
}

impl Page {
    /// The wire log's entry `id`.
    async fn wire_call(&self, id: u64) -> Value {
        let (_, wire) = self.get("/api/wire").await;
        wire["calls"]
            .as_array()
            .unwrap()
            .iter()
            .find(|call| call["id"] == id)
            .unwrap()
            .clone()
    }

    /// Cancels `task` of the connection `c1`.
    async fn cancel(&self, task: &str) -> (u16, Value) {
        self.post(
            &format!("/api/connections/c1/tasks/{task}/cancel"),
            &json!({}),
        )
        .await
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .header("X-Inspector", "1")
            .json(body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn connect(&self, url: &str, auth: Value) -> Value {
        let (status, body) = self
            .post("/api/connect", &json!({"url": url, "auth": auth}))
            .await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// The frames of an SSE answer read to its end: `(event, id, data)`.
    async fn frames(&self, response: reqwest::Response) -> Vec<(String, Option<String>, Value)> {
        assert_eq!(response.status(), 200);
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream")
        );
        let text = tokio::time::timeout(Duration::from_secs(20), response.text())
            .await
            .expect("the stream ends")
            .unwrap();
        parse_frames(&text)
    }

    async fn send(&self, connection: &str, body: &Value) -> Vec<(String, Option<String>, Value)> {
        let response = self
            .http
            .post(format!("{}/api/connections/{connection}/send", self.base))
            .header("X-Inspector", "1")
            .json(body)
            .send()
            .await
            .unwrap();
        self.frames(response).await
    }

    async fn events(
        &self,
        path: &str,
        last_event_id: Option<&str>,
    ) -> Vec<(String, Option<String>, Value)> {
        let mut request = self.http.get(format!("{}{path}", self.base));
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        self.frames(request.send().await.unwrap()).await
    }
}

fn parse_frames(text: &str) -> Vec<(String, Option<String>, Value)> {
    text.replace("\r\n", "\n")
        .split("\n\n")
        .filter_map(|frame| {
            let mut event = None;
            let mut id = None;
            let mut data = String::new();
            for line in frame.lines() {
                let (field, value) = line.split_once(':').unwrap_or((line, ""));
                let value = value.strip_prefix(' ').unwrap_or(value);
                match field {
                    "event" => event = Some(value.to_owned()),
                    "id" => id = Some(value.to_owned()),
                    "data" => data.push_str(value),
                    _ => {}
                }
            }
            Some((
                event?,
                id,
                serde_json::from_str(&data).unwrap_or(Value::Null),
            ))
        })
        .collect()
}

fn names(frames: &[(String, Option<String>, Value)]) -> Vec<&str> {
    frames.iter().map(|(name, _, _)| name.as_str()).collect()
}

/// The state of the last event that has one.
fn last_state(frames: &[(String, Option<String>, Value)]) -> Option<String> {
    frames.iter().rev().find_map(|(name, _, data)| {
        if name != "a2a" {
            return None;
        }
        let event = data.get("event").unwrap_or(data);
        event
            .pointer("/task/status/state")
            .or_else(|| event.pointer("/statusUpdate/status/state"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    })
}

fn text(message: &str) -> Value {
    json!([{"text": message}])
}

#[tokio::test]
async fn connect_shows_the_card_with_findings_bindings_and_signature() {
    let agent = agent(None).await;
    let page = inspector().await;
    let connected = page.connect(&agent.base, json!({"kind": "none"})).await;
    assert_eq!(connected["connection"], "c1");
    assert_eq!(connected["card"]["name"], "Script agent");
    assert_eq!(
        connected["bindings"],
        json!(["JSONRPC", "HTTP+JSON", "GRPC"])
    );
    assert_eq!(connected["binding"], "JSONRPC");
    assert_eq!(connected["gateway"], false);
    assert_eq!(connected["signature"]["status"], "unsigned");
    assert!(
        connected["cardUrl"]
            .as_str()
            .unwrap()
            .ends_with("/.well-known/agent-card.json")
    );
    assert!(connected["findings"].is_array());
    let (status, list) = page.get("/api/connections").await;
    assert_eq!(status, 200);
    assert_eq!(list["connections"][0]["cardName"], "Script agent");
    // The HTTP+JSON binding when asked for.
    let (status, rest) = page
        .post(
            "/api/connect",
            &json!({"url": agent.base, "binding": "HTTP+JSON"}),
        )
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["binding"], "HTTP+JSON");
}

#[tokio::test]
async fn a_streamed_send_relays_each_event_then_ends() {
    let (agent, page) = connected().await;
    let frames = page
        .send("c1", &json!({"parts": text("hello"), "stream": true}))
        .await;
    let names = names(&frames);
    assert_eq!(names.first(), Some(&"call"), "{frames:?}");
    assert_eq!(names.last(), Some(&"end"));
    assert!(
        names.iter().filter(|name| **name == "a2a").count() >= 4,
        "{frames:?}"
    );
    assert!(frames.iter().any(
        |(_, _, data)| data.pointer("/artifactUpdate/artifact/parts/0/text")
            == Some(&json!("echo: hello"))
    ));
    assert_eq!(last_state(&frames).as_deref(), Some("TASK_STATE_COMPLETED"));
    // The call frame names the wire entry, which holds the stream's frames.
    let wire_id = frames[0].2["wire"].as_u64().unwrap();
    let call = page.wire_call(wire_id).await;
    assert_eq!(call["operation"], "SendStreamingMessage");
    assert_eq!(call["binding"], "JSONRPC");
    assert_eq!(call["status"], 200);
    assert!(call["sse"].as_array().unwrap().len() >= 4, "{call}");
    assert!(call["requestBody"].as_str().unwrap().contains("\"hello\""));
    assert!(
        call["a2a"]
            .as_str()
            .unwrap()
            .starts_with(&format!("a2a send {} hello --stream", agent.base)),
        "{}",
        call["a2a"]
    );
}

#[tokio::test]
async fn a_plain_send_answers_one_event_on_either_binding() {
    let (_agent, page) = connected().await;
    for binding in ["JSONRPC", "HTTP+JSON"] {
        let frames = page
            .send(
                "c1",
                &json!({"parts": text("hi"), "stream": false, "binding": binding}),
            )
            .await;
        assert_eq!(names(&frames), ["call", "a2a", "end"], "{frames:?}");
        assert_eq!(
            frames[1].2["task"]["status"]["state"],
            "TASK_STATE_COMPLETED"
        );
    }
    let (_, wire) = page.get("/api/wire").await;
    let bindings: Vec<&Value> = wire["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|call| call["operation"] == "SendMessage")
        .map(|call| &call["binding"])
        .collect();
    assert_eq!(bindings, [&json!("JSONRPC"), &json!("HTTP+JSON")]);
}

#[tokio::test]
async fn an_input_required_task_takes_the_answer() {
    let (_agent, page) = connected().await;
    let frames = page
        .send("c1", &json!({"parts": text("ask"), "stream": true}))
        .await;
    assert_eq!(
        last_state(&frames).as_deref(),
        Some("TASK_STATE_INPUT_REQUIRED")
    );
    let task = frames
        .iter()
        .find_map(|(_, _, data)| data.pointer("/task/id").and_then(Value::as_str))
        .unwrap()
        .to_owned();
    let frames = page
        .send(
            "c1",
            &json!({"parts": text("blue"), "taskId": task, "stream": true}),
        )
        .await;
    assert_eq!(
        last_state(&frames).as_deref(),
        Some("TASK_STATE_COMPLETED"),
        "{frames:?}"
    );
}

#[tokio::test]
async fn an_auth_required_state_is_relayed_as_it_happens() {
    let (_agent, page) = connected().await;
    let frames = page
        .send("c1", &json!({"parts": text("sign-in"), "stream": true}))
        .await;
    let states: Vec<&str> = frames
        .iter()
        .filter_map(|(_, _, data)| {
            data.pointer("/statusUpdate/status/state")
                .or_else(|| data.pointer("/task/status/state"))
                .and_then(Value::as_str)
        })
        .collect();
    assert!(states.contains(&"TASK_STATE_AUTH_REQUIRED"), "{states:?}");
    assert_eq!(states.last(), Some(&"TASK_STATE_COMPLETED"), "{states:?}");
}

#[tokio::test]
async fn a_message_larger_than_the_inspector_takes_is_a_clear_413() {
    let agent = agent(None).await;
    let page = inspector_with(Inspector::builder().max_message_bytes(10_000)).await;
    page.connect(&agent.base, json!({"kind": "none"})).await;
    let big = "x".repeat(20_000);
    let (status, body) = page
        .post("/api/connections/c1/send", &json!({"parts": text(&big)}))
        .await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["kind"], "too_large");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("larger than the inspector takes (10000 bytes"),
        "{message}"
    );
    // Nothing reached the agent.
    let (_, wire) = page.get("/api/wire").await;
    assert!(
        wire["calls"]
            .as_array()
            .unwrap()
            .iter()
            .all(|call| call["operation"] != "SendMessage"),
        "{wire}"
    );
}

#[tokio::test]
async fn tasks_are_listed_read_and_canceled() {
    let (_agent, page) = connected().await;
    let frames = page
        .send(
            "c1",
            &json!({"parts": text("wait"), "returnImmediately": true}),
        )
        .await;
    let task = frames[1].2["task"]["id"].as_str().unwrap().to_owned();
    let (status, list) = page.get("/api/connections/c1/tasks?pageSize=10").await;
    assert_eq!(status, 200, "{list}");
    assert!(
        list["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|listed| listed["id"] == task.as_str())
    );
    let (status, working) = page.get("/api/connections/c1/tasks?status=working").await;
    assert_eq!(status, 200, "{working}");
    assert_eq!(working["tasks"][0]["id"], task.as_str());
    let (status, got) = page.get(&format!("/api/connections/c1/tasks/{task}")).await;
    assert_eq!(status, 200);
    assert_eq!(got["id"], task.as_str());
    let (status, canceled) = page.cancel(&task).await;
    assert_eq!(status, 200, "{canceled}");
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
    // A task that does not exist is the agent's TaskNotFound.
    let (status, missing) = page.get("/api/connections/c1/tasks/nope").await;
    assert_eq!(status, 502, "{missing}");
    assert_eq!(missing["error"]["kind"], "a2a");
    assert_eq!(missing["error"]["reason"], "TASK_NOT_FOUND");
    // A bad filter is the inspector's own bad request.
    let (status, bad) = page.get("/api/connections/c1/tasks?pageSize=many").await;
    assert_eq!(status, 400);
    assert_eq!(bad["error"]["kind"], "bad_request");
}

#[tokio::test]
async fn the_timeline_relays_event_ids_and_resumes_after_one() {
    let (_agent, page) = connected().await;
    let frames = page
        .send(
            "c1",
            &json!({"parts": text("slow 3 150"), "returnImmediately": true}),
        )
        .await;
    let task = frames[1].2["task"]["id"].as_str().unwrap().to_owned();
    let path = format!("/api/connections/c1/tasks/{task}/events");
    let live = page.events(&path, None).await;
    assert_eq!(names(&live).last(), Some(&"end"), "{live:?}");
    let events: Vec<_> = live.iter().filter(|(name, _, _)| name == "a2a").collect();
    assert!(events.len() >= 3, "{live:?}");
    for (_, id, data) in &events {
        let id = id.as_deref().expect("each event has the agent's id");
        assert_eq!(data["seq"], json!(id.parse::<u64>().unwrap()));
        assert!(data["time"].is_string());
        assert!(data["event"].is_object());
    }
    assert_eq!(last_state(&live).as_deref(), Some("TASK_STATE_COMPLETED"));
    // Resumed after the second event: only what came after it, by EventSource's header…
    let second = events[1].1.clone().unwrap();
    let resumed = page.events(&path, Some(&second)).await;
    let resumed_ids: Vec<u64> = resumed
        .iter()
        .filter(|(name, _, _)| name == "a2a")
        .map(|(_, id, _)| id.as_deref().unwrap().parse().unwrap())
        .collect();
    let later: Vec<u64> = events
        .iter()
        .map(|(_, id, _)| id.as_deref().unwrap().parse::<u64>().unwrap())
        .filter(|id| *id > second.parse::<u64>().unwrap())
        .collect();
    assert!(!resumed_ids.is_empty());
    assert!(
        resumed_ids
            .iter()
            .all(|id| *id > second.parse::<u64>().unwrap()),
        "{resumed:?}"
    );
    assert_eq!(resumed_ids.last(), later.last());
    // …or by `after`.
    let after = page.events(&format!("{path}?after={second}"), None).await;
    assert_eq!(
        after.iter().filter(|(name, _, _)| name == "a2a").count(),
        resumed_ids.len()
    );
    // A finished task, subscribed afresh: an error frame saying so.
    let finished = page.events(&path, None).await;
    assert_eq!(names(&finished), ["error", "end"], "{finished:?}");
    let message = finished[0].2["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("The task is finished"), "{message}");
}

#[tokio::test]
async fn the_wire_log_redacts_the_api_key_and_renders_commands() {
    let agent = agent(Some(KEY)).await;
    let page = inspector().await;
    let connected = page
        .connect(&agent.base, json!({"kind": "api_key", "value": KEY}))
        .await;
    assert_eq!(connected["connection"], "c1");
    let frames = page
        .send("c1", &json!({"parts": text("secret"), "stream": false}))
        .await;
    assert_eq!(names(&frames), ["call", "a2a", "end"], "{frames:?}");
    let response = page
        .http
        .get(format!("{}/api/wire", page.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["cache-control"], "no-store");
    let raw = response.text().await.unwrap();
    assert!(!raw.contains(KEY), "the key is in the wire log");
    let wire: Value = serde_json::from_str(&raw).unwrap();
    let call = wire["calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|call| call["operation"] == "SendMessage")
        .unwrap();
    let header = call["requestHeaders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|pair| pair[0] == "x-api-key")
        .unwrap();
    assert_eq!(header[1], "<redacted>");
    let curl = call["curl"].as_str().unwrap();
    assert!(curl.starts_with("curl "), "{curl}");
    assert!(curl.contains("\"x-api-key: $A2A_API_KEY\""), "{curl}");
    assert!(curl.contains("--data-raw"), "{curl}");
    let a2a = call["a2a"].as_str().unwrap();
    assert!(
        a2a.contains("--api-key \"$A2A_API_KEY\" --api-key-header X-API-Key"),
        "{a2a}"
    );
    // The card fetch is there too.
    assert!(
        wire["calls"]
            .as_array()
            .unwrap()
            .iter()
            .any(|call| call["operation"] == "GetAgentCard")
    );
}

#[tokio::test]
async fn wire_events_stream_each_call_as_it_happens() {
    let agent = agent(None).await;
    let page = inspector().await;
    let open_events = || async {
        page.http
            .get(format!("{}/api/wire/events", page.base))
            .send()
            .await
            .unwrap()
    };
    let mut events = open_events().await;
    page.connect(&agent.base, json!({"kind": "none"})).await;
    let mut seen = String::new();
    while !seen.contains("GetAgentCard") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), events.chunk())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("event: call"), "{seen}");
    // A page that opens the stream later gets the calls made before, first.
    let mut late = open_events().await;
    let first = tokio::time::timeout(Duration::from_secs(10), late.chunk())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let first = String::from_utf8_lossy(&first);
    assert!(first.contains("GetAgentCard"), "{first}");
}

#[tokio::test]
async fn an_unreachable_agent_is_a_clear_502() {
    let page = inspector().await;
    let (status, body) = page
        .post("/api/connect", &json!({"url": "http://127.0.0.1:9"}))
        .await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["kind"], "unreachable");
    assert_eq!(
        body["error"]["message"],
        "Could not reach http://127.0.0.1:9: connection refused."
    );
    let (status, body) = page.post("/api/connect", &json!({"url": "ftp://x"})).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["kind"], "bad_request");
}

#[tokio::test]
async fn a_wrong_key_is_a_401_that_names_the_scheme() {
    let agent = agent(Some(KEY)).await;
    let page = inspector().await;
    page.connect(&agent.base, json!({"kind": "api_key", "value": "wrong"}))
        .await;
    let (status, body) = page.get("/api/connections/c1/tasks").await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error"]["kind"], "unauthorized");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("401 Unauthorized"), "{message}");
    assert!(message.contains("X-API-Key"), "{message}");
    let frames = page.send("c1", &json!({"parts": text("hi")})).await;
    assert_eq!(names(&frames), ["call", "error", "end"], "{frames:?}");
    assert_eq!(frames[1].2["error"]["kind"], "unauthorized");
}

#[tokio::test]
async fn command_line_credentials_apply_to_their_url() {
    let agent = agent(Some(KEY)).await;
    let page = inspector_with(Inspector::builder().credentials_for(
        agent.base.clone(),
        a2a_inspect::Auth::ApiKey {
            header: None,
            value: KEY.to_owned(),
        },
    ))
    .await;
    page.connect(&agent.base, json!({"kind": "none"})).await;
    let (status, body) = page.get("/api/connections/c1/tasks").await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn the_page_and_its_guards() {
    let page = inspector().await;
    let response = page
        .http
        .get(format!("{}/", page.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-security-policy"],
        a2a_inspect::CONTENT_SECURITY_POLICY
    );
    assert_eq!(response.headers()["x-content-type-options"], "nosniff");
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    for (name, _, _) in a2a_inspect::assets::ASSETS {
        let response = page
            .http
            .get(format!("{}/assets/{name}", page.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{name}");
        if name.ends_with(".js") {
            assert!(
                response.headers()["content-type"]
                    .to_str()
                    .unwrap()
                    .starts_with("text/javascript")
            );
        }
    }
    // A POST without X-Inspector is refused.
    let refused = page
        .http
        .post(format!("{}/api/connect", page.base))
        .json(&json!({"url": "http://127.0.0.1:9"}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["kind"], "bad_request");
    let (status, info) = page.get("/api/info").await;
    assert_eq!(status, 200);
    assert_eq!(info["webhook"], format!("{}/webhook", page.base));
    let (status, unknown) = page.get("/api/connections/c9/tasks").await;
    assert_eq!(status, 404);
    assert_eq!(unknown["error"]["kind"], "unknown_connection");
}

#[tokio::test]
async fn a_gateway_lists_its_agents_and_opens_one() {
    let agent = agent(None).await;
    let (gateway_base, registry, card) = gateway_in_front_of(&agent, "script").await;

    let page = inspector().await;
    let connected = page.connect(&gateway_base, json!({"kind": "none"})).await;
    assert_eq!(connected["gateway"], true, "{connected}");
    let (status, agents) = page.get("/api/connections/c1/agents").await;
    assert_eq!(status, 200, "{agents}");
    let listed = &agents["agents"][0];
    assert_eq!(listed["id"], "script");
    assert_eq!(listed["name"], "Script agent");
    assert_eq!(listed["skills"], 1);
    assert_eq!(listed["url"], format!("{gateway_base}/a2a/script"));
    assert!(listed["lastSeen"].is_string());
    assert!(listed["registeredAt"].is_string());
    // Whether an agent answers is asked through the gateway, the way a client's call goes.
    let mut down = card.clone();
    down["agent_id"] = json!("down");
    down["supportedInterfaces"] = json!([{
        "url": "http://127.0.0.1:9/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"
    }]);
    registry.register(down).await.unwrap();
    for (agent_id, expected) in [
        ("script", "live"),
        ("down", "unreachable"),
        ("gone-away", "gone"),
    ] {
        let (status, liveness) = page
            .get(&format!("/api/connections/c1/agents/{agent_id}/liveness"))
            .await;
        assert_eq!(status, 200, "{liveness}");
        assert_eq!(liveness["status"], expected, "{agent_id}: {liveness}");
        assert!(
            liveness["message"].as_str().unwrap().len() > 10,
            "{liveness}"
        );
        assert!(liveness["ms"].is_u64(), "{liveness}");
    }
    let (status, _) = page.get("/api/connections/c1/agents/Bad_Id/liveness").await;
    assert_eq!(status, 400);
    let opened = page
        .connect(listed["url"].as_str().unwrap(), json!({"kind": "none"}))
        .await;
    assert_eq!(opened["card"]["name"], "Script agent", "{opened}");
    // An agent is not a gateway.
    let plain = page.connect(&agent.base, json!({"kind": "none"})).await;
    let (status, _) = page
        .get(&format!(
            "/api/connections/{}/agents",
            plain["connection"].as_str().unwrap()
        ))
        .await;
    assert_eq!(status, 400);
    // Connecting to an agent asks nothing of a gateway's agent list.
    let (_, wire) = page.get("/api/wire").await;
    let asked: Vec<&Value> = wire["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|call| call["connection"] == plain["connection"])
        .collect();
    assert!(
        asked.iter().all(|call| call["operation"] != "ListAgents"),
        "{asked:?}"
    );
}

#[tokio::test]
async fn a_keyed_agent_behind_a_gateway_answers_the_probe_with_the_connections_key() {
    let agent = agent_with(
        Security::ApiKeyIn {
            header: "X-Custom-Key",
            key: KEY,
        },
        false,
        false,
    )
    .await;
    let (gateway_base, _registry, _card) = gateway_in_front_of(&agent, "keyed").await;

    let page = inspector().await;
    page.connect(&gateway_base, json!({"kind": "api_key", "value": KEY}))
        .await;
    let (status, liveness) = page.get("/api/connections/c1/agents/keyed/liveness").await;
    assert_eq!(status, 200, "{liveness}");
    assert_eq!(liveness["status"], "live", "{liveness}");
}

#[tokio::test]
async fn connect_checks_the_credentials_with_one_call_that_changes_nothing() {
    let secured = agent(Some(KEY)).await;
    let open = agent(None).await;
    let page = inspector().await;
    for auth in [
        json!({"kind": "none"}),
        json!({"kind": "api_key", "value": "wrong"}),
    ] {
        let refused = page.connect(&secured.base, auth.clone()).await;
        // Still connected, so the card can be read, with the refusal said at once.
        assert_eq!(refused["card"]["name"], "Script agent");
        let check = &refused["credentials"];
        assert_eq!(check["status"], "refused", "{auth}: {check}");
        assert_eq!(check["operation"], "ListTasks");
        assert_eq!(check["error"]["kind"], "unauthorized");
        let message = check["error"]["message"].as_str().unwrap();
        assert!(message.contains("X-API-Key"), "{message}");
    }
    let accepted = page
        .connect(&secured.base, json!({"kind": "api_key", "value": KEY}))
        .await;
    assert_eq!(accepted["credentials"]["status"], "accepted", "{accepted}");
    assert_eq!(accepted["credentials"]["operation"], "ListTasks");
    let bearer = agent_with(Security::Bearer("tok-static"), false, false).await;
    for (token, expected) in [("tok-wrong", "refused"), ("tok-static", "accepted")] {
        let connected = page
            .connect(&bearer.base, json!({"kind": "bearer", "value": token}))
            .await;
        assert_eq!(connected["credentials"]["status"], expected, "{connected}");
    }
    let free = page.connect(&open.base, json!({"kind": "none"})).await;
    assert_eq!(free["credentials"]["status"], "not_needed", "{free}");
    // A reloaded page gets each connection back whole: card, check and all.
    let (_, listed) = page.get("/api/connections").await;
    assert!(!listed.to_string().contains("tok-static"));
    let again = listed["connections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|info| info["connection"] == accepted["connection"])
        .unwrap();
    assert_eq!(again["card"], accepted["card"]);
    assert_eq!(again["credentials"]["status"], "accepted");
    assert_eq!(again["cardName"], "Script agent");
    assert!(
        !listed.to_string().contains(KEY),
        "the key never leaves the inspector"
    );
}

/// An OAuth 2.0 authorization server on 127.0.0.1: `/token` issues `tok-oauth-1` to client
/// `inspector` with secret `s3cret` (HTTP Basic, or in the form) for the client-credentials
/// grant; `/introspect` answers the agent (client `agent`) whether a token is that one.
async fn authorization_server() -> String {
    use axum::http::{HeaderMap, StatusCode};
    use base64::Engine as _;
    fn basic(user: &str, password: &str) -> String {
        let pair = format!("{user}:{password}");
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }
    fn authorized(headers: &HeaderMap, expected: &str) -> bool {
        headers
            .get("authorization")
            .is_some_and(|value| value.as_bytes() == expected.as_bytes())
    }
    async fn token(headers: HeaderMap, form: String) -> (StatusCode, axum::Json<Value>) {
        let by_form = form.contains("client_id=inspector") && form.contains("client_secret=s3cret");
        let client = authorized(&headers, &basic("inspector", "s3cret")) || by_form;
        if !form.contains("grant_type=client_credentials") || !client {
            let refusal = json!({"error": "invalid_client"});
            return (StatusCode::UNAUTHORIZED, axum::Json(refusal));
        }
        let issued =
            json!({"access_token": "tok-oauth-1", "token_type": "Bearer", "expires_in": 300});
        (StatusCode::OK, axum::Json(issued))
    }
    async fn introspect(headers: HeaderMap, form: String) -> (StatusCode, axum::Json<Value>) {
        if !authorized(&headers, &basic("agent", "agent-secret")) {
            return (StatusCode::UNAUTHORIZED, axum::Json(json!({})));
        }
        let active = form.contains("token=tok-oauth-1");
        let answer = if active {
            let exp = chrono::Utc::now().timestamp() + 300;
            json!({"active": true, "scope": "tasks", "client_id": "inspector", "exp": exp})
        } else {
            json!({"active": false})
        };
        (StatusCode::OK, axum::Json(answer))
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = format!("http://{}", listener.local_addr().unwrap());
    let router = axum::Router::new()
        .route("/token", axum::routing::post(token))
        .route("/introspect", axum::routing::post(introspect));
    tokio::spawn(async move { axum::serve(listener, router).await });
    server
}

#[tokio::test]
async fn oauth_client_credentials_get_a_token_from_the_cards_flow() {
    let server = authorization_server().await;
    let token_url = format!("{server}/token");
    let agent = agent_with(Security::OAuth { server }, false, false).await;
    let page = inspector().await;
    // No token URL given: the card's client-credentials flow names it.
    let oauth = |secret: &str| json!({"kind": "oauth2", "clientId": "inspector", "clientSecret": secret, "scopes": ["tasks"]});
    let refused = page.connect(&agent.base, oauth("wrong")).await;
    assert_eq!(refused["credentials"]["status"], "refused", "{refused}");
    let message = refused["credentials"]["error"]["message"].as_str().unwrap();
    assert!(message.contains("credentials"), "{message}");
    let connected = page.connect(&agent.base, oauth("s3cret")).await;
    assert_eq!(
        connected["credentials"]["status"], "accepted",
        "{connected}"
    );
    let connection = connected["connection"].as_str().unwrap();
    let frames = page
        .send(connection, &json!({"parts": text("with a token")}))
        .await;
    assert_eq!(last_state(&frames).as_deref(), Some("TASK_STATE_COMPLETED"));
    // The token request shows in the wire log, its secrets and the token redacted.
    let (_, wire) = page.get("/api/wire").await;
    let text = wire.to_string();
    assert!(text.contains(&token_url), "the token request is recorded");
    assert!(!text.contains("s3cret"), "{text}");
    assert!(!text.contains("tok-oauth-1"), "{text}");
}

#[tokio::test]
async fn an_offered_extended_card_is_fetched_with_the_credentials() {
    let agent = agent_with(Security::ApiKey(KEY), false, true).await;
    let page = inspector().await;
    let connected = page
        .connect(&agent.base, json!({"kind": "api_key", "value": KEY}))
        .await;
    assert_eq!(connected["extendedCard"], true);
    let check = &connected["credentials"];
    assert_eq!(check["status"], "accepted", "{check}");
    assert_eq!(check["operation"], "GetExtendedAgentCard");
    let skills: Vec<&str> = check["extendedCard"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["id"].as_str().unwrap())
        .collect();
    assert_eq!(skills, ["script", "secret"]);
    let refused = page
        .connect(&agent.base, json!({"kind": "api_key", "value": "wrong"}))
        .await;
    assert_eq!(refused["credentials"]["status"], "refused");
    assert_eq!(refused["credentials"]["operation"], "GetExtendedAgentCard");
    assert!(refused["credentials"]["extendedCard"].is_null());
}

#[tokio::test]
async fn a_push_delivery_reaches_the_inspector_and_is_checked() {
    let (_agent, page) = connected().await;
    let mut deliveries = page
        .http
        .get(format!("{}/api/push/events", page.base))
        .send()
        .await
        .unwrap();
    let frames = page
        .send(
            "c1",
            &json!({"parts": text("slow 2 50"), "push": true, "returnImmediately": true}),
        )
        .await;
    assert_eq!(names(&frames), ["call", "a2a", "end"], "{frames:?}");
    let task = frames[1].2["task"]["id"].as_str().unwrap().to_owned();
    // The push config points at the inspector's own webhook for this connection.
    let (_, wire) = page.get("/api/wire").await;
    let sent = wire["calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|call| call["operation"] == "SendMessage")
        .unwrap();
    assert!(
        sent["requestBody"]
            .as_str()
            .unwrap()
            .contains(&format!("{}/webhook/c1", page.base))
    );
    let mut seen = String::new();
    while !seen.contains("TASK_STATE_COMPLETED") {
        let chunk = tokio::time::timeout(Duration::from_secs(15), deliveries.chunk())
            .await
            .expect("a delivery")
            .unwrap()
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("event: delivery"), "{seen}");
    let (status, listed) = page.get("/api/push").await;
    assert_eq!(status, 200);
    let delivered = listed["deliveries"].as_array().unwrap();
    assert!(!delivered.is_empty());
    for delivery in delivered {
        assert_eq!(delivery["connection"], "c1", "{delivery}");
        assert_eq!(delivery["taskId"], task.as_str());
        assert_eq!(delivery["checks"]["token"], "ok", "{delivery}");
        assert_eq!(delivery["checks"]["signature"], "unsigned");
        assert_eq!(delivery["accepted"], true);
    }
}

#[tokio::test]
async fn a_signed_card_verifies_and_signed_deliveries_check() {
    let agent = agent_with(Security::None, true, false).await;
    let page = inspector().await;
    let connected = page.connect(&agent.base, json!({"kind": "none"})).await;
    assert_eq!(connected["signature"]["status"], "verified", "{connected}");
    assert!(connected["signature"]["keyId"].is_string());
    let frames = page
        .send(
            "c1",
            &json!({"parts": text("signed"), "push": true, "returnImmediately": true}),
        )
        .await;
    assert_eq!(names(&frames), ["call", "a2a", "end"], "{frames:?}");
    let mut verified = false;
    for _ in 0..100 {
        let (_, listed) = page.get("/api/push").await;
        let deliveries = listed["deliveries"].as_array().unwrap().clone();
        if deliveries.iter().any(|delivery| {
            delivery["body"]
                .to_string()
                .contains("TASK_STATE_COMPLETED")
        }) {
            for delivery in &deliveries {
                assert_eq!(delivery["checks"]["signature"], "verified", "{delivery}");
                assert_eq!(delivery["accepted"], true);
            }
            verified = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(verified, "no delivery of the completed task");
}

#[tokio::test]
async fn grpc_calls_are_relayed_and_recorded_at_the_call_level() {
    let agent = agent(None).await;
    let page = inspector().await;
    let (status, connected) = page
        .post(
            "/api/connect",
            &json!({"url": agent.base, "binding": "GRPC"}),
        )
        .await;
    assert_eq!(status, 200, "{connected}");
    assert_eq!(connected["binding"], "GRPC");
    let frames = page
        .send("c1", &json!({"parts": text("over grpc"), "stream": true}))
        .await;
    assert_eq!(names(&frames).first(), Some(&"call"));
    assert_eq!(
        last_state(&frames).as_deref(),
        Some("TASK_STATE_COMPLETED"),
        "{frames:?}"
    );
    let wire_id = frames[0].2["wire"].as_u64().unwrap();
    let call = page.wire_call(wire_id).await;
    assert_eq!(call["binding"], "GRPC");
    assert_eq!(call["operation"], "SendStreamingMessage");
    assert_eq!(call["status"], 200);
    assert!(call["sse"].as_array().unwrap().len() >= 3, "{call}");
    let command = call["a2a"].as_str().unwrap();
    assert!(command.contains("--binding GRPC"), "{command}");
    // Tasks over gRPC too, each call in the wire log at the call level.
    let (status, list) = page.get("/api/connections/c1/tasks").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["tasks"].as_array().unwrap().len(), 1);
    let task = list["tasks"][0]["id"].as_str().unwrap().to_owned();
    let (status, _) = page.get(&format!("/api/connections/c1/tasks/{task}")).await;
    assert_eq!(status, 200);
    let (status, refused) = page.cancel(&task).await;
    assert_eq!(status, 502, "a finished task cannot be canceled: {refused}");
    let (_, wire) = page.get("/api/wire").await;
    let calls = wire["calls"].as_array().unwrap();
    for operation in ["ListTasks", "GetTask", "CancelTask"] {
        let recorded = calls
            .iter()
            .rev()
            .find(|call| call["operation"] == operation)
            .unwrap_or_else(|| panic!("no {operation} in {wire}"));
        assert_eq!(recorded["binding"], "GRPC", "{recorded}");
        assert!(recorded["durationMs"].is_u64(), "{recorded}");
        if operation == "CancelTask" {
            assert!(recorded["error"].is_string(), "{recorded}");
        } else {
            assert_eq!(recorded["status"], 200, "{recorded}");
            assert!(recorded["responseBody"].is_string(), "{recorded}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdks_agent_is_inspected_on_each_of_its_bindings() {
    use a2a_test_support::python;
    let Some(interpreter) = python::interpreter() else {
        return;
    };
    let agent = tokio::task::spawn_blocking(move || {
        python::echo_agent_grpc(&interpreter, Duration::from_secs(60))
    })
    .await
    .unwrap();
    let page = inspector().await;
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        let (status, connected) = page
            .post(
                "/api/connect",
                &json!({"url": agent.url, "binding": binding}),
            )
            .await;
        assert_eq!(status, 200, "{binding}: {connected}\n{}", agent.log());
        assert_eq!(connected["binding"], binding);
        assert_eq!(connected["card"]["name"], "Python echo agent");
        let errors: Vec<&Value> = connected["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|finding| finding["level"] == "error")
            .collect();
        assert!(errors.is_empty(), "{binding}: {errors:?}");
        let connection = connected["connection"].as_str().unwrap();
        for stream in [false, true] {
            let frames = page
                .send(
                    connection,
                    &json!({"parts": text("from the inspector"), "stream": stream}),
                )
                .await;
            assert_eq!(names(&frames).last(), Some(&"end"), "{frames:?}");
            assert_eq!(
                last_state(&frames).as_deref(),
                Some("TASK_STATE_COMPLETED"),
                "{binding} stream={stream}: {frames:?}"
            );
            let answered = frames
                .iter()
                .any(|(_, _, data)| data.to_string().contains("echo: from the inspector"));
            assert!(answered, "{binding} stream={stream}: {frames:?}");
            // The call is in the wire log, over the binding it went.
            let wire_id = frames[0].2["wire"].as_u64().unwrap();
            let call = page.wire_call(wire_id).await;
            assert_eq!(call["binding"], binding, "{call}");
        }
        let (status, list) = page
            .get(&format!("/api/connections/{connection}/tasks"))
            .await;
        assert_eq!(status, 200, "{binding}: {list}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_v03_agent_of_the_python_sdk_is_inspected_through_the_translating_client() {
    use a2a_test_support::python;
    let Some(interpreter) = python::interpreter_03() else {
        return;
    };
    let agent = tokio::task::spawn_blocking(move || {
        let script = python::workspace_root().join("tests/interop/python03/serve_agent.py");
        let mut command = python::command(&interpreter, &script);
        command.arg("0");
        python::Listening::start(command, "ready ", "serve_agent.py", Duration::from_secs(60))
    })
    .await
    .unwrap();
    let page = inspector().await;
    let connected = page.connect(&agent.url, json!({"kind": "none"})).await;
    assert_eq!(connected["binding"], "JSONRPC", "{connected}");
    let findings = connected["findings"].to_string();
    assert!(
        findings.contains("0.3"),
        "the card is read as v0.3: {findings}"
    );
    let connection = connected["connection"].as_str().unwrap();
    let frames = page
        .send(
            connection,
            &json!({"parts": text("from the inspector"), "stream": true}),
        )
        .await;
    assert_eq!(
        last_state(&frames).as_deref(),
        Some("TASK_STATE_COMPLETED"),
        "{frames:?}\n{}",
        agent.log()
    );
    assert!(
        frames
            .iter()
            .any(|(_, _, data)| data.to_string().contains("echo: from the inspector")),
        "{frames:?}"
    );
}
