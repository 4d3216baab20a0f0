//! [`Settings`]: the merged options with their defaults applied and every value checked, so
//! the rest of the command never sees an invalid or missing option.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use a2a_server::ServerConfig;
use a2a_server::auth::Secret;
use a2a_server::config::{CrossOwner, ProtocolVersions};
use a2a_server::store::InMemoryTaskStoreConfig;
use a2a_store_sql::SqlStoreOptions;
use a2a_types::ProtocolBinding;

use super::ConfigError;
use super::connections::{self, ConnectionSetting};
use super::options::{AgentKind, CrossOwnerAnswer, LogFormat, ServeOptions};
use super::push::{self, PushSetting};
use super::register::{self, RegisterSetting};
use super::security::{self, AuthSetting, TlsSetting};

/// Where `a2a serve` listens unless told otherwise.
pub(crate) const DEFAULT_BIND: &str = "127.0.0.1:8080";
const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Everything `a2a serve` needs, valid.
#[derive(Debug)]
pub(crate) struct Settings {
    /// The address to bind, as given (a host name is resolved at bind time).
    pub(crate) bind: String,
    /// The root URL clients use; `None` means `http://<bound address>`.
    pub(crate) public_url: Option<String>,
    /// Route prefix: `""` or `/x/y`.
    pub(crate) base_path: String,
    /// Where the card is served, below the base path.
    pub(crate) card_path: String,
    /// Serve only this binding.
    pub(crate) protocol_binding: Option<ProtocolBinding>,
    /// Where the gRPC binding listens, when it is served.
    pub(crate) grpc_bind: Option<String>,
    /// The card's GRPC interface URL; `None` means the bound gRPC address.
    pub(crate) grpc_public_url: Option<String>,
    /// The card's sources.
    pub(crate) card: CardSource,
    /// The agent.
    pub(crate) agent: AgentSetup,
    /// Where tasks are kept.
    pub(crate) store: StoreSetting,
    /// The server library's switches and limits.
    pub(crate) server: ServerConfig,
    /// Who may call.
    pub(crate) auth: AuthSetting,
    /// HTTPS, when configured.
    pub(crate) tls: Option<TlsSetting>,
    /// Push notifications, when on.
    pub(crate) push: Option<PushSetting>,
    /// Registration with a gateway, when `--register` names one.
    pub(crate) register: Option<RegisterSetting>,
    /// The limits on the listeners' connections.
    pub(crate) connections: ConnectionSetting,
    /// How long running work gets on shutdown.
    pub(crate) shutdown_grace: Duration,
    /// Log format.
    pub(crate) log_format: LogFormat,
    /// Log filter (`EnvFilter` syntax), checked; `RUST_LOG` wins over it when set.
    pub(crate) log_level: String,
}

/// Where the card comes from: a file, then parameters over it (parameters win, and may
/// override only the name, description and version).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CardSource {
    /// The card file.
    pub(crate) file: Option<PathBuf>,
    /// The card's URL, instead of a file (fetched once at start).
    pub(crate) url: Option<String>,
    /// The card as JSON text, instead of a file.
    pub(crate) inline: Option<String>,
    /// Overrides the name.
    pub(crate) name: Option<String>,
    /// Overrides the description.
    pub(crate) description: Option<String>,
    /// Overrides the version.
    pub(crate) version: Option<String>,
    /// The extended card's file.
    pub(crate) extended: Option<PathBuf>,
    /// The private key that signs the served card.
    pub(crate) signing_key: Option<PathBuf>,
    /// The signature's key id, instead of the key's thumbprint.
    pub(crate) signing_key_id: Option<String>,
}

/// The built-in agent, with what it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AgentSetup {
    /// Echo.
    Echo,
    /// Run a command per message.
    Exec(ExecCommand),
    /// The conformance kit's agent.
    Conformance,
    /// A language model with tools.
    Llm(Box<LlmSetup>),
}

