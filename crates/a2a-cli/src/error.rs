//! Exit codes (style §2.5): every failure is reported as one line on stderr, and its kind
//! decides the code.

use std::process::ExitCode;

use crate::output;

/// The listener could not be bound: the address is taken, not local, or not allowed.
#[derive(Debug, thiserror::Error)]
#[error("cannot listen on {address}")]
pub(crate) struct BindError {
    /// The address as configured.
    pub(crate) address: String,
    /// Why.
    #[source]
    pub(crate) source: std::io::Error,
}

/// A failure that is the caller's to fix: an unknown flag, a bad value, an unreadable
/// configuration or card.
const USAGE: u8 = 2;
/// Something went wrong while running.
const RUNTIME: u8 = 1;
/// A socket could not be bound or a peer could not be reached.
const UNREACHABLE: u8 = 3;

/// Reports a command-line parse error and returns its exit code: help and version requests
/// print in full and succeed; real errors print their first line only (the rest is clap's
/// usage block, which buries the message) and exit 2.
#[must_use]
pub fn report_usage_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            output::clap_message(error);
            if error.use_stderr() {
                ExitCode::from(USAGE)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            output::error_line(&clap_first_line(error));
            ExitCode::from(USAGE)
        }
    }
}

/// The first line of a clap error (`error: …`), without the usage block that follows and
/// without colours.
pub(crate) fn clap_first_line(error: &clap::Error) -> String {
    let text = error.render().to_string();
    text.lines()
        .next()
        .unwrap_or("error: invalid arguments")
        .to_owned()
}

/// Reports a failure of a command as one line (`error: what: why: …`) and returns its exit
/// code.
#[must_use]
pub fn report_failure(error: &anyhow::Error) -> ExitCode {
    output::error_line(&format!("error: {error:#}"));
    ExitCode::from(code_of(error))
}

fn code_of(error: &anyhow::Error) -> u8 {
    let usage = error.chain().any(|cause| {
        cause.is::<crate::config::ConfigError>()
            || cause.is::<crate::card::CardError>()
            || cause.is::<crate::agents::CommandNotFound>()
            || cause.is::<a2a_server::ConfigError>()
    });
    if usage {
        USAGE
    } else if error.chain().any(|cause| cause.is::<BindError>()) {
        UNREACHABLE
    } else {
        RUNTIME
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_map_to_their_exit_codes() {
        let bind = anyhow::Error::new(BindError {
            address: "127.0.0.1:1".into(),
            source: std::io::Error::from(std::io::ErrorKind::AddrInUse),
        });
        assert_eq!(code_of(&bind), UNREACHABLE);
        let config = anyhow::Error::new(a2a_server::ConfigError::NoServableInterface)
            .context("building the server");
        assert_eq!(code_of(&config), USAGE);
        assert_eq!(code_of(&anyhow::anyhow!("disk on fire")), RUNTIME);
    }
}
