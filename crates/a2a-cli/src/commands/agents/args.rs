//! The arguments of `a2a agents`, one struct per subcommand.

use std::path::PathBuf;

use a2a_server::auth::Secret;

use crate::config::Millis;

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
    pub(super) command: AgentsCommand,
}

#[derive(Debug, clap::Subcommand)]
pub(super) enum AgentsCommand {
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
pub(super) struct Target {
    /// The gateway's root URL
    #[arg(value_name = "GATEWAY")]
    pub(super) gateway: String,
    /// The gateway's registry key (its --registry-key), sent as a bearer token on writes (secret; prefer the variable)
    #[arg(
        long,
        value_name = "KEY",
        env = "A2A_REGISTER_KEY",
        hide_env_values = true
    )]
    pub(super) key: Option<Secret>,
    /// CA certificates (PEM) to trust for an https:// gateway, beside the system's
    #[arg(long, value_name = "FILE")]
    pub(super) cacert: Option<PathBuf>,
    /// Give up on the gateway after this long (e.g. 10s; a bare number is milliseconds)
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    pub(super) timeout: Millis,
    /// Print the gateway's answer as one line of JSON instead of a summary
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(Debug, clap::Args)]
pub(super) struct ListArgs {
    #[command(flatten)]
    pub(super) target: Target,
    /// Only agents with a skill carrying one of these tags (repeat or comma-separate)
    #[arg(long = "skill-tag", value_name = "TAG", value_delimiter = ',')]
    pub(super) skill_tags: Vec<String>,
    /// At most this many agents (0: no limit)
    #[arg(long, value_name = "N")]
    pub(super) limit: Option<usize>,
}

#[derive(Debug, clap::Args)]
pub(super) struct IdArgs {
    #[command(flatten)]
    pub(super) target: Target,
    /// The agent's id in the registry
    #[arg(value_name = "AGENT_ID")]
    pub(super) agent_id: String,
}

#[derive(Debug, clap::Args)]
pub(super) struct RegisterArgs {
    #[command(flatten)]
    pub(super) target: Target,
    /// The card to register: a JSON file (an A2A agent card or a KubeMQ record), `-` for stdin
    #[arg(long, value_name = "FILE")]
    pub(super) card: Option<PathBuf>,
    /// The id to register under (lowercase letters, digits and hyphens) [default: the card's agent_id]
    #[arg(long, value_name = "ID")]
    pub(super) agent_id: Option<String>,
    /// The agent's name, over the card's
    #[arg(long, value_name = "NAME")]
    pub(super) name: Option<String>,
    /// The agent's JSON-RPC URL, over the card's [default: the card's url, else its JSON-RPC interface]
    #[arg(long, value_name = "URL")]
    pub(super) url: Option<String>,
    /// The agent's description, over the card's
    #[arg(long, value_name = "TEXT")]
    pub(super) description: Option<String>,
}
