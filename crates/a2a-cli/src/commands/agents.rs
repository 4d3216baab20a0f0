//! `a2a agents list|get|register|heartbeat|deregister GATEWAY …`: a client of a gateway's
//! agent registry (ours, `a2a gateway`, or KubeMQ's: the same API).
//!
//! | command | call |
//! |---|---|
//! | `list` | `GET /agents?skill_tags=…&limit=…` (a bare array, or the live KubeMQ broker's `{"agents": […]}`) |
//! | `get ID` | `GET /agents/{id}` |
//! | `register` | `POST /agents/register` with the card |
//! | `heartbeat ID` | `POST /agents/heartbeat {"agent_id"}` |
//! | `deregister ID` | `POST /agents/deregister {"agent_id"}` |
//!
//! Writes carry the registry key (`--key`, `A2A_REGISTER_KEY`) as a bearer token. Human
//! output by default; `--json` prints the gateway's answer as one line of JSON.

use std::path::PathBuf;
use std::time::Duration;

use a2a_server::auth::Secret;
use anyhow::Context as _;
use serde_json::{Map, Value, json};

use crate::config::Millis;
use crate::error::{UnreachableError, UsageError};
use crate::output;

/// `a2a agents`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
GATEWAY is the gateway's root URL (the one `a2a gateway` prints, e.g. http://127.0.0.1:9090). \
Writes (register, heartbeat, deregister) send --key as a bearer token when it is set. Exit \
codes: 0 ok, 1 the gateway refused (unknown agent, bad card, wrong key), 2 usage, 3 the \
gateway cannot be reached.

Examples:
  a2a agents list http://127.0.0.1:9090
  a2a agents list http://127.0.0.1:9090 --skill-tag search,translate --limit 10
  a2a agents get http://127.0.0.1:9090 echo-01
  a2a agents register http://127.0.0.1:9090 --card card.json --agent-id echo-01
  a2a agents register http://127.0.0.1:9090 --agent-id echo-01 --name Echo --url http://10.0.0.5:8080/
  a2a agents heartbeat http://127.0.0.1:9090 echo-01
  a2a agents deregister http://127.0.0.1:9090 echo-01")]
pub(crate) struct AgentsArgs {
    #[command(subcommand)]
    command: AgentsCommand,
}

#[derive(Debug, clap::Subcommand)]
enum AgentsCommand {
    /// List the registered agents.
    List(ListArgs),
    /// Print one agent's registry record.
    Get(IdArgs),
    /// Register an agent (again: registering an id twice keeps its registered_at).
    Register(RegisterArgs),
    /// Tell the gateway an agent is alive, so it does not expire.
    Heartbeat(IdArgs),
    /// Remove an agent from the registry.
    Deregister(IdArgs),
}

/// What every `a2a agents` command needs: the gateway and how to reach it.
#[derive(Debug, clap::Args)]
struct Target {
    /// The gateway's root URL
    #[arg(value_name = "GATEWAY")]
    gateway: String,
    /// The gateway's registry key (its --registry-key), sent as a bearer token on writes (secret; prefer the variable)
    #[arg(
        long,
        value_name = "KEY",
        env = "A2A_REGISTER_KEY",
        hide_env_values = true
    )]
    key: Option<Secret>,
    /// CA certificates (PEM) to trust for an https:// gateway, beside the system's
    #[arg(long, value_name = "FILE")]
    cacert: Option<PathBuf>,
    /// Give up on the gateway after this long (e.g. 10s; a bare number is milliseconds)
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    timeout: Millis,
    /// Print the gateway's answer as one line of JSON instead of a summary
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct ListArgs {
    #[command(flatten)]
    target: Target,
    /// Only agents with a skill carrying one of these tags (repeat or comma-separate)
    #[arg(long = "skill-tag", value_name = "TAG", value_delimiter = ',')]
    skill_tags: Vec<String>,
    /// At most this many agents (0: no limit)
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
}

