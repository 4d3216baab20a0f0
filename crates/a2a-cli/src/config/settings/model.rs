//! What the settings of `a2a serve` hold, once every option is checked.

use std::path::PathBuf;
use std::time::Duration;

use a2a_server::ServerConfig;
use a2a_server::auth::Secret;
use a2a_types::ProtocolBinding;

use super::checks::invalid;
use crate::config::ConfigError;
use crate::config::StoreSetting;
use crate::config::connections::ConnectionSetting;
use crate::config::options::LogFormat;
use crate::config::push::PushSetting;
use crate::config::register::RegisterSetting;
use crate::config::security::{AuthSetting, TlsSetting};

/// Where `a2a serve` listens unless told otherwise.
pub(crate) const DEFAULT_BIND: &str = "127.0.0.1:8080";
pub(super) const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

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
    pub(super) fn parse(name: &str) -> Result<Self, ConfigError> {
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
