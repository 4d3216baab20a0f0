//! `a2a send URL TEXT`: one message to an agent, the answer printed as it comes
//! (`--stream`) or once the task stops (SendMessage).
//!
//! When an agent run (`a2a-run`) waits for its client, the task is INPUT_REQUIRED and its
//! pending actions are listed, one line each, with the `a2a send --task-id … --data …`
//! that answers them all (approving every approval, a placeholder for each client tool's
//! output); the command exits 0. With `--json` the task is printed as received.

use std::path::{Path, PathBuf};

use a2a_types::{
    ContextId, Message, MessageId, Part, Role, SendMessageConfiguration, SendMessageRequest,
    TaskId, TaskPushNotificationConfig,
};

use crate::actions::{self, Action};
use crate::client_args::ClientArgs;
use crate::connection;
use crate::error::UsageError;
use crate::follow;
use crate::output;
use crate::progress::Progress;
use crate::render;
use crate::spinner::Spinners;

/// `a2a send`.
#[derive(Debug, clap::Args)]
pub(crate) struct SendArgs {
    #[command(flatten)]
    client: ClientArgs,

    /// The message text
    #[arg(value_name = "TEXT", required_unless_present_any = ["files", "data"])]
    text: Option<String>,

    /// Stream the answer (SendStreamingMessage): states and artifact text as they happen
    #[arg(long, help_heading = "Message")]
    stream: bool,

    /// Continue this task (e.g. one waiting in INPUT_REQUIRED)
    #[arg(long, value_name = "ID", help_heading = "Message")]
    task_id: Option<String>,

    /// Send within this conversation
    #[arg(long, value_name = "ID", help_heading = "Message")]
    context_id: Option<String>,

    /// The message's own id [default: a new UUID]
    #[arg(long, value_name = "ID", help_heading = "Message")]
    message_id: Option<String>,

    /// Answer as soon as the task exists instead of waiting for it to stop
    #[arg(long, help_heading = "Message")]
    return_immediately: bool,

    /// Return at most N history messages with the task
    #[arg(long, value_name = "N", help_heading = "Message")]
    history_length: Option<u16>,

    /// Attach a file as a part: its bytes (base64 on the wire), name and media type
    /// (repeatable)
    #[arg(long = "file", value_name = "PATH", help_heading = "Message")]
    files: Vec<PathBuf>,

    /// Attach a JSON value as a data part (repeatable)
    #[arg(long, value_name = "JSON", help_heading = "Message")]
    data: Vec<String>,

    /// Have the agent post the task's updates to this webhook (the agent must support push
    /// notifications)
    #[arg(long, value_name = "URL", help_heading = "Message")]
    push_url: Option<String>,

    /// The token the agent sends with each update to --push-url
    #[arg(
        long,
        value_name = "TOKEN",
        help_heading = "Message",
        requires = "push_url"
    )]
    push_token: Option<String>,
}

/// Sends the message and prints the answer.
pub(crate) async fn run(args: SendArgs) -> anyhow::Result<()> {
    let request = request(&args)?;
    let connection = connection::open(&args.client).await?;
    let spinners = Spinners::detect(args.client.json);
    let style = args.client.style();
    // What the task's latest status waits for.
    let mut pending: Vec<Action> = Vec::new();
    let progress = if args.stream {
        let stream = connection.send_streaming_message(request).await?;
        let stream = futures::StreamExt::inspect(stream, |event| {
            if let Ok(event) = event
                && let Some(status) = actions::status_of(event)
            {
                pending = actions::pending_in(status);
            }
        });
        follow::follow(stream, &args.client, spinners).await?
    } else {
        let mut spinner = spinners.start("waiting for the agent");
        let response = connection.send_message(request).await;
        spinner.stop().await;
        let response = response?;
        if args.client.json {
            output::json_line(&response)?;
        } else {
            let event = a2a_types::StreamResponse::from(response.clone());
            let mut printer = render::StreamPrinter::new(style, render::Layout::Full)
                .with_history(args.history_length.is_some());
            output::text(&printer.event(&event))?;
        }
        if let a2a_types::SendMessageResponse::Task(task) = &response {
            pending = actions::pending_in(&task.status);
        }
        let mut progress = Progress::default();
        progress.observe_response(&response);
        progress
    };
    if !args.client.json
        && !pending.is_empty()
        && let Some(task_id) = &progress.task_id
    {
        output::text(&answer_hint(style, &args.client.url, task_id, &pending))?;
    }
    progress.outcome()?;
    Ok(())
}

