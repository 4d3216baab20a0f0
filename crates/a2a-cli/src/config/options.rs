//! [`ServeOptions`]: every option of `a2a serve` as one source gives it. The same struct is
//! the clap flags, the TOML file (keys are the field names) and, through the flag names, the
//! `A2A_*` environment variables, so a new option is declared once.

use std::path::PathBuf;

use clap::builder::BoolishValueParser;
use serde::{Deserialize, Serialize};

use a2a_server::auth::Secret;

use crate::duration::Millis;

/// The built-in agent to serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AgentKind {
    /// Completes every task with an artifact echoing the message text.
    Echo,
    /// Runs the command after `--` per message: stdin = the text, stdout lines = artifact.
    Exec,
    /// Behaves by messageId prefix (`tck-…`) for the A2A conformance kit.
    Conformance,
    /// A language model with tools (MCP servers), tool calls needing approval as asked.
    Llm,
}

/// What a caller naming another caller's task is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum CrossOwnerAnswer {
    /// TaskNotFound, exactly as for a task that does not exist: reveals nothing.
    NotFound,
    /// 403 / AUTHORIZATION: says the task exists but is not the caller's.
    Forbidden,
}

/// How logs are written to stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum LogFormat {
    /// One human-readable line per event.
    Text,
    /// One JSON object per event.
    Json,
}