/// What `--agent llm` needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LlmSetup {
    /// The model's name at the endpoint.
    pub(crate) model: String,
    /// The OpenAI-compatible endpoint.
    pub(crate) model_url: String,
    /// The endpoint's API key.
    pub(crate) api_key: Option<Secret>,
    /// The system prompt's file.
    pub(crate) system: Option<PathBuf>,
    /// MCP servers to start, as command lines.
    pub(crate) mcp_commands: Vec<String>,
    /// MCP servers over streamable HTTP.
    pub(crate) mcp_urls: Vec<String>,
    /// Tools needing approval, by glob.
    pub(crate) approve: Vec<String>,
    /// Tools refused, by glob.
    pub(crate) deny: Vec<String>,
    /// Model calls per task.
    pub(crate) max_steps: u32,
    /// Tokens per task; `None` for no limit.
    pub(crate) token_budget: Option<u64>,
    /// Working time per task; `None` for no limit.
    pub(crate) run_time_limit: Option<Duration>,
    /// Time per tool call.
    pub(crate) tool_timeout: Duration,
    /// Bytes of one tool's output the model sees.
    pub(crate) max_tool_output: usize,
    /// The approval-signing key; `None` for a random one per process.
    pub(crate) approval_key: Option<Secret>,
}

/// Where `--agent llm` finds its model unless told otherwise.
pub(crate) const DEFAULT_MODEL_URL: &str = "https://api.openai.com/v1";

/// A program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExecCommand {
    /// The program, looked up on `PATH` when it has no `/`.
    pub(crate) program: String,
    /// Its arguments.
    pub(crate) args: Vec<String>,
    /// What it reads on stdin.
    pub(crate) data_format: DataFormat,
}

/// What the exec agent's command reads on stdin (Camel's `dataFormat`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum DataFormat {
    /// The message's text (`PAYLOAD`).
    #[default]
    Payload,
    /// The whole message as JSON (`POJO`).
    Message,
    /// The SendMessage request as JSON: message, configuration, metadata (`RAW`).
    Raw,
}

impl DataFormat {
    fn parse(name: &str) -> Result<Self, ConfigError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "payload" | "text" => Ok(Self::Payload),
            "message" | "pojo" => Ok(Self::Message),
            "raw" => Ok(Self::Raw),
            other => Err(invalid(
                "data-format",
                format!("unknown format `{other}`; expected payload, message or raw"),
            )),
        }
    }
}

impl Settings {
    /// Applies defaults to the merged options and checks them.
    pub(crate) fn resolve(options: ServeOptions) -> Result<Self, ConfigError> {
        let mut server = ServerConfig::default();
        if let Some(on) = options.return_immediately {
            server.default_return_immediately = on;
        }
        if let Some(timeout) = options.async_timeout {
            server.async_timeout = positive("async-timeout", timeout.0)?;
        }
        if let Some(timeout) = options.blocking_timeout {
            server.blocking_timeout = timeout.0;
        }
        if let Some(timeout) = options.event_consumption_timeout {
            server.event_consumption_timeout = timeout.0;
        }
        if let Some(timeout) = options.store_reconciliation_timeout {
            server.store_reconciliation_timeout = timeout.0;
        }
        if let Some(on) = options.populate_referenced_tasks {
            server.populate_referenced_tasks = on;
        }
        if let Some(ttl) = options.stuck_task_ttl {
            server.stuck_task_ttl = ttl.0;
        }
        if let Some(max) = options.max_concurrent_tasks {
            server.max_concurrent_tasks = max;
        }
        if let Some(size) = options.task_queue_size {
            server.task_queue_size = size;
        }
        if let Some(size) = options.max_payload_size {
            server.max_payload_size = nonzero("max-payload-size", size)?;
        }
        if let Some(interval) = options.sse_heartbeat_interval {
            server.sse_keepalive = positive("sse-heartbeat-interval", interval.0)?;
        }
        if let Some(capacity) = options.sse_queue_capacity {
            server.sse_queue_capacity = nonzero("sse-queue-capacity", capacity)?;
        }
        server.cors = super::cors::cors(&options)?;
        if let Some(age) = options.card_max_age {
            server.card_max_age = age.0;
        }
        card_source(&options)?;
        protocol_choices(&options, &mut server)?;
        let store = store(&options)?;
        let auth = security::auth(&options)?;
        let tls = security::tls(&options)?;
        let push = push::push(&options)?;
        let register = register::register(&options)?;
        let agent = agent(&options)?;
        let connections = connections::connections(&options)?;
        if let Some(push) = &push {
            server.push = push.options.clone();
        }
        Ok(Self {
            bind: options.bind.unwrap_or_else(|| DEFAULT_BIND.to_owned()),
            public_url: options.public_url.as_deref().map(public_url).transpose()?,
            base_path: options
                .base_path
                .as_deref()
                .map(route_path)
                .unwrap_or_default(),
            card_path: options
                .card_path
                .as_deref()
                .map_or_else(|| a2a_server::WELL_KNOWN_CARD_PATH.to_owned(), route_path),
            protocol_binding: options
                .protocol_binding
                .as_deref()
                .map(|name| binding(name, options.grpc_bind.is_some()))
                .transpose()?,
            grpc_bind: options.grpc_bind,
            grpc_public_url: options
                .grpc_public_url
                .as_deref()
                .map(grpc_public_url)
                .transpose()?,
            card: CardSource {
                file: options.card,
                url: options.card_url,
                inline: options.card_json,
                name: options.name,
                description: options.description,
                version: options.version,
                extended: options.extended_card,
                signing_key: options.card_signing_key,
                signing_key_id: options.card_signing_key_id,
            },
            agent,
            store,
            server,
            auth,
            tls,
            push,
            register,
            connections,
            shutdown_grace: options
                .shutdown_grace
                .map_or(DEFAULT_SHUTDOWN_GRACE, |grace| grace.0),
            log_format: options.log_format.unwrap_or(LogFormat::Text),
            log_level: log_level(options.log_level.unwrap_or_else(|| "info".to_owned()))?,
        })
    }

