//! `a2a completions SHELL`: the shell completion script of the whole command tree, on stdout.

use crate::output;

/// Flags of `a2a completions`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  a2a completions bash > ~/.local/share/bash-completion/completions/a2a
  a2a completions zsh > \"${fpath[1]}/_a2a\"
  a2a completions fish > ~/.config/fish/completions/a2a.fish
  a2a completions powershell >> $PROFILE")]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Prints the script of `command`, the whole command tree.
///
/// # Errors
/// When stdout is closed.
pub(crate) fn run(args: &CompletionsArgs, mut command: clap::Command) -> anyhow::Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "a2a", &mut script);
    output::text(&String::from_utf8_lossy(&script))?;
    Ok(())
}
