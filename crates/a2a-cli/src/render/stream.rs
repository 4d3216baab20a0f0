//! [`StreamPrinter`]: turns stream events into text as they arrive, so artifact text shows
//! chunk by chunk and every status change gets its own line.

use std::fmt::Write as _;

use a2a_types::{
    ArtifactId, Message, MessageId, PartContent, StreamResponse, TaskArtifactUpdateEvent,
    TaskState, TaskStatus,
};

use super::{Style, actions as shown, parts, task};
use crate::actions;

/// How much the printer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// `send --stream`, `subscribe`: every event, artifacts under a title.
    Full,
    /// `chat`: only what the agent says (`agent: …`) and the state where a turn ends.
    Chat,
}

/// The text for each event of one stream; remembers the artifact being printed so chunks
/// continue where the previous one stopped.
#[derive(Debug)]
pub(crate) struct StreamPrinter {
    style: Style,
    layout: Layout,
    /// The artifact whose chunks are being printed, and whether a part of it is out already.
    open: Option<(ArtifactId, bool)>,
    /// The last part printed of the open artifact is text, so appended text continues it.
    text_open: bool,
    /// The last text returned ended with a newline (or nothing was returned yet).
    at_line_start: bool,
    /// Task snapshots show their history.
    history: bool,
    /// The last agent message shown: a task snapshot repeats its status message (the
    /// question a chat just answered), which is not said twice.
    said: Option<MessageId>,
    /// The text of the latest draft artifact of this turn (an agent run's text as the model
    /// wrote it): a chat does not repeat it when the stored output says the same.
    drafted: Option<String>,
}

impl StreamPrinter {
    /// A printer for one stream.
    pub(crate) fn new(style: Style, layout: Layout) -> Self {
        Self {
            style,
            layout,
            open: None,
            text_open: false,
            at_line_start: true,
            history: false,
            said: None,
            drafted: None,
        }
    }

    /// Shows the history of task snapshots (`--history-length`).
    pub(crate) fn with_history(mut self, history: bool) -> Self {
        self.history = history;
        self
    }

    /// True when the cursor is at the start of a line, so a spinner may use it.
    pub(crate) fn at_line_start(&self) -> bool {
        self.at_line_start
    }

    /// The text to print for `event`; may be empty.
    pub(crate) fn event(&mut self, event: &StreamResponse) -> String {
        let out = match event {
            StreamResponse::Task(snapshot) => {
                let mut out = self.close();
                match self.layout {
                    Layout::Full => {
                        out.push_str(&task::task(self.style, snapshot, self.history));
                    }
                    Layout::Chat => {
                        for artifact in &snapshot.artifacts {
                            if self.repeats_draft(artifact) {
                                continue;
                            }
                            out.push_str(&self.agent_says(&parts::parts(&artifact.parts)));
                        }
                        out.push_str(&self.chat_status(&snapshot.status));
                    }
                }
                out
            }
            StreamResponse::Message(message) => {
                let mut out = self.close();
                match self.layout {
                    Layout::Full => out.push_str(&task::message(self.style, message)),
                    Layout::Chat => out.push_str(&self.agent_message(message)),
                }
                out
            }
            StreamResponse::StatusUpdate(update) => {
                let mut out = self.close();
                match self.layout {
                    Layout::Full => out.push_str(&task::status_line(self.style, &update.status)),
                    Layout::Chat => out.push_str(&self.chat_status(&update.status)),
                }
                out
            }
            StreamResponse::ArtifactUpdate(update) => self.artifact(update),
        };
        if let Some(last) = out.chars().last() {
            self.at_line_start = last == '\n';
        }
        out
    }

    /// What is still owed at the end of the stream: the newline after an open artifact.
    pub(crate) fn finish(&mut self) -> String {
        let out = self.close();
        if !out.is_empty() {
            self.at_line_start = true;
        }
        out
    }

    /// True when `artifact` is the stored output of what a chat already showed as a draft.
    fn repeats_draft(&self, artifact: &a2a_types::Artifact) -> bool {
        self.layout == Layout::Chat
            && self
                .drafted
                .as_ref()
                .is_some_and(|drafted| drafted.trim() == artifact.text().trim())
    }