/// The options of `a2a serve`; `None` (or an empty command) means "not given here".
///
/// Defaults are applied after merging, in [`super::settings`]; the `[default: …]` texts
/// below are for `--help`.
#[derive(Debug, Clone, Default, PartialEq, clap::Args, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct ServeOptions {
    /// Address to listen on [default: 127.0.0.1:8080]
    #[arg(long, value_name = "ADDR", help_heading = "Serving")]
    pub(crate) bind: Option<String>,
    /// Root URL clients use to reach this server; the card's added interfaces are this plus --base-path [default: http://<bound address>]
    #[arg(long, value_name = "URL", help_heading = "Serving")]
    pub(crate) public_url: Option<String>,
    /// Prefix of every route [default: none]
    #[arg(long, value_name = "PATH", help_heading = "Serving")]
    pub(crate) base_path: Option<String>,
    /// Where the card is served [default: /.well-known/agent-card.json]
    #[arg(long, value_name = "PATH", help_heading = "Serving")]
    pub(crate) card_path: Option<String>,
    /// Serve only this binding: JSONRPC, HTTP+JSON or GRPC (aliases jsonrpc, rest, grpc) [default: every interface of the card]
    #[arg(long, value_name = "BINDING", help_heading = "Serving")]
    pub(crate) protocol_binding: Option<String>,
    /// Also serve the gRPC binding, on this address; the card gets a GRPC interface [default: off]
    #[arg(long, value_name = "ADDR", help_heading = "Serving")]
    pub(crate) grpc_bind: Option<String>,
    /// host:port clients use to reach the gRPC listener, for the card's GRPC interface [default: the bound gRPC address]
    #[arg(long, value_name = "HOST:PORT", help_heading = "Serving")]
    pub(crate) grpc_public_url: Option<String>,
    /// Enable CORS for browser clients: they may send the A2A headers, Authorization and the API-key header [default: false]
    #[arg(long, value_name = "BOOL", help_heading = "Serving", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub(crate) cors: Option<bool>,
    /// Origins whose browser pages may call the server, comma-separated; turns CORS on [default: any origin, credentials off]
    #[arg(
        long,
        value_name = "ORIGINS",
        value_delimiter = ',',
        help_heading = "Serving"
    )]
    pub(crate) cors_origins: Option<Vec<String>>,

    /// Deliver push notifications: the card declares them and webhooks can be registered [default: false]
    #[arg(long, value_name = "BOOL", help_heading = "Push", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub(crate) push_notifications: Option<bool>,
    /// Allow webhooks on loopback addresses, and plain http to them (development only) [default: false]
    #[arg(long, value_name = "BOOL", help_heading = "Push", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub(crate) allow_local_webhooks: Option<bool>,
    /// Retries of a delivery that failed with 5xx, a timeout or an I/O error [default: 3]
    #[arg(long, value_name = "N", help_heading = "Push")]
    pub(crate) push_retry_attempts: Option<u32>,
    /// Delay before the first retry; each next one doubles, with jitter [default: 1000]
    #[arg(long, value_name = "MS", help_heading = "Push")]
    pub(crate) push_retry_backoff: Option<Millis>,
    /// Time limit of one delivery attempt [default: 10000]
    #[arg(long, value_name = "MS", help_heading = "Push")]
    pub(crate) push_timeout: Option<Millis>,
    /// How long an instance's hold on a webhook lasts without progress; after a crash, another instance (or the restarted one) resumes its deliveries once it runs out. Longer than --push-timeout [default: 60000]
    #[arg(long, value_name = "MS", help_heading = "Push")]
    pub(crate) push_claim_ttl: Option<Millis>,
    /// The most webhooks one task may have registered; more are refused with InvalidParams [default: 100]
    #[arg(long, value_name = "N", help_heading = "Push")]
    pub(crate) max_push_configs_per_task: Option<usize>,
    /// Private key (PKCS#8 PEM: EC P-256 or P-384, or Ed25519) that signs deliveries; share it between instances [default: a new P-256 key per start]
    #[arg(long, value_name = "FILE", help_heading = "Push")]
    pub(crate) push_signing_key: Option<PathBuf>,

    /// Serve without authentication: anyone who reaches the server uses the agent (development only; logs a warning) [default: false]
    #[arg(long, value_name = "BOOL", help_heading = "Security", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub(crate) no_auth: Option<bool>,
    /// Accept this API key (secret; prefer A2A_API_KEY)
    #[arg(
        long,
        value_name = "KEY",
        help_heading = "Security",
        hide_env_values = true
    )]
    #[serde(serialize_with = "super::print::hidden")]
    pub(crate) api_key: Option<Secret>,
    /// Header that carries the API key, unless the card's scheme names one [default: X-API-Key]
    #[arg(long, value_name = "NAME", help_heading = "Security")]
    pub(crate) api_key_header: Option<String>,
    /// Accept this static bearer token (secret; prefer A2A_BEARER_TOKEN)
    #[arg(
        long,
        value_name = "TOKEN",
        help_heading = "Security",
        hide_env_values = true
    )]
    #[serde(serialize_with = "super::print::hidden")]
    pub(crate) bearer_token: Option<Secret>,
    /// Accept JWTs signed by a key of this JWKS (needs --issuer and --audience)
    #[arg(long, value_name = "URL", help_heading = "Security")]
    pub(crate) jwks_url: Option<String>,
    /// Accept JWTs from this OpenID Connect issuer; keys found by discovery (needs --audience)
    #[arg(long, value_name = "URL", help_heading = "Security")]
    pub(crate) oidc_issuer: Option<String>,
    /// The `iss` accepted JWTs must carry (with --jwks-url)
    #[arg(long, value_name = "ISSUER", help_heading = "Security")]
    pub(crate) issuer: Option<String>,
    /// The audience accepted tokens must name, e.g. this agent's URL
    #[arg(long, value_name = "AUDIENCE", help_heading = "Security")]
    pub(crate) audience: Option<String>,
    /// Scopes every token must grant, comma-separated [default: none]
    #[arg(long, value_name = "SCOPES", help_heading = "Security")]
    pub(crate) required_scopes: Option<String>,
    /// Check opaque tokens at this RFC 7662 introspection endpoint
    #[arg(long, value_name = "URL", help_heading = "Security")]
    pub(crate) introspection_url: Option<String>,
    /// Client id for the introspection endpoint
    #[arg(long, value_name = "ID", help_heading = "Security")]
    pub(crate) introspection_client_id: Option<String>,
    /// Client secret for the introspection endpoint (secret; prefer A2A_INTROSPECTION_CLIENT_SECRET)
    #[arg(
        long,
        value_name = "SECRET",
        help_heading = "Security",
        hide_env_values = true
    )]
    #[serde(serialize_with = "super::print::hidden")]
    pub(crate) introspection_client_secret: Option<Secret>,
    /// Serve HTTPS with this certificate chain (PEM)
    #[arg(long, value_name = "FILE", help_heading = "Security")]
    pub(crate) tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM)
    #[arg(long, value_name = "FILE", help_heading = "Security")]
    pub(crate) tls_key: Option<PathBuf>,
    /// Ask clients for certificates issued by these CAs (PEM) and accept them as callers (mutual TLS; needs --tls-cert)
    #[arg(long, value_name = "FILE", help_heading = "Security")]
    pub(crate) client_ca: Option<PathBuf>,

    /// Register with the A2A gateway at this URL while serving: heartbeats keep the registration live, SIGINT/SIGTERM deregisters [default: not registered]
    #[arg(long, value_name = "URL", help_heading = "Gateway")]
    pub(crate) register: Option<String>,
    /// The id to register under: lowercase letters, digits and hyphens [default: from the card's name]
    #[arg(long, value_name = "ID", help_heading = "Gateway")]
    pub(crate) agent_id: Option<String>,
    /// Time between heartbeats to the gateway; keep it under a third of the gateway's agent TTL [default: 60000]
    #[arg(long, value_name = "MS", help_heading = "Gateway")]
    pub(crate) heartbeat_interval: Option<Millis>,
    /// The gateway's registry key (its --registry-key), sent as a bearer token with registrations, heartbeats and deregistrations (secret; prefer A2A_REGISTER_KEY) [default: none]
    #[arg(
        long,
        value_name = "KEY",
        help_heading = "Gateway",
        hide_env_values = true
    )]
    #[serde(serialize_with = "super::print::hidden")]
    pub(crate) register_key: Option<Secret>,
    /// CA certificates (PEM) to trust for an https:// gateway, beside the system's [default: the system's only]
    #[arg(long, value_name = "FILE", help_heading = "Gateway")]
    pub(crate) register_cacert: Option<PathBuf>,

    /// Agent card file (JSON) to serve [default: a card built from --name etc.]
    #[arg(long, value_name = "FILE", help_heading = "Card")]
    pub(crate) card: Option<PathBuf>,
    /// URL of an agent card to serve instead of a file, fetched once at start; a URL whose path does not end in .json means the card at its origin's /.well-known/agent-card.json [default: none]
    #[arg(long, value_name = "URL", help_heading = "Card")]
    pub(crate) card_url: Option<String>,
    /// Agent card to serve instead of a file, as JSON text [default: none]
    #[arg(long, value_name = "JSON", help_heading = "Card")]
    pub(crate) card_json: Option<String>,
    /// How long clients and proxies may cache the served card: its Cache-Control max-age, in whole seconds; 0 allows no caching [default: 1h]
    #[arg(long, value_name = "MS", help_heading = "Card")]
    pub(crate) card_max_age: Option<Millis>,
    /// Agent card file (JSON) served by GetExtendedAgentCard to authenticated callers (to every caller with --no-auth); the public card then declares it. Interfaces and security schemes it leaves out are the public card's [default: none; the conformance agent serves one of its own]
    #[arg(long, value_name = "FILE", help_heading = "Card")]
    pub(crate) extended_card: Option<PathBuf>,
    /// Private key (PEM: EC P-256 or P-384, Ed25519 in PKCS#8, or RSA) that signs the served card; its public key joins /.well-known/jwks.json [default: the card is not signed]
    #[arg(long, value_name = "FILE", help_heading = "Card")]
    pub(crate) card_signing_key: Option<PathBuf>,
    /// Key id (`kid`) of the card signature [default: the key's RFC 7638 thumbprint]
    #[arg(long, value_name = "ID", help_heading = "Card")]
    pub(crate) card_signing_key_id: Option<String>,
    /// The agent's name; overrides the card file's
    #[arg(long, value_name = "TEXT", help_heading = "Card")]
    pub(crate) name: Option<String>,
    /// The agent's description; overrides the card file's
    #[arg(long, value_name = "TEXT", help_heading = "Card")]
    pub(crate) description: Option<String>,
    /// The agent's version; overrides the card file's
    #[arg(long, value_name = "TEXT", help_heading = "Card")]
    pub(crate) version: Option<String>,

    /// The built-in agent [default: echo]
    #[arg(long, value_name = "AGENT", help_heading = "Agent")]
    pub(crate) agent: Option<AgentKind>,
    /// For `--agent exec`, what the command reads on stdin: payload (the message's text), message (the whole Message as JSON; alias pojo) or raw (the SendMessage request as JSON: message, configuration, metadata) [default: payload]
    #[arg(long, value_name = "FORMAT", help_heading = "Agent")]
    pub(crate) data_format: Option<String>,
    /// For `--agent exec`: the command and its arguments, after `--`
    #[arg(last = true, value_name = "COMMAND", help_heading = "Agent")]
    pub(crate) command: Vec<String>,

    /// For `--agent llm`: the model's name at the endpoint, e.g. gpt-4o-mini or llama3.1
    #[arg(long, value_name = "NAME", help_heading = "LLM agent")]
    pub(crate) model: Option<String>,
    /// For `--agent llm`: an OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp server) [default: https://api.openai.com/v1]
    #[arg(long, value_name = "URL", help_heading = "LLM agent")]
    pub(crate) model_url: Option<String>,
    /// For `--agent llm`: the endpoint's API key; prefer the variable A2A_MODEL_API_KEY, which stays out of the process list [default: none]
    #[arg(
        long,
        value_name = "KEY",
        help_heading = "LLM agent",
        hide = true,
        hide_env_values = true
    )]
    #[serde(serialize_with = "super::print::hidden")]
    pub(crate) model_api_key: Option<String>,
    /// For `--agent llm`: a file holding the system prompt [default: none]
    #[arg(long, value_name = "FILE", help_heading = "LLM agent")]
    pub(crate) system: Option<PathBuf>,
    /// For `--agent llm`: an MCP server to start, as a command line ('CMD ARGS'); repeatable
    #[arg(long, value_name = "COMMAND", help_heading = "LLM agent")]
    pub(crate) mcp: Option<Vec<String>>,
    /// For `--agent llm`: an MCP server reached over streamable HTTP; repeatable
    #[arg(long, value_name = "URL", help_heading = "LLM agent")]
    pub(crate) mcp_url: Option<Vec<String>>,
    /// For `--agent llm`: tools whose calls need a person's approval, by glob (`write_*`); repeatable
    #[arg(long, value_name = "PATTERN", help_heading = "LLM agent")]
    pub(crate) approve: Option<Vec<String>>,
    /// For `--agent llm`: tools never called, by glob; the model is told; repeatable
    #[arg(long, value_name = "PATTERN", help_heading = "LLM agent")]
    pub(crate) deny: Option<Vec<String>>,
    /// For `--agent llm`: model calls one task may make [default: 16]
    #[arg(long, value_name = "N", help_heading = "LLM agent")]
    pub(crate) max_steps: Option<u32>,
    /// For `--agent llm`: tokens one task may use; 0 = no limit [default: 0]
    #[arg(long, value_name = "N", help_heading = "LLM agent")]
    pub(crate) token_budget: Option<u64>,
    /// For `--agent llm`: time one task may spend working, ms or with a unit; 0 = no limit [default: 0]
    #[arg(long, value_name = "MS", help_heading = "LLM agent")]
    pub(crate) run_time_limit: Option<Millis>,
    /// For `--agent llm`: how long one tool call may take [default: 60000]
    #[arg(long, value_name = "MS", help_heading = "LLM agent")]
    pub(crate) tool_timeout: Option<Millis>,
    /// For `--agent llm`: the most bytes of one tool's output the model sees [default: 16384]
    #[arg(long, value_name = "BYTES", help_heading = "LLM agent")]
    pub(crate) max_tool_output: Option<usize>,
    /// For `--agent llm`: the key signing approval requests; instances sharing a store must share it; prefer A2A_APPROVAL_KEY [default: random per process]
    #[arg(
        long,
        value_name = "KEY",
        help_heading = "LLM agent",
        hide = true,
        hide_env_values = true
    )]
    #[serde(serialize_with = "super::print::hidden")]
    pub(crate) approval_key: Option<String>,

    /// Where tasks are kept: `sqlite://PATH`, `postgres://URL` or `memory` [default: sqlite://a2a.db]
    #[arg(long, value_name = "STORE", help_heading = "Tasks")]
    pub(crate) store: Option<String>,
    /// SQL stores: the most database connections the pool opens [default: 10]
    #[arg(long, value_name = "N", help_heading = "Tasks")]
    pub(crate) store_max_connections: Option<u32>,
    /// SQL stores: how long to wait for the database or a free connection [default: 10000]
    #[arg(long, value_name = "MS", help_heading = "Tasks")]
    pub(crate) store_connect_timeout: Option<Millis>,
    /// SQL stores: how long a running turn's lease lives unrenewed; a task whose instance died is failed after it [default: 30000]
    #[arg(long, value_name = "MS", help_heading = "Tasks")]
    pub(crate) lease_ttl: Option<Millis>,
    /// SQL stores: this instance's id among instances sharing the database [default: random]
    #[arg(long, value_name = "ID", help_heading = "Tasks")]
    pub(crate) instance_id: Option<String>,
    /// How long a finished task is kept, ms or with a unit; 0 keeps it [default: 3600000]
    #[arg(long, value_name = "MS", help_heading = "Tasks")]
    pub(crate) completed_task_ttl: Option<Millis>,
    /// How many tasks are kept before finished ones are evicted; 0 = no cap [default: 10000]
    #[arg(long, value_name = "N", help_heading = "Tasks")]
    pub(crate) max_stored_tasks: Option<usize>,
    /// In-memory store: how many saves pass between two passes that free the memory of expired finished tasks; 0 = after every save [default: 100]
    #[arg(long, value_name = "N", help_heading = "Tasks")]
    pub(crate) store_cleanup_interval: Option<u64>,
    /// In-memory store: a task left SUBMITTED or WORKING, with no turn running it, whose status has not changed for this long is failed and its subscribers told, ms or with a unit; 0 = off [default: 0]
    #[arg(long, value_name = "MS", help_heading = "Tasks")]
    pub(crate) stuck_task_ttl: Option<Millis>,
    /// SendMessage answers at the first update unless the request says otherwise [default: false]
    #[arg(long, value_name = "BOOL", help_heading = "Tasks", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub(crate) return_immediately: Option<bool>,
    /// Work still running after this long fails; also the exec agent's timeout [default: 300000]
    #[arg(long, value_name = "MS", help_heading = "Tasks")]
    pub(crate) async_timeout: Option<Millis>,
    /// How long a blocking SendMessage waits for its turn; then it answers with the task as it stands and the turn goes on; 0 waits as long as the turn runs, the protocol's reading of a blocking call [default: 30000]
    #[arg(long, value_name = "MS", help_heading = "Tasks")]
    pub(crate) blocking_timeout: Option<Millis>,
    /// Past --blocking-timeout, how long the answer waits for the turn's first event; an agent silent that long too is answered Unavailable while its turn goes on [default: 5000]
    #[arg(long, value_name = "MS", help_heading = "Tasks")]
    pub(crate) event_consumption_timeout: Option<Millis>,
    /// Past --blocking-timeout, how long reading the task back from the store may take, so the answer is the task as stored; a slower store is skipped [default: 1000]
    #[arg(long, value_name = "MS", help_heading = "Tasks")]
    pub(crate) store_reconciliation_timeout: Option<Millis>,
    /// Give the executor the tasks a message names in referenceTaskIds (those the caller may read) [default: true]
    #[arg(long, value_name = "BOOL", help_heading = "Tasks", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub(crate) populate_referenced_tasks: Option<bool>,

    /// HTTP statuses of errors on HTTP+JSON: spec (the A2A 1.0.1 table), camel (Apache Camel's: 405 when a capability is off, 409 not cancelable) or rfc7807-java (a2a-java's: 422 invalid params, 409, 415, 501, 502) [default: spec]
    #[arg(long, value_name = "PROFILE", help_heading = "Protocol choices")]
    pub(crate) rest_status_profile: Option<String>,
    /// Refuse requested extensions the card does not declare, with ExtensionSupportRequired, instead of ignoring them [default: false]
    #[arg(long, value_name = "BOOL", help_heading = "Protocol choices", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub(crate) strict_extensions: Option<bool>,
    /// What a caller naming another caller's task is told: not-found (as for a task that does not exist) or forbidden (403 / AUTHORIZATION, which admits it exists) [default: not-found]
    #[arg(long, value_name = "ANSWER", help_heading = "Protocol choices")]
    pub(crate) cross_owner: Option<CrossOwnerAnswer>,
    /// Canceling a task that is already CANCELED returns it unchanged instead of TaskNotCancelable [default: false]
    #[arg(long, value_name = "BOOL", help_heading = "Protocol choices", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub(crate) idempotent_cancel: Option<bool>,
    /// Give a message without messageId a generated one instead of refusing it with InvalidParams [default: false]
    #[arg(long, value_name = "BOOL", help_heading = "Protocol choices", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub(crate) lenient_message_id: Option<bool>,
    /// The protocol version of a request without A2A-Version, e.g. 1.0. By the spec such a request is 0.3, which this server refuses with VersionNotSupported [default: none]
    #[arg(long, value_name = "VERSION", help_heading = "Protocol choices")]
    pub(crate) assume_version: Option<String>,
    /// The A2A protocol versions served, comma-separated: `1.0,0.3` serves A2A v0.3 beside 1.0 on the same URLs (v0.3 JSON-RPC method names, v0.3 REST paths under /v1/, v0.3 interfaces and members on the card); `1.0` serves 1.0 only, refusing v0.3 methods with VersionNotSupported [default: 1.0,0.3]
    #[arg(long, value_name = "VERSIONS", help_heading = "Protocol choices")]
    pub(crate) protocol_versions: Option<String>,
    /// SubscribeToTask ends where the task's turn does (at INPUT_REQUIRED; at once for a task waiting for input) instead of staying open until the task is terminal [default: false]
    #[arg(long, value_name = "BOOL", help_heading = "Protocol choices", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = BoolishValueParser::new())]
    pub(crate) subscribe_ends_on_interrupt: Option<bool>,
    /// Key (16 bytes or more) that signs ListTasks page tokens (secret; prefer A2A_PAGE_TOKEN_KEY). Servers over one SQL store share a key kept in the database, so tokens page on any instance and after a restart; set it for memory stores behind one address [default: the store's, else new per start]
    #[arg(
        long,
        value_name = "KEY",
        help_heading = "Protocol choices",
        hide_env_values = true
    )]
    #[serde(serialize_with = "super::print::hidden")]
    pub(crate) page_token_key: Option<Secret>,

    /// At most this many turns at once; 0 = unlimited [default: 0]
    #[arg(long, value_name = "N", help_heading = "Limits")]
    pub(crate) max_concurrent_tasks: Option<usize>,
    /// How many returnImmediately requests may wait for a free slot [default: 0]
    #[arg(long, value_name = "N", help_heading = "Limits")]
    pub(crate) task_queue_size: Option<usize>,
    /// Largest request body, in bytes [default: 6291456]
    #[arg(long, value_name = "BYTES", help_heading = "Limits")]
    pub(crate) max_payload_size: Option<usize>,
    /// Keep-alive comment interval on idle SSE streams [default: 15000]
    #[arg(long, value_name = "MS", help_heading = "Limits")]
    pub(crate) sse_heartbeat_interval: Option<Millis>,
    /// Events a stream may fall behind before it is closed [default: 1000]
    #[arg(long, value_name = "N", help_heading = "Limits")]
    pub(crate) sse_queue_capacity: Option<usize>,

    /// Time a connection gets to send a complete request head: from the accept (after TLS, the handshake) for its first request, from the head's first byte on a kept-alive connection; else it is closed [default: 10000]
    #[arg(long, value_name = "MS", help_heading = "Connections")]
    pub(crate) header_read_timeout: Option<Millis>,
    /// Longest wait for the next piece of a request body being read; a body slower than that (e.g. one byte per this time) is cut with 408 and its connection closed [default: 30000]
    #[arg(long, value_name = "MS", help_heading = "Connections")]
    pub(crate) body_read_timeout: Option<Millis>,
    /// Least rate of a request body, in bytes per second, once --body-min-rate-grace is over (its bytes so far divided by the time since it was first read); a slower body is cut with 408 and its connection closed; 0 for no minimum [default: 1024]
    #[arg(long, value_name = "BYTES/S", help_heading = "Connections")]
    pub(crate) body_min_rate: Option<u64>,
    /// How long a request body may arrive more slowly than --body-min-rate, from when it is first read [default: 10000]
    #[arg(long, value_name = "MS", help_heading = "Connections")]
    pub(crate) body_min_rate_grace: Option<Millis>,
    /// A connection with no request in flight is closed this long after its last response [default: 60000]
    #[arg(long, value_name = "MS", help_heading = "Connections")]
    pub(crate) keep_alive_timeout: Option<Millis>,
    /// Longest wait for a client to take response bytes; a client that stops reading (e.g. a stalled stream's reader) is disconnected [default: 60000]
    #[arg(long, value_name = "MS", help_heading = "Connections")]
    pub(crate) write_timeout: Option<Millis>,
    /// Connections open at once, per listener; more are not refused but wait in the listen backlog until one closes [default: 10000]
    #[arg(long, value_name = "N", help_heading = "Connections")]
    pub(crate) max_connections: Option<usize>,
    /// TLS handshakes in progress at once, per listener; a connection waits up to --tls-handshake-timeout for a turn [default: 256]
    #[arg(long, value_name = "N", help_heading = "Connections")]
    pub(crate) max_tls_handshakes: Option<usize>,
    /// Time a TLS handshake may take (and, before it, wait for a turn) before the connection is closed [default: 10000]
    #[arg(long, value_name = "MS", help_heading = "Connections")]
    pub(crate) tls_handshake_timeout: Option<Millis>,

    /// Time running work gets to finish on SIGINT/SIGTERM [default: 10000]
    #[arg(long, value_name = "MS", help_heading = "Process")]
    pub(crate) shutdown_grace: Option<Millis>,
    /// Log format on stderr [default: text]
    #[arg(long, value_name = "FORMAT", help_heading = "Process")]
    pub(crate) log_format: Option<LogFormat>,
    /// Log filter, e.g. `info` or `warn,a2a_server=debug`; RUST_LOG, when set and not empty, overrides it [default: info]
    #[arg(long, value_name = "FILTER", help_heading = "Process")]
    pub(crate) log_level: Option<String>,
}

