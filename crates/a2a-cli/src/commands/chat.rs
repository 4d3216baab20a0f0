//! `a2a chat URL`: a conversation with an agent, one line of stdin per message.
//!
//! The chat keeps the `contextId` across turns, and the `taskId` while the task waits for
//! input; a task that reached a final state is let go, so the next line starts a new task
//! in the same conversation. When the agent asks a question (INPUT_REQUIRED), its status
//! message is shown as the agent's words and the next line answers it. Answers stream when
//! the card says the agent can (`capabilities.streaming`).
//!
//! On a terminal there is a prompt and Ctrl-C stops waiting for the current turn (`/cancel`
//! then cancels its task); with piped stdin the lines are sent one after the other and the
//! first failure ends the chat with its exit code.
//!
//! An agent run (`a2a-run`) that waits for its client lists its pending actions: the chat
//! shows each, asks `approve? [y/N]` for a tool call that needs approval and for the result
//! of a tool the client runs, reading the answers from the same input as the chat's lines
//! (the end of input denies), and sends them all in one message. The model's text shows as
//! it is written (drafts); the stored output is not repeated when the drafts said it.

use std::io::IsTerminal as _;

use a2a_client::A2aClient;
use a2a_types::{
    CancelTaskRequest, ContextId, GetTaskRequest, Message, MessageId, SendMessageRequest,
    StreamResponse, TaskId,
};
use futures::StreamExt as _;

use crate::actions::{self, Action, ActionKind};
use crate::client_args::ClientArgs;
use crate::connection;
use crate::lines::{Lines, Read};
use crate::output;
use crate::progress::Progress;
use crate::render::{self, Layout, StreamPrinter, Style};
use crate::spinner::{Spinner, Spinners};

/// `a2a chat`.
#[derive(Debug, clap::Args)]
pub(crate) struct ChatArgs {
    #[command(flatten)]
    client: ClientArgs,

    /// Continue this conversation
    #[arg(long, value_name = "ID", help_heading = "Chat")]
    context_id: Option<String>,

    /// The messageId of the first message; later ones are new UUIDs (the conformance
    /// agent, for one, picks its behaviour by messageId prefix)
    #[arg(long, value_name = "ID", help_heading = "Chat")]
    message_id: Option<String>,

    /// Never stream, even when the agent can
    #[arg(long, help_heading = "Chat")]
    no_stream: bool,

    /// Declare a tool this chat runs itself, as NAME or NAME:DESCRIPTION: an agent run that
    /// calls it asks you for its result (repeatable)
    #[arg(long = "client-tool", value_name = "NAME", help_heading = "Chat")]
    client_tools: Vec<String>,
}

impl ChatArgs {
    /// The `clientTools` message metadata declaring `--client-tool`s; `None` without any.
    fn client_tools(&self) -> Option<a2a_types::Metadata> {
        if self.client_tools.is_empty() {
            return None;
        }
        let tools = self
            .client_tools
            .iter()
            .map(|tool| {
                let (name, description) = tool.split_once(':').unwrap_or((tool.as_str(), ""));
                serde_json::json!({"name": name.trim(), "description": description.trim()})
            })
            .collect();
        let mut metadata = a2a_types::Metadata::new();
        metadata.insert(
            actions::CLIENT_TOOLS_KEY.to_owned(),
            serde_json::Value::Array(tools),
        );
        Some(metadata)
    }
}

const HELP: &str = "\
/new     start a new conversation (forget the context and the task)
/task    show the current task (or the last one)
/cancel  cancel the current task
/quit    leave (so does Ctrl-D)
";

