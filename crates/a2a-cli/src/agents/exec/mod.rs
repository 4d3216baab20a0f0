//! `--agent exec -- CMD ARGS…`: turns any program into an A2A agent. Each message runs the
//! command once, in its own process group, with the message text on stdin:
//!
//! - every stdout line is streamed as a chunk of one artifact, as soon as it is read;
//! - exit status 0 completes the task, anything else fails it with the last lines of stderr;
//! - a cancel or the async timeout kills the whole process group, and the command is reaped.
//!
//! The artifact's text parts are the lines without their `\n`, and the last chunk is the
//! text after the final `\n` (empty when the output ends with one). So the parts joined with
//! `\n`, the way a client reads a text artifact, give back stdout exactly, and
//! `lastChunk` is known only at end of output, without holding any line back.

mod output;
mod process;
mod run;

use std::path::PathBuf;

use crate::config::DataFormat;

pub(crate) use self::process::CommandNotFound;

/// The exec agent.
#[derive(Debug)]
pub(crate) struct Exec {
    /// The program as configured, for messages.
    program: String,
    /// Where it was found at start-up.
    path: PathBuf,
    args: Vec<String>,
    /// What the command reads on stdin.
    data_format: DataFormat,
}
