//! `a2a list URL`: the agent's tasks, filtered and paged (ListTasks).

use a2a_types::{ContextId, ListTasksRequest, ListTasksResponse, Task, TaskState, Timestamp};

use crate::client_args::ClientArgs;
use crate::connection;
use crate::error::UsageError;
use crate::output;
use crate::render;

/// `a2a list`.
#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    client: ClientArgs,

    /// Only tasks of this conversation
    #[arg(long, value_name = "ID", help_heading = "Filters")]
    context_id: Option<String>,

    /// Only tasks in this state, e.g. working, input-required, completed (repeatable: one
    /// query per state)
    #[arg(long = "state", value_name = "STATE", value_parser = parse_state, help_heading = "Filters")]
    states: Vec<TaskState>,

    /// Only tasks whose status changed at or after this time: RFC 3339, or a duration
    /// meaning that long ago (e.g. 10m, 2h)
    #[arg(long, value_name = "TIME", value_parser = parse_after, help_heading = "Filters")]
    status_timestamp_after: Option<Timestamp>,

    /// Tasks per page (1 to 100; the agent's default is 50)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..=100), help_heading = "Paging")]
    page_size: Option<i32>,

    /// Start at this page (a previous page's next-page token)
    #[arg(long, value_name = "TOKEN", help_heading = "Paging")]
    page_token: Option<String>,

    /// Follow the next-page tokens to the last page
    #[arg(long, help_heading = "Paging")]
    all: bool,

    /// Return at most N history messages per task (printed in full, not as a table)
    #[arg(long, value_name = "N", help_heading = "Content")]
    history_length: Option<u16>,

    /// Return the tasks' artifacts (printed in full, not as a table)
    #[arg(long, help_heading = "Content")]
    include_artifacts: bool,
}

/// Lists the tasks: a table (or each task in full when history or artifacts were asked
/// for), or with `--json` each page's ListTasksResponse on its own line.
pub(crate) async fn run(args: ListArgs) -> anyhow::Result<()> {
    if args.states.len() > 1 && args.page_token.is_some() {
        return Err(UsageError::new("--page-token goes with at most one --state").into());
    }
    let connection = connection::open(&args.client).await?;
    let states = if args.states.is_empty() {
        vec![TaskState::Unspecified]
    } else {
        args.states.clone()
    };
    let mut tasks: Vec<Task> = Vec::new();
    let mut last_page = ListTasksResponse::default();
    let mut total_size = 0;
    for state in states {
        let mut request = first_request(&args, state);
        loop {
            let page = connection.list_tasks(request.clone()).await?;
            if args.client.json {
                output::json_line(&page)?;
            }
            tasks.extend(page.tasks.iter().cloned());
            let next = page.next_page_token.clone();
            last_page = page;
            if !args.all || next.is_empty() {
                break;
            }
            request.page_token = next;
        }
        total_size += last_page.total_size;
    }
    if args.client.json {
        return Ok(());
    }
    let style = args.client.style();
    if args.include_artifacts || args.history_length.is_some_and(|length| length > 0) {
        let texts: Vec<String> = tasks
            .iter()
            .map(|task| render::task::task(style, task, true))
            .collect();
        output::text(&texts.join("\n"))?;
    } else if !tasks.is_empty() {
        output::text(&render::list::tasks(style, &tasks))?;
    }
    let next = if args.all || args.states.len() > 1 {
        ""
    } else {
        last_page.next_page_token.as_str()
    };
    output::text(&render::list::page_footer(
        style,
        tasks.len(),
        total_size,
        next,
    ))?;
    Ok(())
}

fn first_request(args: &ListArgs, state: TaskState) -> ListTasksRequest {
    ListTasksRequest {
        tenant: String::new(),
        context_id: args.context_id.clone().map(ContextId::new),
        status: state,
        page_size: args.page_size,
        page_token: args.page_token.clone().unwrap_or_default(),
        history_length: args.history_length.map(i32::from),
        status_timestamp_after: args.status_timestamp_after,
        include_artifacts: args.include_artifacts.then_some(true),
    }
}

fn parse_state(text: &str) -> Result<TaskState, String> {
    match TaskState::from_name(text) {
        Some(TaskState::Unspecified) | None => Err(
            "not a task state (submitted, working, input-required, auth-required, completed, failed, canceled, rejected)"
                .to_owned(),
        ),
        Some(state) => Ok(state),
    }
}

fn parse_after(text: &str) -> Result<Timestamp, String> {
    if let Ok(timestamp) = Timestamp::parse(text) {
        return Ok(timestamp);
    }
    let ago = crate::client_args::parse_duration(text)
        .map_err(|_| "neither an RFC 3339 time nor a duration (e.g. 10m)".to_owned())?;
    let ago = chrono::Duration::from_std(ago).map_err(|_| "too long ago".to_owned())?;
    Ok(Timestamp::from(chrono::Utc::now() - ago))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_read_in_any_spelling_but_not_unspecified() {
        assert_eq!(parse_state("working"), Ok(TaskState::Working));
        assert_eq!(parse_state("input-required"), Ok(TaskState::InputRequired));
        assert_eq!(
            parse_state("TASK_STATE_COMPLETED"),
            Ok(TaskState::Completed)
        );
        assert!(parse_state("unspecified").is_err());
        assert!(parse_state("napping").is_err());
    }

    #[test]
    fn after_takes_a_time_or_a_duration_ago() {
        let exact = parse_after("2026-01-02T03:04:05Z").unwrap();
        assert_eq!(exact.to_string(), "2026-01-02T03:04:05Z");
        let recent = parse_after("10m").unwrap();
        let age = chrono::Utc::now() - recent.as_datetime();
        assert!(age >= chrono::Duration::minutes(10) && age < chrono::Duration::minutes(11));
        assert!(parse_after("yesterday").is_err());
    }
}
