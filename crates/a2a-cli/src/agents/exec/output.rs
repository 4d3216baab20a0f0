//! The command's three pipes: the message text in, stdout out as artifact chunks, and the
//! tail of stderr for the failure message.

use std::collections::VecDeque;

use a2a_server::executor::{ExecutorError, TaskUpdater};
use a2a_types::{Artifact, ArtifactChunk, ArtifactId};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader,
};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

/// Lines longer than this are sent in pieces, so a command that never prints a newline
/// cannot make us buffer without bound.
const MAX_LINE: u64 = 64 * 1024;
/// How many stderr lines the failure message keeps (the last ones).
const STDERR_LINES: usize = 20;

/// Writes `text` to the command's stdin and closes it, so the command sees end of input.
pub(super) async fn feed(mut stdin: ChildStdin, text: String) -> Result<(), ExecutorError> {
    // A command that does not read its input closes the pipe early: that is its business,
    // and its exit status says whether it went well.
    let _ = stdin.write_all(text.as_bytes()).await;
    drop(stdin);
    Ok(())
}

/// Streams stdout to the task as chunks of one artifact, one line per chunk (the module
/// docs of `exec` say why that reproduces stdout exactly).
pub(super) async fn stream(
    stdout: ChildStdout,
    updater: &TaskUpdater,
) -> Result<(), ExecutorError> {
    let mut reader = BufReader::new(stdout);
    let id = ArtifactId::generate();
    let mut sent = false;
    loop {
        let line = read_line(&mut reader)
            .await
            .map_err(ExecutorError::internal)?;
        let Some(line) = line else {
            // The output ended right after a `\n`: the empty text after it closes the
            // artifact. No output at all means no artifact.
            if sent {
                send(updater, &id, String::new(), ArtifactChunk::Last).await?;
            }
            return Ok(());
        };
        let chunk = match line.end {
            End::Output if sent => ArtifactChunk::Last,
            End::Output => ArtifactChunk::Whole,
            End::Newline | End::Cut if sent => ArtifactChunk::Next,
            End::Newline | End::Cut => ArtifactChunk::First,
        };
        send(updater, &id, line.text, chunk).await?;
        sent = true;
        if chunk.last_chunk() {
            return Ok(());
        }
    }
}

async fn send(
    updater: &TaskUpdater,
    id: &ArtifactId,
    text: String,
    chunk: ArtifactChunk,
) -> Result<(), ExecutorError> {
    let artifact = Artifact::from_text(text)
        .with_id(id.clone())
        .with_name("output");
    updater.artifact(artifact, chunk).await?;
    Ok(())
}

/// The last lines of stderr, joined with `\n`.
pub(super) async fn tail(stderr: ChildStderr) -> Result<String, ExecutorError> {
    let mut reader = BufReader::new(stderr);
    let mut lines = VecDeque::with_capacity(STDERR_LINES);
    // A read error ends the tail early; the exit status still decides the outcome.
    while let Ok(Some(line)) = read_line(&mut reader).await {
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line.text);
    }
    Ok(Vec::from(lines).join("\n").trim_end().to_owned())
}

/// A piece of output, without its `\n`.
struct Line {
    text: String,
    end: End,
}

/// What ended a [`Line`].
enum End {
    /// A `\n`.
    Newline,
    /// [`MAX_LINE`]: more of the same line follows.
    Cut,
    /// The end of the output.
    Output,
}

/// The next line, or `None` at the end of the output. Invalid UTF-8 is replaced, not
/// refused: the output is shown, not parsed.
async fn read_line(reader: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let read = reader.take(MAX_LINE).read_until(b'\n', &mut bytes).await?;
    let end = if read == 0 {
        return Ok(None);
    } else if bytes.last() == Some(&b'\n') {
        bytes.pop();
        End::Newline
    } else if u64::try_from(read).is_ok_and(|read| read == MAX_LINE) {
        End::Cut
    } else {
        End::Output
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok(Some(Line { text, end }))
}
