//! The command tree: global shape of `a2a` and the dispatch to one subcommand.

use anyhow::Context as _;

use crate::commands;

/// The `a2a` command line.
#[derive(Debug, clap::Parser)]
#[command(
    name = "a2a",
    version,
    about = "Serve A2A agents, run a gateway, call agents",
    after_help = "Exit codes: 0 ok, 1 the agent refused or the task failed, 2 usage, 3 cannot reach the agent"
)]
pub struct Cli {
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
}

impl Cli {
    /// Parses the process's command line, reading KubeMQ's `KUBEMQ_A2A_*` variable names
    /// for `a2a gateway` beside ours (`kubemq_env`).
    ///
    /// # Errors
    /// clap's, for a command line that cannot be used (help and version requests included).
    pub fn try_parse_with_env() -> Result<Self, clap::Error> {
        let command = <Self as clap::CommandFactory>::command();
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        let args = match command.find_subcommand("gateway") {
            Some(gateway) => {
                crate::kubemq_env::with_aliases(args, gateway, |name| std::env::var_os(name))
            }
            None => args,
        };
        <Self as clap::Parser>::try_parse_from(args)
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
    match cli.command {
        Command::Serve(args) => runtime.block_on(commands::serve::run(*args)),
        Command::Gateway(args) => runtime.block_on(commands::gateway::run(*args)),
        Command::Agents(args) => runtime.block_on(commands::agents::run(*args)),
        Command::Card(args) => runtime.block_on(commands::card::run(*args)),
        Command::Send(args) => runtime.block_on(commands::send::run(*args)),
        Command::Chat(args) => runtime.block_on(commands::chat::run(*args)),
        Command::Get(args) => runtime.block_on(commands::get::run(*args)),
        Command::List(args) => runtime.block_on(commands::list::run(*args)),
        Command::Cancel(args) => runtime.block_on(commands::cancel::run(*args)),
        Command::Subscribe(args) => runtime.block_on(commands::subscribe::run(*args)),
        Command::Push(args) => runtime.block_on(commands::push::run(*args)),
        Command::Webhook(args) => runtime.block_on(commands::webhook::run(*args)),
    }
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
