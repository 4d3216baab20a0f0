//! Everything the command prints for its user. Logs go through `tracing` to stderr; this
//! module is the only place that writes to stdout (the `print_stdout` lint is allowed here
//! alone), so scripts can rely on what appears there.

#![allow(clippy::print_stdout)]

use std::net::SocketAddr;

/// The line a script or test waits for: the real bound address, so `--bind 127.0.0.1:0`
/// is usable.
pub(crate) fn listening(address: SocketAddr) {
    println!("listening on http://{address}");
}

/// One error line on stderr.
pub(crate) fn error_line(line: &str) {
    eprintln!("{line}");
}

/// Help or version text, where clap would print it (stdout for help, stderr otherwise).
pub(crate) fn clap_message(error: &clap::Error) {
    // Printing fails only when the stream is closed, and then there is nobody to tell.
    let _ = error.print();
}
