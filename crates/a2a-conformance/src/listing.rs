//! Rules on ListTasks.
//!
//! Rules on ListTasks: the answer's members, artifacts left out unless asked for, the
//! order, the context and status filters, and paging with page tokens.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::context::{Context, id_of, state, user_message};
use crate::outcome::{Checked, Outcome};
use crate::rule::{Rule, rule};
use crate::wire::{Exchange, Op};

/// The rules of this area.
pub(crate) const RULES: &[Rule] = &[
    SHAPE,
    ARTIFACTS,
    ORDER,
    CONTEXT_FILTER,
    STATUS_FILTER,
    PAGING,
];

rule!(SHAPE, "listing.shape", Must, "3.1.4", V1, false,
    "ListTasks answers tasks (an array), nextPageToken (always, \"\" on the last page), pageSize and totalSize." => shape);
rule!(ARTIFACTS, "listing.artifacts-absent", Must, "3.1.4", V1, true,
    "Without includeArtifacts, no listed task has an artifacts member." => artifacts);
rule!(ORDER, "listing.order", Must, "3.1.4", V1, true,
    "Listed tasks are sorted by status timestamp, newest first." => order);
rule!(CONTEXT_FILTER, "listing.context-filter", Must, "3.1.4", V1, true,
    "ListTasks with contextId lists only that context's tasks, the new one among them." => context_filter);
rule!(STATUS_FILTER, "listing.status-filter", Must, "3.1.4", V1, true,
    "ListTasks with status lists only tasks in that state." => status_filter);
rule!(PAGING, "listing.paging", Must, "3.1.4", V1, true,
    "With pageSize 1, each page holds one task and a nextPageToken that leads to the next, until \"\" on the last." => paging);

async fn list(context: &Context, params: Value) -> Result<(Exchange, Value), Outcome> {
    let exchange = context.call(Op::ListTasks, params).await?;
    let answer = exchange.ok("ListTasks")?.clone();
    Ok((exchange, answer))
}

fn tasks(answer: &Value) -> Vec<Value> {
    answer
        .get("tasks")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

async fn shape(context: Arc<Context>) -> Checked {
    let (exchange, answer) = list(&context, json!({"pageSize": 5})).await?;
    let mut problems = Vec::new();
    if !answer.get("tasks").is_some_and(Value::is_array) {
        problems.push("tasks is not an array");
    }
    if !answer.get("nextPageToken").is_some_and(Value::is_string) {
        problems.push("nextPageToken is missing");
    }
    if !answer.get("pageSize").is_some_and(Value::is_number) {
        problems.push("pageSize is missing");
    }
    if !answer.get("totalSize").is_some_and(Value::is_number) {
        problems.push("totalSize is missing");
    }
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(Outcome::fail(problems.join("; ")).with(&exchange).expected(
            "{\"tasks\": […], \"nextPageToken\": \"…\", \"pageSize\": n, \"totalSize\": n}",
        ))
    }
}

