//! The command tree: global shape of `a2a` and the dispatch to one subcommand.

use anyhow::Context as _;

use crate::commands;

/// The `a2a` command line.
#[derive(Debug, clap::Parser)]
#[command(
    name = "a2a",
    version = crate::version::text(),
    about = "Serve A2A agents, run a gateway, call agents",
    after_help = "Exit codes: 0 ok, 1 the agent refused or the task failed, 2 usage, 3 cannot reach the agent"
)]
pub struct Cli {
    /// Colour the output: auto (on a terminal, unless NO_COLOR is set), always or never
    #[arg(long, global = true, value_enum, value_name = "WHEN")]
    color: Option<crate::color::ColorChoice>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Serve an agent over A2A: JSON-RPC and HTTP+JSON, card at /.well-known/agent-card.json.
    Serve(Box<commands::serve::ServeArgs>),
    /// Run a gateway: an agent registry, and one address that forwards to every registered agent.
    Gateway(Box<commands::gateway::GatewayArgs>),
    /// List, inspect, register, heartbeat or deregister the agents of a gateway's registry.
    Agents(Box<commands::agents::AgentsArgs>),
    /// Fetch an agent's card and print a summary of it.
    Card(Box<commands::card::CardArgs>),
    /// Send a message to an agent and print the answer.
    Send(Box<commands::send::SendArgs>),
    /// Talk with an agent, one line at a time.
    Chat(Box<commands::chat::ChatArgs>),
    /// Print a task.
    Get(Box<commands::get::GetArgs>),
    /// List an agent's tasks.
    List(Box<commands::list::ListArgs>),
    /// Cancel a task.
    Cancel(Box<commands::cancel::CancelArgs>),
    /// Follow a task's events until it stops.
    Subscribe(Box<commands::subscribe::SubscribeArgs>),
    /// Manage a task's push-notification webhooks.
    Push(Box<commands::push::PushArgs>),
    /// Receive push notifications and print them, checking signatures and tokens (development).
    Webhook(Box<commands::webhook::WebhookArgs>),
    /// Check an agent against the A2A spec's rules on every interface its card declares.
    Test(Box<commands::test::TestArgs>),
    /// Open a web page for looking at an agent or gateway: its card, chat, tasks, calls and push deliveries.
    Inspect(Box<commands::inspect::InspectArgs>),
    /// Offer A2A agents as tools to MCP hosts (Claude Desktop, VS Code, Cursor…), over stdio or HTTP.
    Mcp(Box<commands::mcp::McpArgs>),
    /// Print a shell completion script: bash, zsh, fish, powershell or elvish.
    Completions(commands::completions::CompletionsArgs),
    /// Write the man pages of a2a and each of its subcommands into a directory.
    Man(commands::man::ManArgs),
}

impl Cli {
    /// Parses the process's command line with the process's environment: `a2a gateway`'s
    /// options also from `A2A_*` variables (and their older and KubeMQ names) and the
    /// `--config` file, which become flags before parsing.
    ///
    /// # Errors
    /// clap's, for a command line that cannot be used (help and version requests included).
    pub fn try_parse_with_env() -> Result<Self, clap::Error> {
        Self::try_parse_with(std::env::args_os().collect(), |name| std::env::var_os(name))
    }

