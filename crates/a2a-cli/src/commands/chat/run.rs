//! The conversation's loop: a line read, a turn run, until `/quit` or the end of input.

use std::io::IsTerminal as _;

use a2a_types::ContextId;

use super::args::ChatArgs;
use super::input::{HELP, Input, parse_input};
use super::session::Session;
use super::turn::Chat;
use crate::actions::{self};
use crate::connection;
use crate::lines::{Lines, Read};
use crate::output;
use crate::render::{Layout, StreamPrinter};
use crate::spinner::Spinners;

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
