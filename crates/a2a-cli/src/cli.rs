//! The command tree: global shape of `a2a` and the dispatch to one subcommand.

use anyhow::Context as _;

use crate::commands;

/// The `a2a` command line.
#[derive(Debug, clap::Parser)]
#[command(
    name = "a2a",
    version,
    about = "Serve A2A agents, run a gateway, call agents"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Serve an agent over A2A: JSON-RPC and HTTP+JSON, card at /.well-known/agent-card.json.
    Serve(Box<commands::serve::ServeArgs>),
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