/// The command answering `pending`, for a person or a script to adapt.
fn answer_hint(style: render::Style, url: &str, task_id: &TaskId, pending: &[Action]) -> String {
    let data = actions::answer_template(pending).to_string();
    format!(
        "{}\n  a2a send {} --task-id {} --data {}\n",
        style.dim(&format!(
            "task {task_id} waits for {} action(s); answer them all in one message:",
            pending.len()
        )),
        shell_quote(url),
        shell_quote(task_id.as_str()),
        shell_quote(&data)
    )
}

/// `text` as one shell word: as is when it is plain, else in single quotes.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The request the flags describe.
fn request(args: &SendArgs) -> Result<SendMessageRequest, UsageError> {
    let mut parts = Vec::new();
    if let Some(text) = &args.text {
        parts.push(Part::text(text.clone()));
    }
    for path in &args.files {
        parts.push(file_part(path)?);
    }
    for data in &args.data {
        let value = serde_json::from_str(data)
            .map_err(|error| UsageError::new(format!("--data is not JSON: {error}")))?;
        parts.push(Part::data(value));
    }
    let mut message = Message::new(Role::User, parts);
    if let Some(message_id) = &args.message_id {
        message.message_id = MessageId::new(message_id.clone());
    }
    message.task_id = args.task_id.clone().map(TaskId::new);
    message.context_id = args.context_id.clone().map(ContextId::new);
    let mut request = SendMessageRequest::new(message);
    if args.return_immediately || args.history_length.is_some() || args.push_url.is_some() {
        let push = args.push_url.as_ref().map(|url| {
            let mut config = TaskPushNotificationConfig::new(url.clone());
            config.token.clone_from(&args.push_token);
            config
        });
        request.configuration = Some(SendMessageConfiguration {
            return_immediately: args.return_immediately,
            history_length: args.history_length.map(i32::from),
            task_push_notification_config: push,
            ..SendMessageConfiguration::default()
        });
    }
    Ok(request)
}

/// A file as a raw part, named after the file, its media type guessed from the extension.
pub(crate) fn file_part(path: &Path) -> Result<Part, UsageError> {
    let bytes = std::fs::read(path).map_err(|error| {
        UsageError::new(format!("cannot read --file {}: {error}", path.display()))
    })?;
    let mut part = Part::raw(bytes).with_media_type(media_type(path));
    if let Some(name) = path.file_name() {
        part = part.with_filename(name.to_string_lossy());
    }
    Ok(part)
}

/// The media type for a file name's extension; `application/octet-stream` when unknown.
pub(crate) fn media_type(path: &Path) -> &'static str {
    let extension = path
        .extension()
        .map(|extension| extension.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "txt" | "text" | "log" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "js" | "mjs" => "text/javascript",
        "json" => "application/json",
        "xml" => "application/xml",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "tar" => "application/x-tar",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_is_a_command_that_answers_every_action() {
        let message = a2a_types::Message::new(
            Role::Agent,
            vec![Part::data(serde_json::json!({"actions": [
                {"kind": "approval", "approvalId": "approval-1", "toolCallId": "call-1",
                 "toolName": "write_file", "input": {"path": "it's.txt"}, "token": "tok"}
            ]}))],
        );
        let pending = actions::pending(Some(&message));
        let hint = answer_hint(
            render::Style::plain(),
            "http://127.0.0.1:8080",
            &TaskId::new("task-1"),
            &pending,
        );
        assert_eq!(
            hint,
            "task task-1 waits for 1 action(s); answer them all in one message:\n  \
             a2a send http://127.0.0.1:8080 --task-id task-1 --data \
             '{\"approvalResponses\":[{\"approvalId\":\"approval-1\",\"approved\":true,\"token\":\"tok\"}]}'\n"
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn media_types_follow_the_extension() {
        for (name, expected) in [
            ("notes.txt", "text/plain"),
            ("Report.PDF", "application/pdf"),
            ("photo.jpeg", "image/jpeg"),
            ("data.json", "application/json"),
            ("archive.unknown", "application/octet-stream"),
            ("Makefile", "application/octet-stream"),
        ] {
            assert_eq!(media_type(Path::new(name)), expected, "{name}");
        }
    }
}
