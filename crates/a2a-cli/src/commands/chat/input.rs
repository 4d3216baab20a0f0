//! What a line of input asks for: a message to send, or one of the chat's commands.

pub(super) const HELP: &str = "\
/new     start a new conversation (forget the context and the task)
/task    show the current task (or the last one)
/cancel  cancel the current task
/quit    leave (so does Ctrl-D)
";

/// What one line of input asks for.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Input<'a> {
    Say(&'a str),
    Quit,
    New,
    Task,
    Cancel,
    Help,
    Unknown(&'a str),
    Nothing,
}

pub(super) fn parse_input(line: &str) -> Input<'_> {
    let line = line.trim();
    match line {
        "" => Input::Nothing,
        "/quit" | "/exit" | "/q" => Input::Quit,
        "/new" => Input::New,
        "/task" => Input::Task,
        "/cancel" => Input::Cancel,
        "/help" | "/?" => Input::Help,
        command if command.starts_with('/') && !command.starts_with("//") => {
            Input::Unknown(command)
        }
        // `//text` sends `/text`.
        text => Input::Say(
            text.strip_prefix('/')
                .filter(|_| text.starts_with("//"))
                .unwrap_or(text),
        ),
    }
}