    /// The scheme clients reach the server with: `https` when TLS is configured.
    pub(crate) fn scheme(&self) -> &'static str {
        if self.tls.is_some() { "https" } else { "http" }
    }

    /// Insecure development settings in force, each as a sentence for a start-up warning: a
    /// listener beyond loopback without authentication serves anyone who can reach it; one
    /// without TLS sends credentials in the clear.
    pub(crate) fn insecure_settings(&self, bound: SocketAddr) -> Vec<String> {
        let mut warnings = Vec::new();
        if !bound.ip().is_loopback()
            && self.tls.is_none()
            && matches!(self.auth, AuthSetting::Required(_))
        {
            warnings.push(format!(
                "listening on {bound} without TLS: credentials and messages cross the network in the clear"
            ));
        }
        if self
            .push
            .as_ref()
            .is_some_and(|push| push.options.allow_local_webhooks)
        {
            warnings.push(
                "local webhooks are allowed (--allow-local-webhooks): callers can make this server \
                 POST to its own loopback services"
                    .to_owned(),
            );
        }
        if !bound.ip().is_loopback() && self.auth == AuthSetting::Disabled {
            let what = match &self.agent {
                AgentSetup::Exec(command) => {
                    format!("and runs `{}` with their input", command.program)
                }
                AgentSetup::Llm(setup) => format!("the model {} and its tools", setup.model),
                AgentSetup::Echo | AgentSetup::Conformance => "the agent".to_owned(),
            };
            warnings.push(format!(
                "listening on {bound} without authentication: anyone who can reach it uses {what}"
            ));
        }
        warnings
    }
}

/// The switches for the places where the A2A spec and the products it grew from disagree:
/// the spec's reading by default, each product's behaviour on request.
fn protocol_choices(options: &ServeOptions, server: &mut ServerConfig) -> Result<(), ConfigError> {
    if let Some(profile) = &options.rest_status_profile {
        server.rest_status_profile = profile.parse().map_err(|_| {
            invalid(
                "rest-status-profile",
                format!("unknown profile `{profile}`; expected spec, camel or rfc7807-java"),
            )
        })?;
    }
    if let Some(on) = options.strict_extensions {
        server.strict_extensions = on;
    }
    if let Some(answer) = options.cross_owner {
        server.cross_owner = match answer {
            CrossOwnerAnswer::NotFound => CrossOwner::NotFound,
            CrossOwnerAnswer::Forbidden => CrossOwner::Forbidden,
        };
    }
    if let Some(on) = options.idempotent_cancel {
        server.idempotent_cancel = on;
    }
    if let Some(on) = options.lenient_message_id {
        server.lenient_message_id = on;
    }
    if let Some(version) = &options.assume_version {
        let version = version.trim();
        let served = version.split('.').next() == Some("1")
            && version.split('.').all(|part| part.parse::<u32>().is_ok());
        if !served {
            return Err(invalid(
                "assume-version",
                format!("`{version}` is not a version this server speaks; expected 1.0"),
            ));
        }
        server.assume_version_when_absent = Some(version.to_owned());
    }
    if let Some(versions) = &options.protocol_versions {
        server.protocol_versions = ProtocolVersions::parse(versions)
            .map_err(|message| invalid("protocol-versions", message))?;
    }
    if let Some(on) = options.subscribe_ends_on_interrupt {
        server.subscribe_ends_on_interrupt = on;
    }
    if let Some(key) = &options.page_token_key {
        let key = key.expose().as_bytes();
        if key.len() < MIN_PAGE_TOKEN_KEY_BYTES {
            // The length only: the key itself is a secret.
            return Err(invalid(
                "page-token-key",
                format!(
                    "must be at least {MIN_PAGE_TOKEN_KEY_BYTES} bytes, got {}",
                    key.len()
                ),
            ));
        }
        server.page_token_key = Some(key.to_vec());
    }
    Ok(())
}

