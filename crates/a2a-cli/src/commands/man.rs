//! `a2a man DIR`: the man pages (section 1) of `a2a` and of each of its subcommands, written
//! into a directory: `a2a.1`, `a2a-serve.1`, `a2a-agents-list.1`, …

use std::path::PathBuf;

use anyhow::Context as _;

use crate::output;

/// Flags of `a2a man`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  a2a man ~/.local/share/man/man1 && man a2a-serve
  a2a man target/man && man -l target/man/a2a.1")]
pub(crate) struct ManArgs {
    /// The directory to write the pages into; made when missing
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

/// Writes the pages of `command`, the whole command tree, and prints the path of each.
///
/// # Errors
/// When the directory cannot be made or a page cannot be written.
pub(crate) fn run(args: &ManArgs, mut command: clap::Command) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot make {}", args.dir.display()))?;
    // Built, so each subcommand knows its full name (`a2a-serve`) and the global flags.
    command.build();
    let mut written = String::new();
    write_pages(&command, &args.dir, &mut written)?;
    output::text(&written)?;
    Ok(())
}

/// The page of `command`, then those of its subcommands, depth first; each path is added to
/// `written`, one per line.
fn write_pages(
    command: &clap::Command,
    dir: &std::path::Path,
    written: &mut String,
) -> anyhow::Result<()> {
    if command.is_hide_set() {
        return Ok(());
    }
    let name = command
        .get_display_name()
        .unwrap_or_else(|| command.get_name())
        .to_owned();
    let path = dir.join(format!("{name}.1"));
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone())
        .title(name.to_ascii_uppercase())
        .source(format!("a2a {}", env!("CARGO_PKG_VERSION")))
        .manual("a2a manual")
        .render(&mut page)
        .with_context(|| format!("cannot render the page of {name}"))?;
    std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
    written.push_str(&format!("{}\n", path.display()));
    for sub in command.get_subcommands() {
        if sub.get_name() != "help" {
            write_pages(sub, dir, written)?;
        }
    }
    Ok(())
}