impl ServeOptions {
    /// These options where given, `lower`'s elsewhere: the one merge rule of every layer.
    pub(crate) fn or(self, lower: Self) -> Self {
        // A struct literal, not `..lower`, so a new field cannot be forgotten here.
        Self {
            bind: self.bind.or(lower.bind),
            public_url: self.public_url.or(lower.public_url),
            base_path: self.base_path.or(lower.base_path),
            card_path: self.card_path.or(lower.card_path),
            protocol_binding: self.protocol_binding.or(lower.protocol_binding),
            grpc_bind: self.grpc_bind.or(lower.grpc_bind),
            grpc_public_url: self.grpc_public_url.or(lower.grpc_public_url),
            cors: self.cors.or(lower.cors),
            cors_origins: self.cors_origins.or(lower.cors_origins),
            push_notifications: self.push_notifications.or(lower.push_notifications),
            allow_local_webhooks: self.allow_local_webhooks.or(lower.allow_local_webhooks),
            push_retry_attempts: self.push_retry_attempts.or(lower.push_retry_attempts),
            push_retry_backoff: self.push_retry_backoff.or(lower.push_retry_backoff),
            push_timeout: self.push_timeout.or(lower.push_timeout),
            push_claim_ttl: self.push_claim_ttl.or(lower.push_claim_ttl),
            max_push_configs_per_task: self
                .max_push_configs_per_task
                .or(lower.max_push_configs_per_task),
            push_signing_key: self.push_signing_key.or(lower.push_signing_key),
            no_auth: self.no_auth.or(lower.no_auth),
            api_key: self.api_key.or(lower.api_key),
            api_key_header: self.api_key_header.or(lower.api_key_header),
            bearer_token: self.bearer_token.or(lower.bearer_token),
            jwks_url: self.jwks_url.or(lower.jwks_url),
            oidc_issuer: self.oidc_issuer.or(lower.oidc_issuer),
            issuer: self.issuer.or(lower.issuer),
            audience: self.audience.or(lower.audience),
            required_scopes: self.required_scopes.or(lower.required_scopes),
            introspection_url: self.introspection_url.or(lower.introspection_url),
            introspection_client_id: self
                .introspection_client_id
                .or(lower.introspection_client_id),
            introspection_client_secret: self
                .introspection_client_secret
                .or(lower.introspection_client_secret),
            tls_cert: self.tls_cert.or(lower.tls_cert),
            tls_key: self.tls_key.or(lower.tls_key),
            client_ca: self.client_ca.or(lower.client_ca),
            register: self.register.or(lower.register),
            agent_id: self.agent_id.or(lower.agent_id),
            heartbeat_interval: self.heartbeat_interval.or(lower.heartbeat_interval),
            register_key: self.register_key.or(lower.register_key),
            register_cacert: self.register_cacert.or(lower.register_cacert),
            card: self.card.or(lower.card),
            card_url: self.card_url.or(lower.card_url),
            card_json: self.card_json.or(lower.card_json),
            card_max_age: self.card_max_age.or(lower.card_max_age),
            extended_card: self.extended_card.or(lower.extended_card),
            card_signing_key: self.card_signing_key.or(lower.card_signing_key),
            card_signing_key_id: self.card_signing_key_id.or(lower.card_signing_key_id),
            name: self.name.or(lower.name),
            description: self.description.or(lower.description),
            version: self.version.or(lower.version),
            agent: self.agent.or(lower.agent),
            data_format: self.data_format.or(lower.data_format),
            command: if self.command.is_empty() {
                lower.command
            } else {
                self.command
            },
            model: self.model.or(lower.model),
            model_url: self.model_url.or(lower.model_url),
            model_api_key: self.model_api_key.or(lower.model_api_key),
            system: self.system.or(lower.system),
            mcp: self.mcp.or(lower.mcp),
            mcp_url: self.mcp_url.or(lower.mcp_url),
            approve: self.approve.or(lower.approve),
            deny: self.deny.or(lower.deny),
            max_steps: self.max_steps.or(lower.max_steps),
            token_budget: self.token_budget.or(lower.token_budget),
            run_time_limit: self.run_time_limit.or(lower.run_time_limit),
            tool_timeout: self.tool_timeout.or(lower.tool_timeout),
            max_tool_output: self.max_tool_output.or(lower.max_tool_output),
            approval_key: self.approval_key.or(lower.approval_key),
            store: self.store.or(lower.store),
            store_max_connections: self.store_max_connections.or(lower.store_max_connections),
            store_connect_timeout: self.store_connect_timeout.or(lower.store_connect_timeout),
            lease_ttl: self.lease_ttl.or(lower.lease_ttl),
            instance_id: self.instance_id.or(lower.instance_id),
            completed_task_ttl: self.completed_task_ttl.or(lower.completed_task_ttl),
            max_stored_tasks: self.max_stored_tasks.or(lower.max_stored_tasks),
            store_cleanup_interval: self.store_cleanup_interval.or(lower.store_cleanup_interval),
            stuck_task_ttl: self.stuck_task_ttl.or(lower.stuck_task_ttl),
            return_immediately: self.return_immediately.or(lower.return_immediately),
            async_timeout: self.async_timeout.or(lower.async_timeout),
            blocking_timeout: self.blocking_timeout.or(lower.blocking_timeout),
            event_consumption_timeout: self
                .event_consumption_timeout
                .or(lower.event_consumption_timeout),
            store_reconciliation_timeout: self
                .store_reconciliation_timeout
                .or(lower.store_reconciliation_timeout),
            populate_referenced_tasks: self
                .populate_referenced_tasks
                .or(lower.populate_referenced_tasks),
            rest_status_profile: self.rest_status_profile.or(lower.rest_status_profile),
            strict_extensions: self.strict_extensions.or(lower.strict_extensions),
            cross_owner: self.cross_owner.or(lower.cross_owner),
            idempotent_cancel: self.idempotent_cancel.or(lower.idempotent_cancel),
            lenient_message_id: self.lenient_message_id.or(lower.lenient_message_id),
            assume_version: self.assume_version.or(lower.assume_version),
            protocol_versions: self.protocol_versions.or(lower.protocol_versions),
            subscribe_ends_on_interrupt: self
                .subscribe_ends_on_interrupt
                .or(lower.subscribe_ends_on_interrupt),
            page_token_key: self.page_token_key.or(lower.page_token_key),
            max_concurrent_tasks: self.max_concurrent_tasks.or(lower.max_concurrent_tasks),
            task_queue_size: self.task_queue_size.or(lower.task_queue_size),
            max_payload_size: self.max_payload_size.or(lower.max_payload_size),
            sse_heartbeat_interval: self.sse_heartbeat_interval.or(lower.sse_heartbeat_interval),
            sse_queue_capacity: self.sse_queue_capacity.or(lower.sse_queue_capacity),
            header_read_timeout: self.header_read_timeout.or(lower.header_read_timeout),
            body_read_timeout: self.body_read_timeout.or(lower.body_read_timeout),
            body_min_rate: self.body_min_rate.or(lower.body_min_rate),
            body_min_rate_grace: self.body_min_rate_grace.or(lower.body_min_rate_grace),
            keep_alive_timeout: self.keep_alive_timeout.or(lower.keep_alive_timeout),
            write_timeout: self.write_timeout.or(lower.write_timeout),
            max_connections: self.max_connections.or(lower.max_connections),
            max_tls_handshakes: self.max_tls_handshakes.or(lower.max_tls_handshakes),
            tls_handshake_timeout: self.tls_handshake_timeout.or(lower.tls_handshake_timeout),
            shutdown_grace: self.shutdown_grace.or(lower.shutdown_grace),
            log_format: self.log_format.or(lower.log_format),
            log_level: self.log_level.or(lower.log_level),
        }
    }
}