/// What one line of input asks for.
#[derive(Debug, PartialEq, Eq)]
enum Input<'a> {
    Say(&'a str),
    Quit,
    New,
    Task,
    Cancel,
    Help,
    Unknown(&'a str),
    Nothing,
}

fn parse_input(line: &str) -> Input<'_> {
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

/// The conversation's ids between turns.
#[derive(Debug, Default)]
struct Session {
    context_id: Option<ContextId>,
    /// The task the next message continues: set while it waits for input.
    task_id: Option<TaskId>,
    /// The latest task, kept for `/task` after it ended.
    last_task_id: Option<TaskId>,
    /// The id for the next message, when the user chose one.
    next_message_id: Option<String>,
}

impl Session {
    fn message(&mut self, text: &str) -> Message {
        let mut message = Message::user_text(text);
        if let Some(message_id) = self.next_message_id.take() {
            message.message_id = MessageId::new(message_id);
        }
        message.context_id = self.context_id.clone();
        message.task_id = self.task_id.clone();
        message
    }

    /// Keeps the context; keeps the task only while it can go on (not in a final state).
    fn after_turn(&mut self, progress: &Progress) {
        if progress.context_id.is_some() {
            self.context_id = progress.context_id.clone();
        }
        if progress.task_id.is_some() {
            self.last_task_id = progress.task_id.clone();
        }
        let goes_on = progress.state.is_some_and(|state| !state.is_terminal());
        self.task_id = if goes_on {
            progress.task_id.clone()
        } else {
            None
        };
    }
}

/// Runs the conversation until `/quit` or the end of stdin.
pub(crate) async fn run(args: ChatArgs) -> anyhow::Result<()> {
    let connection = connection::open(&args.client).await?;
    let style = args.client.style();
    let interactive = std::io::stdin().is_terminal();
    let streaming = !args.no_stream
        && connection
            .card()
            .is_some_and(|card| card.capabilities.supports_streaming());
    let chat = Chat {
        connection: &connection,
        args: &args,
        style,
        interactive,
        streaming,
        spinners: Spinners::detect(args.client.json),
    };
    if interactive && !args.client.json {
        output::text(&chat.banner())?;
    }
    let mut session = Session {
        context_id: args.context_id.clone().map(ContextId::new),
        next_message_id: args.message_id.clone(),
        ..Session::default()
    };
    // One printer for the whole chat, so it knows what the agent already said.
    let mut printer = StreamPrinter::new(style, Layout::Chat);
    // The line editor when a person types and reads (stdin and stdout terminals, no --json).
    let mut lines =
        Lines::start(interactive && std::io::stdout().is_terminal() && !args.client.json);
    let edits = lines.edits;
    loop {
        if interactive && !edits {
            output::text(&style.bold("you> "))?;
        }
        let read = tokio::select! {
            read = lines.read("you> ", true) => read,
            _ = tokio::signal::ctrl_c(), if interactive && !edits => Read::Interrupted,
        };
        let line = match read {
            Read::Line(line) => Some(line),
            Read::Interrupted | Read::End => None,
        };
        let Some(line) = line else {
            if interactive {
                output::text("\n")?;
            }
            return Ok(());
        };
        match parse_input(&line) {
            Input::Nothing => {}
            Input::Quit => return Ok(()),
            Input::Help => output::text(HELP)?,
            Input::New => {
                session = Session::default();
                if !args.client.json {
                    output::text(&format!("{}\n", style.dim("(new conversation)")))?;
                }
            }
            Input::Task => chat.show_task(&session).await?,
            Input::Cancel => chat.cancel(&mut session).await?,
            Input::Unknown(command) => {
                output::error_line(&format!("unknown command {command}; /help lists them"));
            }
            Input::Say(text) => {
                let mut message = session.message(text);
                message.metadata = args.client_tools();
                let mut next = Some(message);
                // A turn that ends waiting for answers to its actions is answered at once,
                // and the answer is the next turn.
                while let Some(message) = next.take() {
                    match chat.turn(message, &mut printer).await {
                        Ok(end) => {
                            session.after_turn(&end.progress);
                            if end
                                .stopped
                                .as_deref()
                                .is_some_and(|reason| reason != actions::RESUMABLE_STOP)
                            {
                                // Only a drained run goes on: the next line starts a new task.
                                session.task_id = None;
                            }
                            if !end.actions.is_empty() {
                                next = chat.answer(&end.actions, &session, &mut lines).await?;
                            }
                        }
                        Err(error) if interactive => {
                            output::error_line(&format!("error: {error:#}"));
                        }
                        Err(error) => return Err(error),
                    }
                }
            }
        }
    }
}

/// How a turn ended: what it said about the task, and what an agent run waits for.
#[derive(Debug, Default)]
struct TurnEnd {
    progress: Progress,
    /// The run's pending actions, when the task waits for their answers.
    actions: Vec<Action>,
    /// Why the run stopped, when it did.
    stopped: Option<String>,
}

impl TurnEnd {
    fn observe(&mut self, event: &StreamResponse) {
        self.progress.observe(event);
        if let Some(status) = actions::status_of(event) {
            self.actions = actions::pending_in(status);
            self.stopped = actions::stopped(status.message.as_ref()).map(str::to_owned);
        }
    }
}

/// What a turn needs, borrowed for the whole chat.
struct Chat<'a> {
    connection: &'a A2aClient,
    args: &'a ChatArgs,
    style: Style,
    interactive: bool,
    streaming: bool,
    spinners: Spinners,
}