/// A shorter page-token key could be guessed, and with it tokens forged.
const MIN_PAGE_TOKEN_KEY_BYTES: usize = 16;

fn invalid(option: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        option,
        message: message.into(),
    }
}

/// At most one of the card's sources, and a card URL that is one.
fn card_source(options: &ServeOptions) -> Result<(), ConfigError> {
    let given = [
        options.card.is_some(),
        options.card_url.is_some(),
        options.card_json.is_some(),
    ];
    if given.into_iter().filter(|given| *given).count() > 1 {
        let option = if options.card_json.is_some() {
            "card-json"
        } else {
            "card-url"
        };
        return Err(invalid(
            option,
            "give one card source: --card, --card-url or --card-json",
        ));
    }
    if let Some(url) = &options.card_url {
        a2a_client::card_url(url, None).map_err(|_| {
            invalid(
                "card-url",
                "must be an absolute http:// or https:// URL".to_owned(),
            )
        })?;
    }
    Ok(())
}

fn positive(option: &'static str, duration: Duration) -> Result<Duration, ConfigError> {
    if duration.is_zero() {
        Err(invalid(option, "must be more than 0"))
    } else {
        Ok(duration)
    }
}

fn nonzero(option: &'static str, value: usize) -> Result<usize, ConfigError> {
    if value == 0 {
        Err(invalid(option, "must be more than 0"))
    } else {
        Ok(value)
    }
}

/// Where `a2a serve` keeps tasks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StoreSetting {
    /// In the process's memory: gone at exit.
    Memory(InMemoryTaskStoreConfig),
    /// In SQLite or PostgreSQL: durable, and shared by instances over one PostgreSQL.
    Sql {
        /// `sqlite://…` or `postgres://…`; may hold a password, so never print it whole.
        url: String,
        /// Pool, expiry and cluster settings.
        options: SqlStoreOptions,
    },
}

impl StoreSetting {
    /// What the log may say of the store: its kind and, for SQLite, the file; never a
    /// PostgreSQL URL, which may carry a password.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Memory(_) => "memory".to_owned(),
            Self::Sql { url, .. } if url.starts_with("sqlite:") => url.clone(),
            Self::Sql { .. } => "postgres".to_owned(),
        }
    }
}

/// The default store: a SQLite file in the working directory, so tasks survive a restart
/// with nothing to install.
pub(crate) const DEFAULT_STORE: &str = "sqlite://a2a.db";