    /// A draft's chunks are pieces of one text, printed one after the other as they come;
    /// `agent:` (or the title) waits for the first text, so an empty draft shows nothing.
    fn draft(&mut self, update: &TaskArtifactUpdateEvent) -> String {
        let id = &update.artifact.artifact_id;
        let continues = update.append && self.open.as_ref().is_some_and(|(open, _)| open == id);
        let mut out = String::new();
        if !continues {
            out.push_str(&self.close());
            self.open = Some((id.clone(), false));
            self.drafted = Some(String::new());
        }
        let text: String = update.artifact.parts.iter().map(parts::part).collect();
        if !text.is_empty() {
            if let Some((_, started)) = &mut self.open
                && !*started
            {
                match self.layout {
                    Layout::Full => {
                        out.push_str(&task::artifact_title(self.style, &update.artifact));
                    }
                    Layout::Chat => {
                        out.push_str(&self.style.bold("agent:"));
                        out.push(' ');
                    }
                }
                *started = true;
            }
            out.push_str(&text);
            if let Some(drafted) = &mut self.drafted {
                drafted.push_str(&text);
            }
        }
        if update.last_chunk {
            let started = self.open.take().is_some_and(|(_, started)| started);
            let at_line_start = out.ends_with('\n') || (out.is_empty() && self.at_line_start);
            if started && !at_line_start {
                out.push('\n');
            }
        }
        out
    }

    fn artifact(&mut self, update: &TaskArtifactUpdateEvent) -> String {
        if actions::is_draft(&update.artifact) {
            return self.draft(update);
        }
        // The stored output, whole, after drafts that said it all.
        if !update.append && update.last_chunk && self.repeats_draft(&update.artifact) {
            return self.close();
        }
        let id = &update.artifact.artifact_id;
        let continues = update.append && self.open.as_ref().is_some_and(|(open, _)| open == id);
        let mut out = String::new();
        if !continues {
            out.push_str(&self.close());
            match self.layout {
                Layout::Full => out.push_str(&task::artifact_title(self.style, &update.artifact)),
                Layout::Chat => out.push_str(&self.style.bold("agent:")),
            }
            self.open = Some((id.clone(), false));
        }
        if let Some((_, started)) = &mut self.open {
            // Text appended to text is one flowing text (an agent streaming tokens); any
            // other part, and every part after the first of one update, starts a line.
            let mut joins = continues && self.text_open;
            for part in &update.artifact.parts {
                let is_text = matches!(part.content, PartContent::Text(_));
                if *started && !(joins && is_text) {
                    out.push('\n');
                } else if !*started && self.layout == Layout::Chat {
                    out.push(' ');
                }
                out.push_str(&parts::part(part));
                *started = true;
                self.text_open = is_text;
                joins = false;
            }
        }
        if update.last_chunk {
            let at_line_start = out.ends_with('\n') || (out.is_empty() && self.at_line_start);
            self.open = None;
            if !at_line_start {
                out.push('\n');
            }
        }
        out
    }

    /// Ends the open artifact's line, if one is open.
    fn close(&mut self) -> String {
        if self.open.take().is_some() && !self.at_line_start {
            "\n".to_owned()
        } else {
            String::new()
        }
    }

    fn agent_says(&self, text: &str) -> String {
        if text.is_empty() {
            String::new()
        } else {
            format!("{} {text}\n", self.style.bold("agent:"))
        }
    }

    /// `agent: TEXT` for a message not shown yet.
    fn agent_message(&mut self, message: &Message) -> String {
        if self.said.as_ref() == Some(&message.message_id) {
            return String::new();
        }
        self.said = Some(message.message_id.clone());
        self.agent_says(&shown::message_text(message))
    }