#[derive(Debug, clap::Args)]
struct IdArgs {
    #[command(flatten)]
    target: Target,
    /// The agent's id in the registry
    #[arg(value_name = "AGENT_ID")]
    agent_id: String,
}

#[derive(Debug, clap::Args)]
struct RegisterArgs {
    #[command(flatten)]
    target: Target,
    /// The card to register: a JSON file (an A2A agent card or a KubeMQ record), `-` for stdin
    #[arg(long, value_name = "FILE")]
    card: Option<PathBuf>,
    /// The id to register under (lowercase letters, digits and hyphens) [default: the card's agent_id]
    #[arg(long, value_name = "ID")]
    agent_id: Option<String>,
    /// The agent's name, over the card's
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// The agent's JSON-RPC URL, over the card's [default: the card's url, else its JSON-RPC interface]
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// The agent's description, over the card's
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
}

/// Runs one `a2a agents` command.
pub(crate) async fn run(args: AgentsArgs) -> anyhow::Result<()> {
    match args.command {
        AgentsCommand::List(args) => list(args).await,
        AgentsCommand::Get(args) => get(args).await,
        AgentsCommand::Register(args) => register(args).await,
        AgentsCommand::Heartbeat(args) => heartbeat(args).await,
        AgentsCommand::Deregister(args) => deregister(args).await,
    }
}

async fn list(args: ListArgs) -> anyhow::Result<()> {
    let registry = Registry::new(&args.target)?;
    let mut url = registry.url(&["agents"]);
    {
        let mut query = url.query_pairs_mut();
        let tags: Vec<&str> = args
            .skill_tags
            .iter()
            .map(|tag| tag.trim())
            .filter(|tag| !tag.is_empty())
            .collect();
        if !tags.is_empty() {
            query.append_pair("skill_tags", &tags.join(","));
        }
        if let Some(limit) = args.limit {
            query.append_pair("limit", &limit.to_string());
        }
    }
    if url.query() == Some("") {
        url.set_query(None);
    }
    let answer = registry.call(registry.http.get(url)).await?;
    if args.target.json {
        return output::json_line(&answer);
    }
    let agents = agents_of(&answer)?;
    output::text(&agents_table(agents))?;
    Ok(())
}

async fn get(args: IdArgs) -> anyhow::Result<()> {
    let registry = Registry::new(&args.target)?;
    let url = registry.url(&["agents", &args.agent_id]);
    let answer = registry
        .call(registry.http.get(url))
        .await
        .map_err(|error| error.about(&args.agent_id))?;
    if args.target.json {
        return output::json_line(&answer);
    }
    output::text(&record_text(&answer))?;
    Ok(())
}

async fn register(args: RegisterArgs) -> anyhow::Result<()> {
    let registry = Registry::new(&args.target)?;
    let body = register_body(&args)?;
    let request = registry.write(registry.http.post(registry.url(&["agents", "register"])));
    let answer = registry.call(request.json(&body)).await?;
    if args.target.json {
        return output::json_line(&answer);
    }
    let agent_id = text_of(&answer, "agent_id");
    let mut line = format!("registered {agent_id}");
    let url = url_of(&answer);
    if !url.is_empty() {
        line.push_str(&format!(" at {url}"));
    }
    line.push('\n');
    line.push_str(&format!(
        "  registered at {}, last seen {}\n",
        text_of(&answer, "registered_at"),
        text_of(&answer, "last_seen")
    ));
    output::text(&line)?;
    Ok(())
}

async fn heartbeat(args: IdArgs) -> anyhow::Result<()> {
    let registry = Registry::new(&args.target)?;
    let request = registry.write(registry.http.post(registry.url(&["agents", "heartbeat"])));
    let answer = registry
        .call(request.json(&json!({"agent_id": args.agent_id})))
        .await
        .map_err(|error| error.about(&args.agent_id))?;
    if args.target.json {
        return output::json_line(&answer);
    }
    output::text(&format!(
        "heartbeat sent for {}; last seen {}\n",
        args.agent_id,
        text_of(&answer, "last_seen")
    ))?;
    Ok(())
}

