//! One turn of the chat: the message sent, the answer shown, the run's actions asked about.

use a2a_client::A2aClient;
use a2a_types::{CancelTaskRequest, GetTaskRequest, Message, SendMessageRequest, StreamResponse};
use futures::StreamExt as _;

use super::args::ChatArgs;
use super::session::Session;
use super::turn_end::TurnEnd;
use crate::actions::{self, Action, ActionKind};
use crate::lines::{Lines, Read};
use crate::output;
use crate::progress::Progress;
use crate::render::{self, StreamPrinter, Style};
use crate::spinner::{Spinner, Spinners};

/// What a turn needs, borrowed for the whole chat.
pub(super) struct Chat<'a> {
    pub(super) connection: &'a A2aClient,
    pub(super) args: &'a ChatArgs,
    pub(super) style: Style,
    pub(super) interactive: bool,
    pub(super) streaming: bool,
    pub(super) spinners: Spinners,
}

impl Chat<'_> {
    pub(super) fn banner(&self) -> String {
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
    pub(super) async fn turn(
        &self,
        message: Message,
        printer: &mut StreamPrinter,
    ) -> anyhow::Result<TurnEnd> {
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

    pub(super) async fn exchange(
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
    pub(super) fn render(
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
    pub(super) async fn answer(
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
    pub(super) async fn ask(
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

    pub(super) fn unanswered(&self) -> anyhow::Result<Option<Message>> {
        let note = "(not answered: the task still waits; /cancel cancels it)";
        if self.args.client.json {
            output::error_line(note);
        } else {
            output::text(&format!("{}\n", self.style.dim(note)))?;
        }
        Ok(None)
    }

    /// `/cancel`: cancels the task the chat is in (after Ctrl-C, it still runs).
    pub(super) async fn cancel(&self, session: &mut Session) -> anyhow::Result<()> {
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
    pub(super) async fn show_task(&self, session: &Session) -> anyhow::Result<()> {
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
pub(super) fn is_yes(line: &str) -> bool {
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}
