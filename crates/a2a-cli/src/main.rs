//! The `a2a` binary: parse, run, turn the outcome into an exit code (see the library docs).

use std::process::ExitCode;

// A server allocates and frees many small strings per request; under load the system
// allocator was a third of the CPU time (bench/), mimalloc cuts that.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match a2a_cli::Cli::try_parse_with_env() {
        Ok(cli) => cli,
        Err(error) => return a2a_cli::report_usage_error(&error),
    };
    match a2a_cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => a2a_cli::report_failure(&error),
    }
}
