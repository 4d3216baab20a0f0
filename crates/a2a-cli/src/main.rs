//! The `a2a` binary: parse, run, turn the outcome into an exit code (see the library docs).

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    let cli = match a2a_cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return a2a_cli::report_usage_error(&error),
    };
    match a2a_cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => a2a_cli::report_failure(&error),
    }
}
