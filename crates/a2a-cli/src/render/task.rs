//! Tasks, messages, artifacts and parts as a person reads them.

use std::fmt::Write as _;

use a2a_types::{Artifact, Message, Role, Task, TaskStatus};

use super::Style;
use super::parts::parts;

/// `user` or `agent`.
pub(crate) fn role(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Agent => "agent",
        Role::Unspecified => "unknown",
    }
}

/// A direct agent reply: `agent: TEXT`, and its context.
pub(crate) fn message(style: Style, message: &Message) -> String {
    let mut out = format!(
        "{} {}\n",
        style.bold(&format!("{}:", role(message.role))),
        parts(&message.parts)
    );
    if let Some(context_id) = &message.context_id {
        let _ = writeln!(out, "  {} {context_id}", style.dim("context"));
    }
    out
}

/// The title line of an artifact, before its content.
pub(crate) fn artifact_title(style: Style, artifact: &Artifact) -> String {
    let name = if artifact.name.is_empty() {
        "artifact"
    } else {
        artifact.name.as_str()
    };
    format!("{}\n", style.dim(&format!("── {name} ──")))
}

/// An artifact: its title, then its content, ending with a newline.
pub(crate) fn artifact(style: Style, artifact: &Artifact) -> String {
    let mut out = artifact_title(style, artifact);
    out.push_str(&parts(&artifact.parts));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `● STATE  task ID`: the line that opens a task, and every status change in a stream.
pub(crate) fn status_line(style: Style, status: &TaskStatus) -> String {
    let mut line = format!("{} {}", style.dim("●"), style.state(status.state));
    let text = status.message.as_ref().map(super::actions::message_text);
    if let Some(text) = text.filter(|text| !text.is_empty()) {
        let _ = write!(line, "  {text}");
    }
    line.push('\n');
    // A run's pending actions (or why it stopped), one line each.
    line.push_str(&super::actions::status_lines(
        style,
        status.message.as_ref(),
        "  ",
    ));
    line
}

/// A whole task: ids and state, the history when `history` (and the task carries one), the
/// status message, then every artifact.
pub(crate) fn task(style: Style, task: &Task, history: bool) -> String {
    let mut out = format!(
        "{} {}  {}\n",
        style.bold("task"),
        task.id,
        style.state(task.status.state)
    );
    if !task.context_id.is_empty() {
        let _ = writeln!(out, "  {} {}", style.dim("context"), task.context_id);
    }
    if let Some(timestamp) = &task.status.timestamp {
        let _ = writeln!(out, "  {} {timestamp}", style.dim("updated"));
    }
    if history && !task.history.is_empty() {
        let _ = writeln!(out, "  {}", style.dim("history"));
        for message in &task.history {
            let _ = writeln!(
                out,
                "    {} {}",
                style.dim(&format!("{}:", role(message.role))),
                parts(&message.parts)
            );
        }
    }
    if let Some(message) = &task.status.message {
        let _ = writeln!(
            out,
            "  {} {}",
            style.dim(&format!("{}:", role(message.role))),
            super::actions::message_text(message)
        );
        out.push_str(&super::actions::status_lines(style, Some(message), "    "));
    }
    for each in &task.artifacts {
        out.push_str(&artifact(style, each));
    }
    out
}

#[cfg(test)]
mod tests {
    use a2a_types::{ContextId, TaskId, TaskState};

    use super::*;

    #[test]
    fn a_task_shows_state_status_message_and_artifacts() {
        let mut task = Task::new(
            TaskId::new("t1"),
            ContextId::new("c1"),
            TaskState::Completed,
        );
        task.status.timestamp = None;
        task.status.message = Some(Message::agent_text("done"));
        task.artifacts
            .push(Artifact::from_text("line 1\nline 2").with_name("out"));
        task.history.push(Message::user_text("do it"));
        let summary =
            "task t1  COMPLETED\n  context c1\n  agent: done\n── out ──\nline 1\nline 2\n";
        assert_eq!(super::task(Style::plain(), &task, false), summary);
        let with_history = super::task(Style::plain(), &task, true);
        assert!(
            with_history.contains("  history\n    user: do it\n"),
            "{with_history}"
        );
    }
}