    /// Parses `args` (program name first), reading variables through `lookup`. `a2a
    /// gateway`'s variables and configuration file become flags before parsing
    /// ([`crate::config::layered`]); `a2a serve` merges its sources when it runs. `--help`
    /// names each option's variable.
    pub(crate) fn try_parse_with(
        args: Vec<std::ffi::OsString>,
        lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<Self, clap::Error> {
        use clap::FromArgMatches as _;
        let no_color = lookup(crate::color::NO_COLOR);
        let early = crate::color::decide(crate::color::scan(&args), no_color.as_deref());
        let command = Self::command_with_variables().color(crate::color::for_clap(early));
        let is_gateway = args.get(1).is_some_and(|arg| arg == "gateway");
        let layered = match command.find_subcommand("gateway") {
            Some(gateway) if is_gateway => {
                crate::config::layered(args, gateway, lookup).map_err(|error| {
                    clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{error}\n"))
                })?
            }
            _ => crate::config::Layered::unchanged(args),
        };
        let matches = command
            .try_get_matches_from(&layered.args)
            .map_err(|error| layered.explain(error))?;
        let cli = Self::from_arg_matches(&matches).map_err(|error| layered.explain(error))?;
        crate::color::init(crate::color::decide(cli.color, no_color.as_deref()));
        Ok(cli)
    }

    /// The command tree with `[env: A2A_<NAME>]` added to the help of every option of
    /// `serve` and `gateway` that a variable sets.
    pub(crate) fn command_with_variables() -> clap::Command {
        let name_variables = |command: clap::Command| {
            command.mut_args(|arg| {
                let Some(long) = arg.get_long() else {
                    return arg;
                };
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                let is_setting = !matches!(
                    arg.get_action(),
                    clap::ArgAction::Help
                        | clap::ArgAction::HelpShort
                        | clap::ArgAction::HelpLong
                        | clap::ArgAction::Version
                );
                if !is_setting
                    || crate::config::NOT_SETTINGS.contains(&long)
                    || help.contains("[env: ")
                {
                    return arg;
                }
                let variable = crate::config::variable_of(long);
                arg.help(format!("{help} [env: {variable}]"))
            })
        };
        <Self as clap::CommandFactory>::command()
            .mut_subcommand("serve", name_variables)
            .mut_subcommand("gateway", name_variables)
            // `a2a test --list` needs no agent: the URL is then left empty, and a run without
            // one is refused as a usage error.
            .mut_subcommand("test", |command| {
                command.mut_arg("url", |arg| {
                    arg.required(false)
                        .default_value("")
                        .hide_default_value(true)
                })
            })
    }
}

/// Runs the parsed command to completion.
///
/// # Errors
/// Whatever the command reports; [`crate::report_failure`] turns it into an exit code.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    crate::telemetry::name_service(match &cli.command {
        Command::Serve(_) => "a2a-serve",
        Command::Gateway(_) => "a2a-gateway",
        _ => "a2a",
    });
    let outcome = match cli.command {
        Command::Serve(args) => runtime.block_on(commands::serve::run(*args)),
        Command::Gateway(args) => runtime.block_on(commands::gateway::run(*args)),
        Command::Agents(args) => runtime.block_on(commands::agents::run(*args)),
        Command::Card(args) => runtime.block_on(commands::card::run(*args)),
        Command::Send(args) => runtime.block_on(traced("send", commands::send::run(*args))),
        Command::Chat(args) => runtime.block_on(commands::chat::run(*args)),
        Command::Get(args) => runtime.block_on(traced("get", commands::get::run(*args))),
        Command::List(args) => runtime.block_on(traced("list", commands::list::run(*args))),
        Command::Cancel(args) => runtime.block_on(traced("cancel", commands::cancel::run(*args))),
        Command::Subscribe(args) => {
            runtime.block_on(traced("subscribe", commands::subscribe::run(*args)))
        }
        Command::Push(args) => runtime.block_on(traced("push", commands::push::run(*args))),
        Command::Webhook(args) => runtime.block_on(commands::webhook::run(*args)),
        Command::Inspect(args) => runtime.block_on(commands::inspect::run(*args)),
        Command::Test(args) => runtime.block_on(commands::test::run(*args)),
        Command::Mcp(args) => runtime.block_on(commands::mcp::run(*args)),
        Command::Completions(args) => {
            commands::completions::run(&args, Cli::command_with_variables())
        }
        Command::Man(args) => commands::man::run(&args, Cli::command_with_variables()),
    };
    // Off the runtime: the exporter's last batch goes out on a thread of its own.
    drop(runtime);
    crate::telemetry::shutdown();
    outcome
}

/// Runs a calling command inside its own client span, the root of its trace (its calls carry
/// its context), exported when the `OTEL_*` variables configure an endpoint.
async fn traced(
    command: &'static str,
    run: impl Future<Output = anyhow::Result<()>>,
) -> anyhow::Result<()> {
    use tracing::Instrument as _;

    crate::telemetry::init_alone()?;
    let span = tracing::info_span!(
        target: crate::telemetry::SPAN_TARGET,
        "a2a.client",
        otel.kind = "client",
        otel.name = format!("a2a {command}"),
        command,
    );
    run.instrument(span).await
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    use super::*;

    #[test]
    fn the_command_tree_is_consistent() {
        // clap checks flag clashes (e.g. `serve --version` against the global one) here.
        Cli::command().debug_assert();
    }
}
