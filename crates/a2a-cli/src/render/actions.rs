//! A run's pending actions and stops as a person reads them: a block per action for
//! `chat`, one line per action for `send`, `get` and streams.

use std::fmt::Write as _;

use a2a_types::Message;
use serde_json::Value;

use super::Style;
use crate::actions::{self, Action, ActionKind};

/// One action on one line: kind, tool name and arguments (compact JSON), then its ids.
pub(crate) fn line(style: Style, action: &Action) -> String {
    let mut out = format!(
        "{}  {} {}",
        style.bold(action.kind_name()),
        action.tool_name,
        compact(&action.input)
    );
    let mut ids = Vec::new();
    if let ActionKind::Approval { approval_id, token } = &action.kind {
        ids.push(format!("approvalId={approval_id}"));
        ids.push(format!("toolCallId={}", action.tool_call_id));
        if let Some(token) = token {
            ids.push(format!("token={token}"));
        }
    } else if !action.tool_call_id.is_empty() {
        ids.push(format!("toolCallId={}", action.tool_call_id));
    }
    if !ids.is_empty() {
        let _ = write!(out, "  {}", style.dim(&ids.join(" ")));
    }
    out.push('\n');
    out
}

/// One action as the chat shows it before asking: what the tool is, and its arguments as
/// indented, pretty JSON.
pub(crate) fn block(style: Style, action: &Action) -> String {
    let title = match &action.kind {
        ActionKind::Approval { .. } => {
            format!("{} wants to run", style.bold(&action.tool_name))
        }
        ActionKind::ClientTool => format!(
            "{} is yours to run; type its result",
            style.bold(&action.tool_name)
        ),
        ActionKind::Other(kind) => format!(
            "{} ({kind}): this client cannot answer it",
            style.bold(&action.tool_name)
        ),
    };
    let mut out = format!("{} {title}\n", style.dim("▸"));
    let pretty = serde_json::to_string_pretty(&action.input).unwrap_or_default();
    for json_line in pretty.lines() {
        let _ = writeln!(out, "    {json_line}");
    }
    out
}

/// The one-line notice of a stopped run: `[stopped: REASON] TEXT`.
pub(crate) fn stop_notice(style: Style, reason: &str, text: &str) -> String {
    let mut out = format!(
        "{}{}{}",
        style.dim("["),
        style.bold(&format!("stopped: {reason}")),
        style.dim("]")
    );
    if !text.is_empty() {
        let _ = write!(out, " {}", text.replace('\n', " "));
    }
    if reason == actions::RECONCILE_STOP {
        let _ = write!(out, " {}", style.dim(&format!("({})", settle_hint())));
    } else if reason != actions::RESUMABLE_STOP {
        let _ = write!(
            out,
            " {}",
            style.dim("(the next message starts a new task)")
        );
    }
    out.push('\n');
    out
}

/// The text of a message without the run's own data parts (actions, stops), which are
/// shown as lines of their own.
pub(crate) fn message_text(message: &Message) -> String {
    message
        .parts
        .iter()
        .filter(|part| !actions::is_run_part(part))
        .map(super::parts::part)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Lines listing the actions a status message waits for, each indented by `indent`; for a
/// stopped run, the reason.
pub(crate) fn status_lines(style: Style, message: Option<&Message>, indent: &str) -> String {
    let mut out = String::new();
    for action in actions::pending(message) {
        let _ = write!(out, "{indent}{}", line(style, &action));
    }
    if let Some(reason) = actions::stopped(message) {
        let _ = writeln!(out, "{indent}{}", style.dim(&format!("stopped: {reason}")));
    }
    for (id, name, input) in actions::to_reconcile(message) {
        let _ = writeln!(
            out,
            "{indent}{}  {name} {}  {}",
            style.bold("settle"),
            compact(&input),
            style.dim(&format!("toolCallId={id}"))
        );
    }
    if actions::stopped(message) == Some(actions::RECONCILE_STOP) {
        let _ = writeln!(out, "{indent}{}", style.dim(&settle_hint()));
    }
    out
}

/// How an operator settles a run stopped for tool reconciliation with `a2a send`.
fn settle_hint() -> String {
    format!(
        "settle with --task-id TASK --data '{{\"{}\": [{{\"toolCallId\": \"…\", \"output\": …}}]}}'",
        actions::RECONCILED_KEY
    )
}

fn compact(value: &Value) -> String {
    if value.is_null() {
        "{}".to_owned()
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The actions' fixture without its action of an unknown kind.
    fn asking() -> Message {
        actions::tests::asking_for(false)
    }

    #[test]
    fn each_action_is_one_line_with_its_ids() {
        let lines = status_lines(Style::plain(), Some(&asking()), "  ");
        assert_eq!(
            lines,
            "  approval  write_file {\"path\":\"a.txt\",\"text\":\"A\"}  approvalId=approval-1 toolCallId=call-1 token=tok\n  \
             clientTool  get_location {}  toolCallId=call-2\n"
        );
    }

    #[test]
    fn a_run_stopped_for_reconciliation_lists_the_calls_to_settle_and_how() {
        let message = Message::new(
            a2a_types::Role::Agent,
            vec![a2a_types::Part::data(serde_json::json!({
                "stopped": "tool-reconciliation-required",
                "reconcile": [{"toolCallId": "call-9", "toolName": "slow_change", "input": {"seconds": 3}}]
            }))],
        );
        let lines = status_lines(Style::plain(), Some(&message), "  ");
        assert_eq!(
            lines,
            "  stopped: tool-reconciliation-required\n  \
             settle  slow_change {\"seconds\":3}  toolCallId=call-9\n  \
             settle with --task-id TASK --data '{\"reconciledToolResults\": [{\"toolCallId\": \"…\", \"output\": …}]}'\n"
        );
        let notice = stop_notice(Style::plain(), "tool-reconciliation-required", "Stopped.");
        assert!(notice.contains("--data"), "{notice}");
        assert!(!notice.contains("new task"), "{notice}");
    }

    #[test]
    fn the_chat_shows_arguments_as_pretty_json() {
        let actions = actions::pending(Some(&asking()));
        assert_eq!(
            block(Style::plain(), &actions[0]),
            "▸ write_file wants to run\n    {\n      \"path\": \"a.txt\",\n      \"text\": \"A\"\n    }\n"
        );
        assert_eq!(
            block(Style::plain(), &actions[1]),
            "▸ get_location is yours to run; type its result\n    {}\n"
        );
    }

    #[test]
    fn the_run_parts_are_not_shown_as_json() {
        assert_eq!(
            message_text(&asking()),
            "Waiting for you to approve write_file, run get_location."
        );
    }

    #[test]
    fn a_stop_is_one_line() {
        assert_eq!(
            stop_notice(Style::plain(), "max-steps", "The run stopped (max-steps)."),
            "[stopped: max-steps] The run stopped (max-steps). (the next message starts a new task)\n"
        );
        assert_eq!(
            stop_notice(Style::plain(), "drained", "Paused."),
            "[stopped: drained] Paused.\n"
        );
    }
}
