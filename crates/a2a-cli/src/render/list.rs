//! Lists: a page of tasks as a table, push-notification configs one per line.

use std::fmt::Write as _;

use a2a_types::{Task, TaskPushNotificationConfig};

use super::Style;

/// The widest state name (`INPUT_REQUIRED`).
const STATE_WIDTH: usize = 14;

/// A table of tasks: id, state, context, last update and the status text, one per line.
pub(crate) fn tasks(style: Style, tasks: &[Task]) -> String {
    let id_width = tasks
        .iter()
        .map(|task| task.id.as_str().len())
        .max()
        .unwrap_or(0)
        .max("TASK".len());
    let context_width = tasks
        .iter()
        .map(|task| task.context_id.as_str().len())
        .max()
        .unwrap_or(0)
        .max("CONTEXT".len());
    let mut out = style.dim(&format!(
        "{:id_width$}  {:STATE_WIDTH$}  {:context_width$}  UPDATED",
        "TASK", "STATE", "CONTEXT"
    ));
    out.push('\n');
    for each in tasks {
        let updated = each
            .status
            .timestamp
            .map(|timestamp| timestamp.to_string())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{:id_width$}  {}  {:context_width$}  {updated}",
            each.id.as_str(),
            style.state_padded(each.status.state, STATE_WIDTH),
            each.context_id.as_str(),
        );
    }
    out
}

/// The line under a page of tasks: how many there are and how to get the next page.
pub(crate) fn page_footer(
    style: Style,
    shown: usize,
    total_size: i32,
    next_page_token: &str,
) -> String {
    let mut out = style.dim(&format!("{shown} of {total_size} tasks"));
    if !next_page_token.is_empty() {
        out.push_str(&style.dim(&format!("; next page: --page-token {next_page_token}")));
    }
    out.push('\n');
    out
}

/// One push config: id, URL, task, and whether a token or credentials are set (never
/// their values).
pub(crate) fn push_config(style: Style, config: &TaskPushNotificationConfig) -> String {
    let id = config.id.as_ref().map_or("-", |id| id.as_str());
    let mut out = format!("{} {id}  {}", style.bold("config"), config.url);
    if let Some(task_id) = &config.task_id {
        let _ = write!(out, "  {} {task_id}", style.dim("task"));
    }
    if config.token.is_some() {
        let _ = write!(out, "  {}", style.dim("token set"));
    }
    if let Some(authentication) = &config.authentication {
        let _ = write!(out, "  {} {}", style.dim("auth"), authentication.scheme);
        if authentication.credentials.is_some() {
            let _ = write!(out, " {}", style.dim("(credentials set)"));
        }
    }
    out.push('\n');
    out
}

/// A task's state on one line, for `cancel`.
pub(crate) fn task_state(style: Style, task: &Task) -> String {
    format!(
        "{} {}  {}\n",
        style.bold("task"),
        task.id,
        style.state(task.status.state)
    )
}

#[cfg(test)]
mod tests {
    use a2a_types::{AuthenticationInfo, ContextId, TaskId, TaskState};

    use super::*;

    #[test]
    fn a_task_table_lines_up() {
        let mut first = Task::new(
            TaskId::new("t-1"),
            ContextId::new("c-1"),
            TaskState::Working,
        );
        first.status.timestamp = None;
        let mut second = Task::new(
            TaskId::new("t-22"),
            ContextId::new("c-1"),
            TaskState::Completed,
        );
        second.status.timestamp = None;
        assert_eq!(
            tasks(Style::plain(), &[first, second]),
            "TASK  STATE           CONTEXT  UPDATED\n\
             t-1   WORKING         c-1      \n\
             t-22  COMPLETED       c-1      \n"
        );
    }

    #[test]
    fn push_configs_never_show_token_or_credentials() {
        let mut config = TaskPushNotificationConfig::new("https://hook.example/x");
        config.token = Some("tok-secret".into());
        config.authentication = Some(AuthenticationInfo {
            scheme: "Bearer".into(),
            credentials: Some("cred-secret".into()),
        });
        let line = push_config(Style::plain(), &config);
        assert!(!line.contains("secret"), "{line}");
        assert!(line.contains("token set") && line.contains("auth Bearer (credentials set)"));
    }
}
