//! `a2a mcp URL… | --gateway URL`: A2A agents as tools for MCP hosts, over stdio (what
//! desktop hosts start; stdout carries only MCP frames, logs go to stderr) or streamable HTTP
//! at `/mcp` (`--listen ADDR`); `--print-config HOST` prints the host's configuration block.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use a2a_client::{A2aClient, CardFetchOptions, Timeouts};
use a2a_mcp::host_config::{self, Host, Launch};
use a2a_mcp::{
    AgentCredentials, Bridge, Connector, CredentialsFile, GatewayWatcher, OAuthCredentials,
    StreamableHttpServerConfig, Target,
};
use anyhow::Context as _;
use tokio_util::sync::CancellationToken;

use crate::client_args::{Binding, Secret, parse_duration, parse_header};
use crate::config::LogFormat;
use crate::credential_args::{Chosen, CredentialArgs};
use crate::error::UsageError;
use crate::{logging, output};

/// Where streamable HTTP is served.
const MCP_PATH: &str = "/mcp";

/// `a2a mcp`.
#[derive(Debug, clap::Args)]
pub(crate) struct McpArgs {
    /// The agents to offer as tools: base URLs (cards at /.well-known/agent-card.json) or card
    /// URLs (ending in .json)
    #[arg(value_name = "URL", required_unless_present = "gateway")]
    urls: Vec<String>,

    /// Offer every agent of this gateway's registry, kept current: agents that register or
    /// leave change the tools, and hosts are told
    #[arg(long, value_name = "URL")]
    gateway: Option<String>,

    /// How often the gateway's registry is read (e.g. 10s; a bare number is milliseconds)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "10s", requires = "gateway")]
    gateway_poll: Duration,

    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio
    #[arg(long, value_name = "ADDR")]
    listen: Option<SocketAddr>,

    /// One tool per skill of each agent instead of one per agent
    #[arg(long)]
    tool_per_skill: bool,

    /// Answer a call still running after this long with the task id and state (get_task
    /// picks it up later) (e.g. 50s, 5m; a bare number is milliseconds)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "50s")]
    max_wait: Duration,

    /// Print the configuration block of this MCP host for the same command, and exit
    #[arg(long, value_enum, value_name = "HOST")]
    print_config: Option<HostArg>,

    /// The server's name in --print-config's block
    #[arg(long, value_name = "NAME", default_value = "a2a")]
    name: String,

    /// Log level when RUST_LOG is not set (logs go to stderr)
    #[arg(long, value_name = "LEVEL", default_value = "info")]
    log_level: String,

    /// Per-agent credentials: a TOML file with one [agents."URL"] or [agents.GATEWAY_ID] table
    /// each (api_key, api_key_header, bearer, or an oauth table); agents it does not name get
    /// the flags' credentials
    #[arg(long, value_name = "FILE", help_heading = "Connection")]
    credentials: Option<PathBuf>,

    /// The binding to use, by its spec name (any case) or alias [default: the card's first JSONRPC or HTTP+JSON interface, else its GRPC one]
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        value_name = "BINDING",
        help_heading = "Connection"
    )]
    binding: Option<Binding>,

    #[command(flatten, next_help_heading = "Connection")]
    auth: CredentialArgs,

    /// Send this header with every request, as NAME:VALUE (repeatable)
    #[arg(
        long = "header",
        short = 'H',
        value_name = "NAME:VALUE",
        help_heading = "Connection"
    )]
    headers: Vec<Secret>,

    /// Give up on a request, or on a stream that stays silent, after this long (e.g. 30s, 5m; a
    /// bare number is milliseconds) [default: 60s per request, 300s of stream silence]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Connection")]
    timeout: Option<Duration>,
}

/// The hosts `--print-config` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum HostArg {
    /// Claude Desktop.
    Claude,
    /// VS Code.
    Vscode,
    /// Cursor.
    Cursor,
}

impl HostArg {
    fn host(self) -> Host {
        match self {
            Self::Claude => Host::Claude,
            Self::Vscode => Host::Vscode,
            Self::Cursor => Host::Cursor,
        }
    }
}