fn store(options: &ServeOptions) -> Result<StoreSetting, ConfigError> {
    let url = options.store.as_deref().map_or(DEFAULT_STORE, str::trim);
    if url == "memory" {
        let mut store = InMemoryTaskStoreConfig::default();
        if let Some(ttl) = options.completed_task_ttl {
            store.completed_task_ttl = ttl.0;
        }
        if let Some(max) = options.max_stored_tasks {
            store.max_stored_tasks = max;
        }
        if let Some(interval) = options.store_cleanup_interval {
            store.cleanup_interval = interval;
        }
        return Ok(StoreSetting::Memory(store));
    }
    if !(url.starts_with("sqlite:")
        || url.starts_with("postgres://")
        || url.starts_with("postgresql://"))
    {
        let shown = url.split_once("://").map_or(url, |(scheme, _)| scheme);
        return Err(invalid(
            "store",
            format!("unknown store `{shown}`; expected sqlite://PATH, postgres://URL or memory"),
        ));
    }
    if options.max_stored_tasks.is_some() {
        return Err(invalid(
            "max-stored-tasks",
            "applies to --store memory only; SQL stores expire finished tasks by --completed-task-ttl",
        ));
    }
    if options.store_cleanup_interval.is_some() {
        return Err(invalid(
            "store-cleanup-interval",
            "applies to --store memory only; SQL stores expire finished tasks by --completed-task-ttl",
        ));
    }
    if options.stuck_task_ttl.is_some_and(|ttl| !ttl.0.is_zero()) {
        return Err(invalid(
            "stuck-task-ttl",
            "applies to --store memory only; with a SQL store a task may run on another instance, and a turn lost with its instance is recovered after --lease-ttl",
        ));
    }
    let mut sql = SqlStoreOptions::new();
    if let Some(ttl) = options.completed_task_ttl {
        sql = sql.completed_task_ttl(ttl.0);
    }
    if let Some(max) = options.store_max_connections {
        if max == 0 {
            return Err(invalid("store-max-connections", "must be more than 0"));
        }
        sql = sql.max_connections(max);
    }
    if let Some(timeout) = options.store_connect_timeout {
        sql = sql.acquire_timeout(positive("store-connect-timeout", timeout.0)?);
    }
    if let Some(ttl) = options.lease_ttl {
        sql = sql.lease_ttl(positive("lease-ttl", ttl.0)?);
    }
    if let Some(id) = &options.instance_id {
        if id.trim().is_empty() {
            return Err(invalid("instance-id", "must not be empty"));
        }
        sql = sql.instance_id(id.trim());
    }
    Ok(StoreSetting::Sql {
        url: url.to_owned(),
        options: sql,
    })
}

/// `http(s)://host[:port][/path]`, without a trailing `/`.
fn public_url(url: &str) -> Result<String, ConfigError> {
    let trimmed = url.trim().trim_end_matches('/');
    let host = trimmed
        .strip_prefix("http://")
        .or_else(|| trimmed.strip_prefix("https://"));
    match host {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(trimmed.to_owned()),
        Some(_) | None => Err(invalid(
            "public-url",
            format!("`{url}` is not an http:// or https:// URL"),
        )),
    }
}

/// `a//b/` → `/a/b`; `/` and `""` → `""` (no prefix).
fn route_path(path: &str) -> String {
    path.split('/')
        .filter(|segment| !segment.is_empty())
        .fold(String::new(), |joined, segment| {
            format!("{joined}/{segment}")
        })
}

/// The bindings `a2a serve` serves: the two HTTP ones, and gRPC when it has a listener.
fn binding(name: &str, grpc_bound: bool) -> Result<ProtocolBinding, ConfigError> {
    match ProtocolBinding::parse(name) {
        binding @ (ProtocolBinding::JsonRpc | ProtocolBinding::HttpJson) => Ok(binding),
        ProtocolBinding::Grpc if grpc_bound => Ok(ProtocolBinding::Grpc),
        ProtocolBinding::Grpc => Err(invalid(
            "protocol-binding",
            format!("cannot serve `{name}` without --grpc-bind, the address gRPC listens on"),
        )),
        ProtocolBinding::Other(_) => Err(invalid(
            "protocol-binding",
            format!(
                "cannot serve `{name}`; expected JSONRPC, HTTP+JSON or GRPC (aliases jsonrpc, rest, grpc)"
            ),
        )),
    }
}

/// `host:port` (an `http://` or `https://` prefix is accepted and kept), without a path.
fn grpc_public_url(url: &str) -> Result<String, ConfigError> {
    let trimmed = url.trim().trim_end_matches('/');
    let authority = trimmed
        .strip_prefix("http://")
        .or_else(|| trimmed.strip_prefix("https://"))
        .unwrap_or(trimmed);
    let valid = authority
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
        && !authority.contains('/');
    if valid {
        Ok(trimmed.to_owned())
    } else {
        Err(invalid(
            "grpc-public-url",
            format!("`{url}` is not host:port"),
        ))
    }
}