impl Chat<'_> {
    fn banner(&self) -> String {
        let name = self
            .connection
            .card()
            .map_or("the agent", |card| card.name.as_str());
        let mode = if self.streaming {
            "streaming"
        } else {
            "not streaming"
        };
        format!(
            "{} {}\n{}\n",
            self.style.bold(&format!("Chatting with {name}")),
            self.style.dim(&format!(
                "({mode}, {} {})",
                self.connection.binding(),
                self.connection.url()
            )),
            self.style
                .dim("/help for commands, /quit or Ctrl-D to leave")
        )
    }

    /// Sends one message and prints the answer; Ctrl-C on a terminal stops waiting.
    async fn turn(&self, message: Message, printer: &mut StreamPrinter) -> anyhow::Result<TurnEnd> {
        let request = SendMessageRequest::new(message);
        let mut end = TurnEnd::default();
        let mut spinner = self.spinners.start("thinking");
        let exchange = self.exchange(request, printer, &mut end, &mut spinner);
        let outcome = tokio::select! {
            result = exchange => Some(result),
            _ = tokio::signal::ctrl_c(), if self.interactive => None,
        };
        // Erased before anything else is printed, the error line included.
        spinner.stop().await;
        let interrupted = match outcome {
            Some(result) => {
                result?;
                false
            }
            None => true,
        };
        output::text(&printer.finish())?;
        if interrupted {
            let progress = &end.progress;
            let running = progress.task_id.is_some()
                && progress.state.is_some_and(|state| !state.is_terminal());
            let note = if running {
                "(interrupted; the task goes on: /cancel stops it)"
            } else {
                "(interrupted)"
            };
            output::text(&format!("{}\n", self.style.dim(note)))?;
            // Not answered: the actions seen before Ctrl-C are not asked about.
            end.actions.clear();
        }
        Ok(end)
    }

    async fn exchange(
        &self,
        request: SendMessageRequest,
        printer: &mut StreamPrinter,
        end: &mut TurnEnd,
        spinner: &mut Spinner,
    ) -> anyhow::Result<()> {
        if !self.streaming {
            let response = self.connection.send_message(request).await;
            spinner.stop().await;
            let event = StreamResponse::from(response?);
            end.observe(&event);
            return output::text(&self.render(&event, printer)?).map_err(Into::into);
        }
        let mut stream = self.connection.send_streaming_message(request).await?;
        while let Some(event) = stream.next().await {
            let event = event?;
            end.observe(&event);
            let text = self.render(&event, printer)?;
            // The spinner keeps turning through events that show nothing (WORKING).
            if !text.is_empty() {
                spinner.stop().await;
                output::text(&text)?;
                if printer.at_line_start() {
                    *spinner = self.spinners.start("thinking");
                }
            }
        }
        Ok(())
    }

    /// What to print for `event`: its JSON line, or what the agent said.
    fn render(
        &self,
        event: &StreamResponse,
        printer: &mut StreamPrinter,
    ) -> anyhow::Result<String> {
        if self.args.client.json {
            let mut line = serde_json::to_string(event)?;
            line.push('\n');
            Ok(line)
        } else {
            Ok(printer.event(event))
        }
    }

    /// Asks about each pending action and returns the one message answering them all; `None`
    /// when they stay unanswered (Ctrl-C, or a kind of action this client cannot answer).
    async fn answer(
        &self,
        pending: &[Action],
        session: &Session,
        lines: &mut Lines,
    ) -> anyhow::Result<Option<Message>> {
        let json = self.args.client.json;
        let mut answers = Vec::new();
        for action in pending {
            if !json {
                output::text(&render::actions::block(self.style, action))?;
            }
            let answer = match &action.kind {
                ActionKind::Approval { .. } => {
                    let question = format!("approve {}? [y/N] ", action.tool_name);
                    let Some(reply) = self.ask(&question, lines).await? else {
                        return self.unanswered();
                    };
                    match reply {
                        Some(line) if is_yes(&line) => action.approve(),
                        _ => action.deny(None),
                    }
                }
                ActionKind::ClientTool => {
                    let question = format!("result of {}> ", action.tool_name);
                    let Some(reply) = self.ask(&question, lines).await? else {
                        return self.unanswered();
                    };
                    match reply {
                        Some(line) => action.result(serde_json::Value::String(line), false),
                        None => action.result(
                            serde_json::Value::String("the user gave no result".to_owned()),
                            true,
                        ),
                    }
                }
                ActionKind::Other(kind) => {
                    output::error_line(&format!(
                        "the agent waits for an action of kind {kind:?}, which this client cannot answer; /cancel cancels the task"
                    ));
                    return Ok(None);
                }
            };
            answers.extend(answer);
        }
        if json {
            output::json_line(&actions::answer_data(&answers))?;
        }
        Ok(Some(actions::answer_message(
            session.task_id.clone(),
            session.context_id.clone(),
            &answers,
        )))
    }

    /// Asks `question` and reads one line: `Some(Some(line))`, `Some(None)` at the end of
    /// input, `None` when Ctrl-C interrupts.
    async fn ask(
        &self,
        question: &str,
        lines: &mut Lines,
    ) -> anyhow::Result<Option<Option<String>>> {
        let json = self.args.client.json;
        let edits = lines.edits;
        if json {
            if self.interactive {
                output::prompt(question);
            }
        } else if !edits {
            output::text(&self.style.bold(question))?;
        }
        let read = tokio::select! {
            read = lines.read(question, false) => read,
            _ = tokio::signal::ctrl_c(), if self.interactive && !edits => Read::Interrupted,
        };
        let line = match read {
            Read::Line(line) => Some(line),
            Read::End => None,
            Read::Interrupted => {
                if !json && !edits {
                    output::text("\n")?;
                }
                return Ok(None);
            }
        };
        // A terminal echoes what is typed; piped answers are echoed to keep the transcript.
        if !json && !self.interactive {
            let echo = line.as_deref().unwrap_or("(end of input)");
            output::text(&format!("{echo}\n"))?;
        } else if !json && line.is_none() {
            output::text("\n")?;
        }
        Ok(Some(line.map(|line| line.trim().to_owned())))
    }

    fn unanswered(&self) -> anyhow::Result<Option<Message>> {
        let note = "(not answered: the task still waits; /cancel cancels it)";
        if self.args.client.json {
            output::error_line(note);
        } else {
            output::text(&format!("{}\n", self.style.dim(note)))?;
        }
        Ok(None)
    }

    /// `/cancel`: cancels the task the chat is in (after Ctrl-C, it still runs).
    async fn cancel(&self, session: &mut Session) -> anyhow::Result<()> {
        let Some(task_id) = session.task_id.clone() else {
            output::text(&format!("{}\n", self.style.dim("no task to cancel")))?;
            return Ok(());
        };
        let request = CancelTaskRequest {
            tenant: String::new(),
            id: task_id,
            metadata: None,
        };
        match self.connection.cancel_task(request).await {
            Ok(task) => {
                let mut progress = Progress::default();
                progress.observe_task(&task);
                session.after_turn(&progress);
                if self.args.client.json {
                    output::json_line(&task)?;
                } else {
                    output::text(&render::list::task_state(self.style, &task))?;
                }
            }
            Err(error) => output::error_line(&format!("error: {error}")),
        }
        Ok(())
    }

    /// `/task`: the current (or last) task as the agent has it now.
    async fn show_task(&self, session: &Session) -> anyhow::Result<()> {
        if let Some(context_id) = &session.context_id {
            output::text(&format!("{} {context_id}\n", self.style.dim("context")))?;
        }
        let Some(task_id) = session.task_id.as_ref().or(session.last_task_id.as_ref()) else {
            output::text(&format!("{}\n", self.style.dim("no task yet")))?;
            return Ok(());
        };
        let request = GetTaskRequest {
            tenant: String::new(),
            id: task_id.clone(),
            history_length: Some(0),
        };
        match self.connection.get_task(request).await {
            Ok(task) if self.args.client.json => output::json_line(&task)?,
            Ok(task) => output::text(&render::task::task(self.style, &task, false))?,
            Err(error) => output::error_line(&format!("error: {error:#}")),
        }
        if session.task_id.is_none() {
            output::text(&format!(
                "{}\n",
                self.style
                    .dim("(ended: the next message starts a new task)")
            ))?;
        }
        Ok(())
    }
}