/// Serves until the host closes stdin (stdio), or until SIGINT or SIGTERM.
pub(crate) async fn run(args: McpArgs) -> anyhow::Result<()> {
    if let Some(host) = args.print_config {
        return print_config(&args, host.host());
    }
    let _log = logging::init(LogFormat::Text, &args.log_level)?;
    let connector = connector(&args)?;
    let targets: Vec<Target> = args.urls.iter().map(Target::url).collect();
    let watcher = match &args.gateway {
        Some(gateway) => Some(
            GatewayWatcher::new(gateway.clone())?
                .interval(args.gateway_poll)
                .with_targets(targets.clone()),
        ),
        None => None,
    };
    let first = match &watcher {
        Some(watcher) => watcher.all_targets().await.unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read the gateway's registry yet; trying again");
            targets.clone()
        }),
        None => targets,
    };
    let bridge = Bridge::builder(connector)
        .tool_per_skill(args.tool_per_skill)
        .patience(args.max_wait)
        .build(first)
        .await;
    tracing::info!(tools = bridge.tools().len(), "serving MCP");
    let stop = CancellationToken::new();
    if let Some(watcher) = watcher {
        tokio::spawn(watcher.watch(bridge.clone(), stop.clone()));
    }
    let termination = crate::serving::termination()?;
    let outcome = match args.listen {
        None => {
            tokio::select! {
                served = a2a_mcp::serve_stdio(bridge) => served.map_err(anyhow::Error::from),
                () = termination => Ok(()),
            }
        }
        Some(address) => serve_http(bridge, address, termination, stop.clone()).await,
    };
    stop.cancel();
    outcome
}

async fn serve_http(
    bridge: Bridge,
    address: SocketAddr,
    termination: impl Future<Output = ()> + Send + 'static,
    stop: CancellationToken,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot listen on {address}"))?;
    let bound = listener.local_addr()?;
    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    if !bound.ip().is_unspecified() {
        hosts.push(bound.ip().to_string());
    }
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_cancellation_token(stop.child_token());
    let router = axum::Router::new().nest_service(MCP_PATH, a2a_mcp::http_service(bridge, config));
    output::listening("http", bound);
    tracing::info!("MCP over streamable HTTP at http://{bound}{MCP_PATH}");
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            termination.await;
            stop.cancel();
        })
        .await
        .context("the MCP server stopped")
}

/// The clients' settings: binding, headers, timeout, and each agent's credentials.
fn connector(args: &McpArgs) -> anyhow::Result<Connector> {
    let headers = args
        .headers
        .iter()
        .map(|header| parse_header(header.expose()))
        .collect::<Result<Vec<_>, UsageError>>()?;
    let mut card_fetch = CardFetchOptions::new();
    for (name, value) in &headers {
        let text = value.to_str().map_err(|_| {
            UsageError::new(format!(
                "--header {name}: the value is not valid header text"
            ))
        })?;
        card_fetch = card_fetch
            .header(name.as_str(), text)
            .map_err(|_| UsageError::new(format!("--header {name}: not a valid header")))?;
    }
    if let Some(timeout) = args.timeout {
        card_fetch = card_fetch.timeout(timeout);
    }
    let binding = args.binding;
    let timeout = args.timeout;
    let base = move || {
        let mut builder = A2aClient::builder().card_fetch(card_fetch.clone());
        if let Some(binding) = binding {
            builder = builder.prefer_binding(binding.protocol());
        }
        for (name, value) in &headers {
            builder = builder.header(name.clone(), value.clone());
        }
        if let Some(timeout) = timeout {
            builder = builder.timeouts(Timeouts {
                connect: timeout.min(Timeouts::default().connect),
                request: timeout,
                stream_idle: timeout,
            });
        }
        builder
    };
    let mut connector = Connector::new(base).credentials(default_credentials(args));
    if let Some(path) = &args.credentials {
        let file =
            CredentialsFile::load(path).map_err(|error| UsageError::new(error.to_string()))?;
        connector = connector.credentials_file(file);
    }
    Ok(connector)
}