async fn deregister(args: IdArgs) -> anyhow::Result<()> {
    let registry = Registry::new(&args.target)?;
    let request = registry.write(registry.http.post(registry.url(&["agents", "deregister"])));
    let answer = registry
        .call(request.json(&json!({"agent_id": args.agent_id})))
        .await
        .map_err(|error| error.about(&args.agent_id))?;
    if args.target.json {
        return output::json_line(&answer);
    }
    output::text(&format!("deregistered {}\n", args.agent_id))?;
    Ok(())
}

/// The register body: the card file's members (if any), then the flags over them, with a
/// top-level `url` (the JSON-RPC interface's) for gateways that read KubeMQ records.
fn register_body(args: &RegisterArgs) -> anyhow::Result<Value> {
    let mut body = match &args.card {
        Some(path) => read_card(path)?,
        None => Map::new(),
    };
    if let Some(agent_id) = &args.agent_id {
        body.insert("agent_id".to_owned(), Value::from(agent_id.clone()));
    }
    for (member, value) in [
        ("name", &args.name),
        ("url", &args.url),
        ("description", &args.description),
    ] {
        if let Some(value) = value {
            body.insert(member.to_owned(), Value::from(value.clone()));
        }
    }
    if !body.get("agent_id").is_some_and(Value::is_string) {
        return Err(UsageError::new("give --agent-id: the card names no agent_id").into());
    }
    if !body.contains_key("url")
        && let Some(url) = jsonrpc_interface(&body)
    {
        body.insert("url".to_owned(), Value::from(url));
    }
    Ok(Value::Object(body))
}

/// The JSON object of the card file `path` (`-`: stdin).
fn read_card(path: &std::path::Path) -> anyhow::Result<Map<String, Value>> {
    let shown = path.display();
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|error| UsageError::new(format!("--card -: {error}")))?
    } else {
        std::fs::read_to_string(path)
            .map_err(|error| UsageError::new(format!("--card {shown}: {error}")))?
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(card)) => Ok(card),
        Ok(_) => Err(UsageError::new(format!("--card {shown}: not a JSON object")).into()),
        Err(error) => Err(UsageError::new(format!("--card {shown}: not JSON: {error}")).into()),
    }
}