fn agent(options: &ServeOptions) -> Result<AgentSetup, ConfigError> {
    let kind = options.agent.unwrap_or(AgentKind::Echo);
    if kind == AgentKind::Llm {
        if !options.command.is_empty() {
            return Err(invalid(
                "agent",
                "a command after `--` is only used by --agent exec; give MCP servers with --mcp",
            ));
        }
        return llm(options).map(|setup| AgentSetup::Llm(Box::new(setup)));
    }
    if options.model.is_some() {
        return Err(invalid("model", "--model is only used by --agent llm"));
    }
    let data_format = options
        .data_format
        .as_deref()
        .map(DataFormat::parse)
        .transpose()?;
    if data_format.is_some() && kind != AgentKind::Exec {
        return Err(invalid("data-format", "is only used by --agent exec"));
    }
    let mut words = options.command.clone().into_iter();
    match (kind, words.next()) {
        (AgentKind::Exec, Some(program)) => Ok(AgentSetup::Exec(ExecCommand {
            program,
            args: words.collect(),
            data_format: data_format.unwrap_or_default(),
        })),
        (AgentKind::Exec, None) => Err(invalid(
            "agent",
            "exec needs a command: a2a serve --agent exec -- CMD ARGS…",
        )),
        (AgentKind::Echo | AgentKind::Conformance | AgentKind::Llm, Some(program)) => Err(invalid(
            "agent",
            format!("a command (`{program}` …) is only used by --agent exec"),
        )),
        (AgentKind::Echo, None) => Ok(AgentSetup::Echo),
        (AgentKind::Conformance, None) => Ok(AgentSetup::Conformance),
        (AgentKind::Llm, None) => llm(options).map(|setup| AgentSetup::Llm(Box::new(setup))),
    }
}

fn llm(options: &ServeOptions) -> Result<LlmSetup, ConfigError> {
    let Some(model) = options
        .model
        .clone()
        .filter(|model| !model.trim().is_empty())
    else {
        return Err(invalid(
            "model",
            "--agent llm needs --model NAME (the model's name at --model-url)",
        ));
    };
    let model_url = options
        .model_url
        .clone()
        .unwrap_or_else(|| DEFAULT_MODEL_URL.to_owned());
    match url::Url::parse(&model_url) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => {}
        _ => {
            return Err(invalid(
                "model-url",
                format!("`{model_url}` is not an http(s) URL"),
            ));
        }
    }
    let approve = options.approve.clone().unwrap_or_default();
    let deny = options.deny.clone().unwrap_or_default();
    let mut policy = a2a_run::policy::ToolPolicy::allow_all();
    for pattern in &approve {
        policy = policy
            .ask(pattern)
            .map_err(|error| invalid("approve", error.to_string()))?;
    }
    for pattern in &deny {
        policy = policy
            .deny(pattern)
            .map_err(|error| invalid("deny", error.to_string()))?;
    }
    let _ = policy;
    let max_steps = match options.max_steps {
        Some(0) => return Err(invalid("max-steps", "must be at least 1")),
        Some(steps) => steps,
        None => 16,
    };
    Ok(LlmSetup {
        model,
        model_url,
        api_key: options
            .model_api_key
            .clone()
            .filter(|key| !key.is_empty())
            .map(Secret::new),
        system: options.system.clone(),
        mcp_commands: options.mcp.clone().unwrap_or_default(),
        mcp_urls: options.mcp_url.clone().unwrap_or_default(),
        approve,
        deny,
        max_steps,
        token_budget: options.token_budget.filter(|budget| *budget > 0),
        run_time_limit: options
            .run_time_limit
            .map(|limit| limit.0)
            .filter(|limit| !limit.is_zero()),
        tool_timeout: match options.tool_timeout {
            Some(timeout) => positive("tool-timeout", timeout.0)?,
            None => Duration::from_secs(60),
        },
        max_tool_output: match options.max_tool_output {
            Some(size) => nonzero("max-tool-output", size)?,
            None => 16 * 1024,
        },
        approval_key: options
            .approval_key
            .clone()
            .filter(|key| !key.is_empty())
            .map(Secret::new),
    })
}

/// `filter` when it parses as a log filter, so a bad `--log-level` stops the command with a
/// usage error even when `RUST_LOG` overrides it.
fn log_level(filter: String) -> Result<String, ConfigError> {
    match crate::logging::parse(&filter) {
        Ok(_) => Ok(filter),
        Err(error) => Err(invalid("log-level", format!("`{filter}`: {error}"))),
    }
}