/// A task in a fresh context, and that context.
async fn task_in_new_context(context: &Context, prefix: &str) -> Result<(Value, String), Outcome> {
    let exchange = context.send(prefix, "Hello from a2a test", None).await?;
    let answer = exchange.ok("SendMessage")?;
    let Some(task) = answer.get("task") else {
        return Err(Outcome::skip(
            "the agent answered with a direct Message, so there is no task to list",
        ));
    };
    let context_id = task
        .get("contextId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok((task.clone(), context_id))
}

/// A second task in `context_id`.
async fn another_in(context: &Context, context_id: &str) -> Result<Value, Outcome> {
    let mut message = user_message("a2a-test", "And another");
    message["contextId"] = json!(context_id);
    let exchange = context
        .call(Op::SendMessage, json!({"message": message}))
        .await?;
    let answer = exchange.ok("SendMessage")?;
    answer
        .get("task")
        .cloned()
        .ok_or_else(|| Outcome::skip("the agent answered with a direct Message"))
}

async fn artifacts(context: Arc<Context>) -> Checked {
    let (_, context_id) = task_in_new_context(&context, "tck-artifact-text").await?;
    let (exchange, answer) = list(&context, json!({"contextId": context_id})).await?;
    if let Some(task) = tasks(&answer)
        .iter()
        .find(|task| task.get("artifacts").is_some())
    {
        return Err(Outcome::fail(format!(
            "task {} carries artifacts although includeArtifacts was not set",
            id_of(task)
        ))
        .with(&exchange)
        .expected("no artifacts member"));
    }
    Ok(Outcome::pass())
}

async fn order(context: Arc<Context>) -> Checked {
    let (_, context_id) = task_in_new_context(&context, "a2a-test").await?;
    another_in(&context, &context_id).await?;
    let (exchange, answer) = list(&context, json!({"contextId": context_id})).await?;
    let stamps: Vec<_> = tasks(&answer)
        .iter()
        .map(|task| {
            task.pointer("/status/timestamp")
                .and_then(Value::as_str)
                .and_then(|text| a2a_types::Timestamp::parse(text).ok())
                .map(|stamp| stamp.unix_millis())
        })
        .collect();
    if stamps.iter().any(Option::is_none) {
        return Err(Outcome::skip(
            "a listed task has no status.timestamp to order by",
        ));
    }
    if stamps.windows(2).all(|pair| pair[0] >= pair[1]) {
        Ok(Outcome::pass())
    } else {
        Err(
            Outcome::fail("the tasks are not sorted by status.timestamp, newest first")
                .with(&exchange)
                .expected("descending status.timestamp"),
        )
    }
}

async fn context_filter(context: Arc<Context>) -> Checked {
    let (task, context_id) = task_in_new_context(&context, "a2a-test").await?;
    let (exchange, answer) = list(&context, json!({"contextId": context_id})).await?;
    let listed = tasks(&answer);
    if let Some(other) = listed
        .iter()
        .find(|listed| listed.get("contextId").and_then(Value::as_str) != Some(&context_id))
    {
        return Err(Outcome::fail(format!(
            "task {} of another context is listed",
            id_of(other)
        ))
        .with(&exchange)
        .expected(format!("only tasks of context {context_id}")));
    }
    if !listed.iter().any(|listed| id_of(listed) == id_of(&task)) {
        return Err(
            Outcome::fail(format!("the new task {} is not listed", id_of(&task)))
                .with(&exchange)
                .expected("the task just made"),
        );
    }
    Ok(Outcome::pass())
}

async fn status_filter(context: Arc<Context>) -> Checked {
    let (task, context_id) = task_in_new_context(&context, "a2a-test").await?;
    let wanted = state(&task).to_owned();
    let (exchange, answer) =
        list(&context, json!({"contextId": context_id, "status": wanted})).await?;
    let listed = tasks(&answer);
    if let Some(other) = listed.iter().find(|listed| state(listed) != wanted) {
        return Err(Outcome::fail(format!(
            "task {} in state {} is listed",
            id_of(other),
            state(other)
        ))
        .with(&exchange)
        .expected(format!("only tasks in {wanted}")));
    }
    if !listed.iter().any(|listed| id_of(listed) == id_of(&task)) {
        return Err(Outcome::fail("the task in that state is not listed")
            .with(&exchange)
            .expected("the task just made"));
    }
    Ok(Outcome::pass())
}

async fn paging(context: Arc<Context>) -> Checked {
    let (_, context_id) = task_in_new_context(&context, "a2a-test").await?;
    another_in(&context, &context_id).await?;
    let mut seen = Vec::new();
    let mut token = String::new();
    for page in 0..5 {
        let mut params = json!({"contextId": context_id, "pageSize": 1});
        if !token.is_empty() {
            params["pageToken"] = json!(token);
        }
        let (exchange, answer) = list(&context, params).await?;
        let listed = tasks(&answer);
        if listed.len() > 1 {
            return Err(
                Outcome::fail(format!("page {page} holds {} tasks", listed.len()))
                    .with(&exchange)
                    .expected("at most pageSize (1) tasks"),
            );
        }
        for task in &listed {
            if seen.contains(&id_of(task)) {
                return Err(Outcome::fail(format!(
                    "task {} comes again on page {page}",
                    id_of(task)
                ))
                .with(&exchange)
                .expected("each task on one page"));
            }
            seen.push(id_of(task));
        }
        let Some(next) = answer.get("nextPageToken").and_then(Value::as_str) else {
            return Err(Outcome::fail("nextPageToken is missing")
                .with(&exchange)
                .expected("a nextPageToken on every page"));
        };
        if next.is_empty() {
            return if seen.len() >= 2 {
                Ok(Outcome::pass())
            } else {
                Err(Outcome::fail(format!(
                    "the pages ended after {} of the context's 2 tasks",
                    seen.len()
                ))
                .with(&exchange)
                .expected("both tasks over the pages"))
            };
        }
        token = next.to_owned();
    }
    Err(
        Outcome::fail("five pages of one task each for a context of two tasks")
            .expected("nextPageToken \"\" on the last page"),
    )
}