/// `y` or `yes`, in any case.
fn is_yes(line: &str) -> bool {
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

#[cfg(test)]
mod tests {
    use a2a_types::TaskState;

    use super::*;

    #[test]
    fn lines_are_commands_or_text() {
        assert_eq!(parse_input("  hello  "), Input::Say("hello"));
        assert_eq!(parse_input("/quit"), Input::Quit);
        assert_eq!(parse_input("/new"), Input::New);
        assert_eq!(parse_input("/task"), Input::Task);
        assert_eq!(parse_input("/cancel"), Input::Cancel);
        assert_eq!(parse_input("/nope"), Input::Unknown("/nope"));
        assert_eq!(parse_input("//etc/hosts"), Input::Say("/etc/hosts"));
        assert_eq!(parse_input("   "), Input::Nothing);
    }

    fn progress(state: TaskState) -> Progress {
        Progress {
            task_id: Some(TaskId::new("t")),
            context_id: Some(ContextId::new("c")),
            state: Some(state),
            status_text: String::new(),
        }
    }

    #[test]
    fn the_task_is_kept_while_it_waits_and_dropped_when_it_ends() {
        let mut session = Session::default();
        session.after_turn(&progress(TaskState::InputRequired));
        let follow_up = session.message("blue");
        assert_eq!(follow_up.task_id, Some(TaskId::new("t")));
        assert_eq!(follow_up.context_id, Some(ContextId::new("c")));

        session.after_turn(&progress(TaskState::Completed));
        let next = session.message("again");
        assert_eq!(next.task_id, None, "a finished task is not continued");
        assert_eq!(
            next.context_id,
            Some(ContextId::new("c")),
            "the context stays"
        );
        assert_eq!(session.last_task_id, Some(TaskId::new("t")));
    }

    #[test]
    fn client_tools_are_declared_in_the_message_metadata() {
        use clap::Parser as _;

        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            chat: ChatArgs,
        }
        let parsed = Wrapper::parse_from([
            "chat",
            "http://agent",
            "--client-tool",
            "get_location:Where the user is",
            "--client-tool",
            "now",
        ]);
        let metadata = parsed.chat.client_tools().unwrap();
        assert_eq!(
            metadata["clientTools"],
            serde_json::json!([
                {"name": "get_location", "description": "Where the user is"},
                {"name": "now", "description": ""}
            ])
        );
        let none = Wrapper::parse_from(["chat", "http://agent"]);
        assert!(none.chat.client_tools().is_none());
    }

    #[test]
    fn a_chosen_message_id_is_used_once() {
        let mut session = Session {
            next_message_id: Some("tck-input-required-1".into()),
            ..Session::default()
        };
        assert_eq!(
            session.message("a").message_id.as_str(),
            "tck-input-required-1"
        );
        assert_ne!(
            session.message("b").message_id.as_str(),
            "tck-input-required-1"
        );
    }
}