fn default_credentials(args: &McpArgs) -> AgentCredentials {
    let secret = |value: &Secret| a2a_mcp::Secret::new(value.expose());
    let mut credentials = AgentCredentials::default();
    match args.auth.chosen() {
        Some(Chosen::ApiKey { key, header }) => {
            credentials.api_key = Some(secret(key));
            credentials.api_key_header = header.map(str::to_owned);
        }
        Some(Chosen::Bearer(token)) => credentials.bearer = Some(secret(token)),
        Some(Chosen::OAuth2 {
            client_id,
            client_secret,
            token_url,
            scopes,
        }) => {
            credentials.oauth = Some(OAuthCredentials {
                client_id: client_id.to_owned(),
                client_secret: secret(client_secret),
                token_url: token_url.map(str::to_owned),
                scopes: scopes.to_vec(),
            });
        }
        None => {}
    }
    credentials
}

/// The flags whose values are secrets: left out of the printed block, and named as variables
/// the host sets instead (each flag reads its variable).
const SECRET_FLAGS: [(&str, &str, &str); 3] = [
    ("--api-key", "A2A_API_KEY", "<your API key>"),
    ("--bearer", "A2A_BEARER_TOKEN", "<your bearer token>"),
    (
        "--oauth-client-secret",
        "A2A_OAUTH_CLIENT_SECRET",
        "<your OAuth client secret>",
    ),
];

/// Prints the host's block for this command line, less `--print-config`, `--name` and
/// every secret.
fn print_config(args: &McpArgs, host: Host) -> anyhow::Result<()> {
    let launch = match args.listen {
        Some(address) => Launch::Http {
            url: format!("http://{address}{MCP_PATH}"),
        },
        None => {
            let (command_args, env, dropped_headers) =
                launch_arguments(std::env::args().skip(1).collect());
            if dropped_headers {
                output::error_line(
                    "note: --header values are left out (they may be secrets); put credentials \
                     in a --credentials file instead",
                );
            }
            let command = std::env::current_exe()
                .ok()
                .and_then(|path| path.to_str().map(str::to_owned))
                .unwrap_or_else(|| "a2a".to_owned());
            Launch::Stdio {
                command,
                args: command_args,
                env,
            }
        }
    };
    let block = host_config::snippet(host, &args.name, &launch);
    output::text(&format!("{}\n", serde_json::to_string_pretty(&block)?))?;
    output::error_line(&format!("paste this into {}", host.config_file()));
    Ok(())
}

/// The command's arguments (after the program name) for the host to start: `--print-config`
/// and `--name` dropped, secret flags replaced by variables, headers dropped (true when some
/// were).
fn launch_arguments(arguments: Vec<String>) -> (Vec<String>, BTreeMap<String, String>, bool) {
    let mut kept = Vec::new();
    let mut env = BTreeMap::new();
    let mut dropped_headers = false;
    let mut arguments = arguments.into_iter();
    while let Some(argument) = arguments.next() {
        let (flag, inline) = match argument.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (argument.clone(), None),
        };
        let takes_value = |inline: &Option<String>, arguments: &mut std::vec::IntoIter<String>| {
            if inline.is_none() {
                arguments.next();
            }
        };
        if flag == "--print-config" || flag == "--name" {
            takes_value(&inline, &mut arguments);
            continue;
        }
        if flag == "--header" || flag == "-H" {
            takes_value(&inline, &mut arguments);
            dropped_headers = true;
            continue;
        }
        if let Some((_, variable, placeholder)) =
            SECRET_FLAGS.iter().find(|(secret, _, _)| *secret == flag)
        {
            takes_value(&inline, &mut arguments);
            env.insert((*variable).to_owned(), (*placeholder).to_owned());
            continue;
        }
        kept.push(argument);
    }
    (kept, env, dropped_headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|text| (*text).to_owned()).collect()
    }

    #[test]
    fn the_printed_command_has_no_secrets() {
        let (args, env, dropped) = launch_arguments(strings(&[
            "mcp",
            "http://a:1",
            "--bearer",
            "s3cr3t",
            "--api-key=k3y",
            "-H",
            "X-Token: h3ad3r",
            "--print-config",
            "claude",
            "--tool-per-skill",
        ]));
        assert_eq!(args, strings(&["mcp", "http://a:1", "--tool-per-skill"]));
        assert_eq!(env["A2A_BEARER_TOKEN"], "<your bearer token>");
        assert_eq!(env["A2A_API_KEY"], "<your API key>");
        assert!(dropped);
        let text = format!("{args:?}{env:?}");
        for secret in ["s3cr3t", "k3y", "h3ad3r"] {
            assert!(!text.contains(secret), "{text}");
        }
    }
}