/// The URL of the card's first JSON-RPC interface.
fn jsonrpc_interface(card: &Map<String, Value>) -> Option<String> {
    card.get("supportedInterfaces")?
        .as_array()?
        .iter()
        .find(|interface| {
            interface
                .get("protocolBinding")
                .and_then(Value::as_str)
                .is_some_and(|binding| {
                    a2a_types::ProtocolBinding::parse(binding)
                        == a2a_types::ProtocolBinding::JsonRpc
                })
        })
        .and_then(|interface| interface.get("url"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The records of a `GET /agents` answer: a bare array, or `{"agents": […]}` as the live
/// KubeMQ broker answers.
fn agents_of(answer: &Value) -> Result<&[Value], RegistryCallError> {
    match answer {
        Value::Array(agents) => Ok(agents),
        Value::Object(wrapped) => match wrapped.get("agents") {
            Some(Value::Array(agents)) => Ok(agents),
            Some(Value::Null) => Ok(&[]),
            _ => Err(RegistryCallError::Unreadable(
                "the agent list is neither an array nor {\"agents\": [...]}".to_owned(),
            )),
        },
        _ => Err(RegistryCallError::Unreadable(
            "the agent list is not an array".to_owned(),
        )),
    }
}

/// One line per agent under a header: id, name, URL and when it was last seen.
fn agents_table(agents: &[Value]) -> String {
    if agents.is_empty() {
        return "no agents registered\n".to_owned();
    }
    let header = ["AGENT ID", "NAME", "URL", "LAST SEEN"].map(str::to_owned);
    let rows: Vec<[String; 4]> = agents
        .iter()
        .map(|agent| {
            [
                text_of(agent, "agent_id"),
                text_of(agent, "name"),
                url_of(agent),
                text_of(agent, "last_seen"),
            ]
        })
        .collect();
    let mut widths = header.each_ref().map(|cell| cell.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (index, (cell, width)) in row.iter().zip(widths).enumerate() {
            if index + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}  "));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// One agent's record as `name: value` lines.
fn record_text(record: &Value) -> String {
    let mut lines = vec![
        ("agent id", text_of(record, "agent_id")),
        ("name", text_of(record, "name")),
        ("description", text_of(record, "description")),
        ("version", text_of(record, "version")),
        ("url", url_of(record)),
    ];
    if let Some(interfaces) = record.get("supportedInterfaces").and_then(Value::as_array) {
        for interface in interfaces {
            lines.push((
                "interface",
                format!(
                    "{} {}",
                    text_of(interface, "protocolBinding"),
                    text_of(interface, "url")
                ),
            ));
        }
    }
    if let Some(skills) = record.get("skills").and_then(Value::as_array) {
        for skill in skills {
            let name = match text_of(skill, "name") {
                name if name.is_empty() => text_of(skill, "id"),
                name => name,
            };
            let tags: Vec<&str> = skill
                .get("tags")
                .and_then(Value::as_array)
                .map(|tags| tags.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let skill = if tags.is_empty() {
                name
            } else {
                format!("{name} (tags: {})", tags.join(", "))
            };
            lines.push(("skill", skill));
        }
    }
    lines.push(("registered at", text_of(record, "registered_at")));
    lines.push(("last seen", text_of(record, "last_seen")));
    let mut text = String::new();
    for (name, value) in lines.into_iter().filter(|(_, value)| !value.is_empty()) {
        text.push_str(&format!("{:<15}{value}\n", format!("{name}:")));
    }
    text
}

/// A string member of `value`; empty when missing or not a string.
fn text_of(value: &Value, member: &str) -> String {
    value
        .get(member)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The record's `url`, else its first interface's.
fn url_of(record: &Value) -> String {
    match text_of(record, "url") {
        url if !url.is_empty() => url,
        _ => record
            .get("supportedInterfaces")
            .and_then(Value::as_array)
            .and_then(|interfaces| interfaces.first())
            .map(|interface| text_of(interface, "url"))
            .unwrap_or_default(),
    }
}

/// A registry call that failed once the gateway was reached (exit code 1).
#[derive(Debug, thiserror::Error)]
enum RegistryCallError {
    /// The gateway answered with an error status.
    #[error("the gateway answered HTTP {status}: {message}")]
    Refused { status: u16, message: String },
    /// The id is not registered (404, or 400 "agent not found" for heartbeats).
    #[error("agent not found: {0}")]
    NotFound(String),
    /// A 2xx answer that is not what the API returns.
    #[error("the gateway's answer cannot be read: {0}")]
    Unreadable(String),
}

/// What a call to the gateway may fail with.
#[derive(Debug)]
enum CallFailure {
    /// Not reached at all (exit code 3).
    Unreachable(UnreachableError),
    /// Reached, but refused or answered nonsense (exit code 1).
    Call(RegistryCallError),
}

impl CallFailure {
    /// An "agent not found" answer named after `agent_id`.
    fn about(self, agent_id: &str) -> anyhow::Error {
        match self {
            Self::Call(RegistryCallError::Refused { status, message })
                if matches!(status, 400 | 404) && message == "agent not found" =>
            {
                RegistryCallError::NotFound(agent_id.to_owned()).into()
            }
            other => other.into(),
        }
    }
}

impl From<CallFailure> for anyhow::Error {
    fn from(failure: CallFailure) -> Self {
        match failure {
            CallFailure::Unreachable(error) => error.into(),
            CallFailure::Call(error) => error.into(),
        }
    }
}

/// The gateway could not be reached.
#[derive(Debug, thiserror::Error)]
#[error("cannot reach the gateway at {url}")]
struct GatewayUnreachable {
    url: String,
    #[source]
    source: reqwest::Error,
}

/// The gateway's registry API.
struct Registry {
    http: reqwest::Client,
    root: url::Url,
    key: Option<Secret>,
}

impl Registry {
    fn new(target: &Target) -> anyhow::Result<Self> {
        let root = url::Url::parse(target.gateway.trim())
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https"))
            .ok_or_else(|| {
                UsageError::new(format!(
                    "GATEWAY `{}` is not an http:// or https:// URL",
                    target.gateway
                ))
            })?;
        let timeout: Duration = target.timeout.0;
        if timeout.is_zero() {
            return Err(UsageError::new("--timeout must be more than 0").into());
        }
        let mut http = reqwest::Client::builder().timeout(timeout);
        if let Some(path) = &target.cacert {
            let shown = path.display();
            let pem = std::fs::read(path)
                .map_err(|error| UsageError::new(format!("--cacert {shown}: {error}")))?;
            let certificates = reqwest::Certificate::from_pem_bundle(&pem)
                .ok()
                .filter(|certificates| !certificates.is_empty())
                .ok_or_else(|| {
                    UsageError::new(format!("--cacert {shown} holds no PEM certificate"))
                })?;
            for certificate in certificates {
                http = http.add_root_certificate(certificate);
            }
        }
        let http = http
            .build()
            .context("cannot build the HTTP client for the gateway")?;
        Ok(Self {
            http,
            root,
            key: target.key.clone().filter(|key| !key.is_empty()),
        })
    }

    /// The gateway's URL with `segments` appended to its path (each percent-encoded).
    fn url(&self, segments: &[&str]) -> url::Url {
        let mut url = self.root.clone();
        url.set_query(None);
        url.set_fragment(None);
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        url
    }

    /// `request` with the registry key, when one is set.
    fn write(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.key {
            Some(key) => request.bearer_auth(key.expose()),
            None => request,
        }
    }

    /// Sends `request`; the JSON of a 2xx answer, or why not.
    async fn call(&self, request: reqwest::RequestBuilder) -> Result<Value, CallFailure> {
        let unreachable = |source: reqwest::Error| {
            CallFailure::Unreachable(UnreachableError::from_error(GatewayUnreachable {
                url: self.root.as_str().trim_end_matches('/').to_owned(),
                source: source.without_url(),
            }))
        };
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(unreachable)?;
        let body = serde_json::from_str::<Value>(&text);
        if (200..300).contains(&status) {
            return body.map_err(|_| {
                CallFailure::Call(RegistryCallError::Unreadable("not JSON".to_owned()))
            });
        }
        let message = body
            .ok()
            .and_then(|answer| {
                answer
                    .get("error")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| {
                text.lines()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .take(200)
                    .collect()
            });
        Err(CallFailure::Call(RegistryCallError::Refused {
            status,
            message,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_list_shapes_are_read() {
        let agent = || json!({"agent_id": "echo-01", "name": "Echo", "last_seen": "t"});
        let bare = json!([agent()]);
        let wrapped = json!({"agents": [agent()]});
        assert_eq!(agents_of(&bare).unwrap().len(), 1);
        assert_eq!(agents_of(&wrapped).unwrap().len(), 1);
        assert!(agents_of(&json!({"agents": null})).unwrap().is_empty());
        assert!(agents_of(&json!("x")).is_err());
    }

    #[test]
    fn the_table_aligns_its_columns() {
        let agents = [
            json!({"agent_id": "echo-01", "name": "Echo", "url": "http://a/", "last_seen": "t1"}),
            json!({"agent_id": "b", "name": "Bee agent", "supportedInterfaces": [{"url": "http://b/"}], "last_seen": "t2"}),
        ];
        assert_eq!(
            agents_table(&agents),
            "AGENT ID  NAME       URL        LAST SEEN\n\
             echo-01   Echo       http://a/  t1\n\
             b         Bee agent  http://b/  t2\n"
        );
        assert_eq!(agents_table(&[]), "no agents registered\n");
    }
}
