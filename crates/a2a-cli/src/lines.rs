//! The lines `a2a chat` reads: on a terminal, a line editor (rustyline: cursor keys, word
//! moves, Ctrl-R search) with the history of earlier chats; otherwise plain lines of stdin.
//!
//! Reading happens on a thread of its own (a blocking read cannot be cancelled, and the
//! runtime must not wait for one when the chat ends). The chat asks for one line at a time,
//! with its prompt, so the editor owns the terminal only while a line is being typed; the
//! rest of the time Ctrl-C is a signal, as the chat expects.

use std::io::BufRead as _;
use std::path::PathBuf;
use std::sync::mpsc as std_mpsc;

use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use tokio::sync::mpsc;

/// What reading one line gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Read {
    /// A line, without its end.
    Line(String),
    /// Ctrl-C while the line was being typed (line editor only).
    Interrupted,
    /// The end of input (Ctrl-D, or the end of piped stdin).
    End,
}

struct Request {
    prompt: String,
    remember: bool,
}

/// The chat's source of lines.
#[derive(Debug)]
pub(crate) struct Lines {
    requests: std_mpsc::Sender<Request>,
    reads: mpsc::Receiver<Read>,
    /// True when the line editor prints the prompt itself.
    pub(crate) edits: bool,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("prompt", &self.prompt)
            .finish_non_exhaustive()
    }
}

impl Lines {
    /// A line editor when `edit` (stdin and stdout are terminals and the output is for a
    /// person), plain lines of stdin otherwise.
    pub(crate) fn start(edit: bool) -> Self {
        let (requests, requested) = std_mpsc::channel::<Request>();
        let (send, reads) = mpsc::channel(1);
        let editor = if edit {
            DefaultEditor::new().ok()
        } else {
            None
        };
        let edits = editor.is_some();
        std::thread::spawn(move || match editor {
            Some(editor) => edit_lines(editor, &requested, &send),
            None => plain_lines(&requested, &send),
        });
        Self {
            requests,
            reads,
            edits,
        }
    }

    /// Reads one line. With the line editor, `prompt` is shown by it and a line worth
    /// `remember`ing joins the history; otherwise the caller has shown the prompt.
    pub(crate) async fn read(&mut self, prompt: &str, remember: bool) -> Read {
        let request = Request {
            prompt: prompt.to_owned(),
            remember,
        };
        if self.requests.send(request).is_err() {
            return Read::End;
        }
        self.reads.recv().await.unwrap_or(Read::End)
    }
}

fn plain_lines(requested: &std_mpsc::Receiver<Request>, send: &mpsc::Sender<Read>) {
    let mut stdin = std::io::stdin().lock();
    while requested.recv().is_ok() {
        let mut line = String::new();
        let read = match stdin.read_line(&mut line) {
            Ok(0) | Err(_) => Read::End,
            Ok(_) => {
                let trimmed = line.trim_end_matches(['\n', '\r']).len();
                line.truncate(trimmed);
                Read::Line(line)
            }
        };
        let end = read == Read::End;
        if send.blocking_send(read).is_err() || end {
            return;
        }
    }
}

fn edit_lines(
    mut editor: DefaultEditor,
    requested: &std_mpsc::Receiver<Request>,
    send: &mpsc::Sender<Read>,
) {
    let history = history_file();
    if let Some(path) = &history {
        // No history yet is the usual first run.
        let _ = editor.load_history(path);
    }
    while let Ok(request) = requested.recv() {
        let read = match editor.readline(&request.prompt) {
            Ok(line) => {
                if request.remember && !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                    if let Some(path) = &history {
                        // A history that cannot be written costs only the next chat's recall.
                        let _ = editor.append_history(path);
                    }
                }
                Read::Line(line)
            }
            Err(ReadlineError::Interrupted) => Read::Interrupted,
            Err(_) => Read::End,
        };
        let end = read == Read::End;
        if send.blocking_send(read).is_err() || end {
            return;
        }
    }
}

/// `$XDG_STATE_HOME/a2a/chat_history`, else `~/.local/state/a2a/chat_history`; the folder
/// is made when missing. `None` without a home.
fn history_file() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|value| !value.is_empty())
                .map(|home| PathBuf::from(home).join(".local/state"))
        })?;
    let folder = state.join("a2a");
    std::fs::create_dir_all(&folder).ok()?;
    Some(folder.join("chat_history"))
}
