//! Whether output is coloured: `--color auto|always|never` and `NO_COLOR`, decided once for
//! every stream. The human output of the client commands ([`crate::render`]), the log lines
//! on stderr ([`crate::logging`]) and clap's own help and error messages all ask here.
//!
//! `--color` wins; without it a non-empty `NO_COLOR` (no-color.org) means never; otherwise a
//! stream is coloured when it is a terminal.

use std::ffi::{OsStr, OsString};
use std::io::IsTerminal as _;
use std::sync::OnceLock;

/// The variable that turns colours off when `--color` is not given.
pub(crate) const NO_COLOR: &str = "NO_COLOR";

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Always, even into a pipe or a file, and whatever NO_COLOR says.
    Always,
    /// Never.
    Never,
}

static CHOICE: OnceLock<ColorChoice> = OnceLock::new();

/// The choice in force for `flag` (`--color`, if given) and the value of `NO_COLOR`.
pub(crate) fn decide(flag: Option<ColorChoice>, no_color: Option<&OsStr>) -> ColorChoice {
    match flag {
        Some(choice) => choice,
        None if no_color.is_some_and(|value| !value.is_empty()) => ColorChoice::Never,
        None => ColorChoice::Auto,
    }
}

/// Fixes the choice for the rest of the process; the first call wins.
pub(crate) fn init(choice: ColorChoice) {
    let _ = CHOICE.set(choice);
}

/// The choice fixed by [`init`], else the one the environment alone makes.
fn choice() -> ColorChoice {
    CHOICE.get().copied().unwrap_or_else(|| {
        let no_color = std::env::var_os(NO_COLOR);
        decide(None, no_color.as_deref())
    })
}

/// Whether text written to stdout is coloured.
pub(crate) fn stdout() -> bool {
    applies(choice(), std::io::stdout().is_terminal())
}

/// Whether text written to stderr (logs, clap's messages) is coloured.
pub(crate) fn stderr() -> bool {
    applies(choice(), std::io::stderr().is_terminal())
}

fn applies(choice: ColorChoice, is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => is_terminal,
    }
}

/// clap's setting for the same choice (clap checks the terminal itself under `Auto`).
pub(crate) fn for_clap(choice: ColorChoice) -> clap::ColorChoice {
    match choice {
        ColorChoice::Auto => clap::ColorChoice::Auto,
        ColorChoice::Always => clap::ColorChoice::Always,
        ColorChoice::Never => clap::ColorChoice::Never,
    }
}

/// The `--color` of a command line not parsed yet (program name first), for clap's own
/// messages about it; a value that is not a choice counts as not given, and clap refuses it.
pub(crate) fn scan(args: &[OsString]) -> Option<ColorChoice> {
    use clap::ValueEnum as _;
    let mut args = args
        .iter()
        .skip(1)
        .take_while(|arg| arg.as_os_str() != OsStr::new("--"))
        .map(|arg| arg.to_string_lossy());
    let mut found = None;
    while let Some(arg) = args.next() {
        let value = if arg == "--color" {
            args.next()
        } else if let Some(value) = arg.strip_prefix("--color=") {
            Some(value.to_owned().into())
        } else {
            continue;
        };
        found = value.and_then(|value| ColorChoice::from_str(&value, true).ok());
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_over_no_color_which_wins_over_auto() {
        let set = Some(OsStr::new("1"));
        assert_eq!(decide(None, None), ColorChoice::Auto);
        assert_eq!(decide(None, set), ColorChoice::Never);
        assert_eq!(decide(None, Some(OsStr::new(""))), ColorChoice::Auto);
        assert_eq!(decide(Some(ColorChoice::Always), set), ColorChoice::Always);
        assert_eq!(decide(Some(ColorChoice::Never), None), ColorChoice::Never);
    }

    #[test]
    fn choices_apply_to_terminals_and_pipes() {
        assert!(applies(ColorChoice::Always, false));
        assert!(!applies(ColorChoice::Never, true));
        assert!(applies(ColorChoice::Auto, true));
        assert!(!applies(ColorChoice::Auto, false));
    }

    #[test]
    fn the_flag_is_found_before_the_command_line_is_parsed() {
        let args = |list: &[&str]| -> Vec<OsString> { list.iter().map(OsString::from).collect() };
        assert_eq!(
            scan(&args(&["a2a", "send", "--color", "never"])),
            Some(ColorChoice::Never)
        );
        assert_eq!(
            scan(&args(&["a2a", "--color=always", "card"])),
            Some(ColorChoice::Always)
        );
        assert_eq!(scan(&args(&["a2a", "--color=purple"])), None);
        assert_eq!(scan(&args(&["a2a", "serve", "--", "--color=always"])), None);
    }
}