    /// In a chat, a status says something only when it carries a new message (the agent's
    /// question, or why it failed) or when the turn ends there.
    ///
    /// An agent run's pending actions are left to the chat, which asks about each; a run
    /// that stopped gets a one-line notice.
    fn chat_status(&mut self, status: &TaskStatus) -> String {
        let ends_turn = status.state.is_terminal() || status.state.is_interrupted();
        if ends_turn {
            self.drafted = None;
        }
        let repeated = status
            .message
            .as_ref()
            .is_some_and(|message| self.said.as_ref() == Some(&message.message_id));
        if repeated {
            return String::new();
        }
        if let Some(message) = &status.message
            && let Some(reason) = actions::stopped(Some(message))
        {
            self.said = Some(message.message_id.clone());
            return shown::stop_notice(self.style, reason, &shown::message_text(message));
        }
        let mut out = status
            .message
            .as_ref()
            .map(|message| self.agent_message(message))
            .unwrap_or_default();
        let asks = !actions::pending_in(status).is_empty();
        if ends_turn && status.state != TaskState::Completed && !asks {
            let _ = writeln!(
                out,
                "{}{}{}",
                self.style.dim("["),
                self.style.state(status.state),
                self.style.dim("]")
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use a2a_types::{Artifact, ArtifactChunk, ContextId, Message, TaskId, TaskStatusUpdateEvent};

    use super::*;

    fn chunk(text: &str, chunk: ArtifactChunk) -> StreamResponse {
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: TaskId::new("t"),
            context_id: ContextId::new("c"),
            artifact: Artifact::from_text(text).with_id("a").with_name("output"),
            append: chunk.append(),
            last_chunk: chunk.last_chunk(),
            metadata: None,
        })
    }

    fn status(state: TaskState, text: Option<&str>) -> StreamResponse {
        let mut status = TaskStatus::new(state);
        status.message = text.map(Message::agent_text);
        StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: TaskId::new("t"),
            context_id: ContextId::new("c"),
            status,
            metadata: None,
        })
    }

    fn print(layout: Layout, events: &[StreamResponse]) -> String {
        let mut printer = StreamPrinter::new(Style::plain(), layout);
        let mut out: String = events.iter().map(|event| printer.event(event)).collect();
        out.push_str(&printer.finish());
        out
    }

    #[test]
    fn appended_text_chunks_flow_as_one_text_and_states_get_their_own_lines() {
        let events = [
            status(TaskState::Working, None),
            chunk("hello ", ArtifactChunk::First),
            chunk("big ", ArtifactChunk::Next),
            chunk("world", ArtifactChunk::Next),
            chunk("", ArtifactChunk::Last),
            status(TaskState::Completed, None),
        ];
        assert_eq!(
            print(Layout::Full, &events),
            "● WORKING\n── output ──\nhello big world\n● COMPLETED\n"
        );
        assert_eq!(print(Layout::Chat, &events), "agent: hello big world\n");
    }

    fn parts_chunk(parts: Vec<a2a_types::Part>, chunk: ArtifactChunk) -> StreamResponse {
        let mut artifact = Artifact::from_text("").with_id("a").with_name("output");
        artifact.parts = parts;
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: TaskId::new("t"),
            context_id: ContextId::new("c"),
            artifact,
            append: chunk.append(),
            last_chunk: chunk.last_chunk(),
            metadata: None,
        })
    }

    #[test]
    fn a_non_text_part_starts_a_line_and_so_does_the_text_after_it() {
        use a2a_types::Part;
        let events = [
            chunk("see ", ArtifactChunk::First),
            parts_chunk(
                vec![Part::data(serde_json::json!({"k": 1}))],
                ArtifactChunk::Next,
            ),
            chunk("after", ArtifactChunk::Next),
            // The first text of an update continues the text; a second part of the same
            // update is a part of its own, on its own line.
            parts_chunk(
                vec![Part::text(" one"), Part::text("two")],
                ArtifactChunk::Last,
            ),
        ];
        assert_eq!(
            print(Layout::Full, &events),
            "── output ──\nsee \n{\"k\":1}\nafter one\ntwo\n"
        );
    }

    #[test]
    fn an_artifact_left_open_is_closed_by_the_next_status() {
        let events = [
            chunk("chunk-1 ", ArtifactChunk::First),
            chunk("chunk-2", ArtifactChunk::Next),
            status(TaskState::Completed, Some("done")),
        ];
        assert_eq!(
            print(Layout::Full, &events),
            "── output ──\nchunk-1 chunk-2\n● COMPLETED  done\n"
        );
    }

    #[test]
    fn a_chat_does_not_repeat_a_question_the_next_snapshot_carries() {
        let question = status(TaskState::InputRequired, Some("Which colour?"));
        let StreamResponse::StatusUpdate(update) = &question else {
            unreachable!()
        };
        let mut snapshot = a2a_types::Task::new(
            TaskId::new("t"),
            ContextId::new("c"),
            TaskState::InputRequired,
        );
        snapshot.status = update.status.clone();
        let mut printer = StreamPrinter::new(Style::plain(), Layout::Chat);
        let first = printer.event(&question);
        assert_eq!(first, "agent: Which colour?\n[INPUT_REQUIRED]\n");
        assert_eq!(printer.event(&StreamResponse::Task(snapshot)), "");
    }

    fn draft(step: u32, text: &str, chunk: ArtifactChunk) -> StreamResponse {
        let mut artifact = Artifact::from_text(text)
            .with_id(format!("draft-{step}"))
            .with_name("draft");
        let mut metadata = a2a_types::Metadata::new();
        metadata.insert("draft".into(), serde_json::json!(true));
        artifact.metadata = Some(metadata);
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: TaskId::new("t"),
            context_id: ContextId::new("c"),
            artifact,
            append: chunk.append(),
            last_chunk: chunk.last_chunk(),
            metadata: None,
        })
    }

    fn asking(state: TaskState, data: serde_json::Value) -> StreamResponse {
        let message = Message::new(
            a2a_types::Role::Agent,
            vec![
                a2a_types::Part::text("Waiting for you to approve write_file."),
                a2a_types::Part::data(data),
            ],
        );
        StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: TaskId::new("t"),
            context_id: ContextId::new("c"),
            status: TaskStatus::new(state).with_message(message),
            metadata: None,
        })
    }

    #[test]
    fn drafts_print_as_they_come_and_the_same_output_is_not_repeated() {
        let events = [
            status(TaskState::Working, None),
            draft(1, "Hel", ArtifactChunk::First),
            draft(1, "lo", ArtifactChunk::Next),
            draft(1, "", ArtifactChunk::Last),
            // A step that only called tools drafts nothing.
            draft(2, "", ArtifactChunk::Last),
            draft(3, "Done", ArtifactChunk::First),
            draft(3, ".", ArtifactChunk::Next),
            draft(3, "", ArtifactChunk::Last),
            chunk("Done.", ArtifactChunk::Whole),
            status(TaskState::Completed, None),
        ];
        assert_eq!(print(Layout::Chat, &events), "agent: Hello\nagent: Done.\n");
        // `send --stream` shows every event.
        assert_eq!(print(Layout::Full, &events[1..4]), "── draft ──\nHello\n");
    }

    #[test]
    fn an_output_unlike_the_drafts_or_without_drafts_is_printed() {
        let events = [
            draft(1, "Thinking", ArtifactChunk::First),
            draft(1, "", ArtifactChunk::Last),
            chunk("Done.", ArtifactChunk::Whole),
            status(TaskState::Completed, None),
            chunk("Again.", ArtifactChunk::Whole),
        ];
        assert_eq!(
            print(Layout::Chat, &events),
            "agent: Thinking\nagent: Done.\nagent: Again.\n"
        );
        // A draft cut short by a status is closed on its own line.
        let cut = [
            draft(1, "Hal", ArtifactChunk::First),
            status(TaskState::Failed, Some("model failed")),
        ];
        assert_eq!(
            print(Layout::Chat, &cut),
            "agent: Hal\nagent: model failed\n[FAILED]\n"
        );
    }

    #[test]
    fn a_chat_leaves_pending_actions_to_the_prompts_and_stops_are_one_line() {
        let waiting = asking(
            TaskState::InputRequired,
            serde_json::json!({"actions": [{"kind": "approval", "approvalId": "a-1",
                "toolCallId": "c-1", "toolName": "write_file", "input": {}}]}),
        );
        assert_eq!(
            print(Layout::Chat, std::slice::from_ref(&waiting)),
            "agent: Waiting for you to approve write_file.\n"
        );
        assert_eq!(
            print(Layout::Full, &[waiting]),
            "● INPUT_REQUIRED  Waiting for you to approve write_file.\n  \
             approval  write_file {}  approvalId=a-1 toolCallId=c-1\n"
        );
        let stopped = asking(
            TaskState::InputRequired,
            serde_json::json!({"stopped": "max-steps"}),
        );
        assert_eq!(
            print(Layout::Chat, &[stopped]),
            "[stopped: max-steps] Waiting for you to approve write_file. (the next message starts a new task)\n"
        );
    }

    #[test]
    fn a_chat_shows_what_the_agent_says_and_where_the_turn_stops() {
        let streamed = [
            status(TaskState::Working, None),
            chunk("hello", ArtifactChunk::Whole),
            status(TaskState::Completed, None),
        ];
        assert_eq!(print(Layout::Chat, &streamed), "agent: hello\n");
        let question = [status(TaskState::InputRequired, Some("Which colour?"))];
        assert_eq!(
            print(Layout::Chat, &question),
            "agent: Which colour?\n[INPUT_REQUIRED]\n"
        );
    }
}
