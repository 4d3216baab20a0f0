//! Everything the command prints for its user. Logs go through `tracing` to stderr; this
//! module is the only place that writes to stdout (the `print_stdout` lint is allowed here
//! alone), so scripts can rely on what appears there.

#![allow(clippy::print_stdout)]

use std::io::Write as _;
use std::net::SocketAddr;

use serde::Serialize;

/// The line a script or test waits for: the real bound address, so `--bind 127.0.0.1:0`
/// is usable.
pub(crate) fn listening(scheme: &str, address: SocketAddr) {
    println!("listening on {scheme}://{address}");
}

/// The gRPC listener's line, after [`listening`]: its real bound address.
pub(crate) fn listening_grpc(address: SocketAddr) {
    println!("listening for gRPC on {address}");
}

/// One error line on stderr.
pub(crate) fn error_line(line: &str) {
    eprintln!("{line}");
}

/// A question on stderr, without a newline, so the answer is typed after it (when stdout
/// is kept for JSON).
pub(crate) fn prompt(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "{text}");
    let _ = stderr.flush();
}

/// Help or version text, where clap would print it (stdout for help, stderr otherwise).
pub(crate) fn clap_message(error: &clap::Error) {
    // Printing fails only when the stream is closed, and then there is nobody to tell.
    let _ = error.print();
}

/// Human output of a client command, written and flushed at once so streamed text shows
/// as it arrives.
///
/// # Errors
/// When stdout is closed (a broken pipe ends the command quietly, see `error.rs`).
pub(crate) fn text(text: &str) -> std::io::Result<()> {
    if text.is_empty() {
        return Ok(());
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

/// One protocol value as one line of JSON (`--json`).
///
/// # Errors
/// When the value cannot be written as JSON or stdout is closed.
pub(crate) fn json_line<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut line = serde_json::to_string(value)?;
    line.push('\n');
    text(&line)?;
    Ok(())
}

/// One frame of the waiting spinner on stderr, over the previous one.
pub(crate) fn spinner_frame(frame: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "\r{frame}");
    let _ = stderr.flush();
}

/// Erases the spinner's line on stderr, `width` characters long: with the terminal's
/// erase-line code, or with blanks when the colour choice ([`crate::color`]) rules escape codes
/// out.
pub(crate) fn spinner_clear(width: usize) {
    let mut stderr = std::io::stderr().lock();
    if crate::color::stderr() {
        let _ = write!(stderr, "\r\x1b[2K");
    } else {
        let _ = write!(stderr, "\r{:width$}\r", "");
    }
    let _ = stderr.flush();
}
