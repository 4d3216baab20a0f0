//! Rules on each operation's success.
//!
//! Rules on each operation's success: the shape of SendMessage's answer, blocking and
//! non-blocking sends, GetTask with and without historyLength, contexts, cancelling a running
//! task, and the extended card.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::context::{Context, id_of, is_terminal, state, user_message};
use crate::outcome::{Checked, Outcome};
use crate::rule::{Rule, rule};
use crate::wire::Op;

/// The rules of this area.
pub(crate) const RULES: &[Rule] = &[
    SEND_SHAPE,
    SEND_BLOCKING,
    RETURN_IMMEDIATELY,
    GET_TASK,
    HISTORY_LENGTH,
    CONTEXT,
    CANCEL_RUNNING,
    EXTENDED_CARD,
];

rule!(SEND_SHAPE, "operations.send-message", Must, "3.1.1", V1, true,
    "SendMessage answers exactly one of task or message; a task has id, contextId and a valid status.state, a message has messageId, role ROLE_AGENT, parts and contextId." => send_shape);
rule!(SEND_BLOCKING, "operations.send-blocking", Must, "3.2.2", V1, true,
    "A SendMessage without returnImmediately answers only once the task is terminal or interrupted." => send_blocking);
rule!(RETURN_IMMEDIATELY, "operations.return-immediately", Must, "3.2.2", V1, true,
    "With returnImmediately, SendMessage answers while the task still works (SUBMITTED or WORKING)." => return_immediately);
rule!(GET_TASK, "operations.get-task", Must, "3.1.3", V1, true,
    "GetTask of a task just made answers that task: the same id, contextId and state." => get_task);
rule!(HISTORY_LENGTH, "operations.history-length", Must, "3.2.4", V1, true,
    "GetTask with historyLength 1 returns at most one history message, and with 0 none." => history_length);
rule!(CONTEXT, "operations.context-id", Must, "3.4.1", V1, true,
    "The agent returns a contextId, and a follow-up sent in that context stays in it." => context);
rule!(CANCEL_RUNNING, "operations.cancel", Must, "3.1.5", V1, true,
    "CancelTask of a running task answers the task, CANCELED." => cancel_running);
rule!(EXTENDED_CARD, "operations.extended-card", Must, "3.1.11", V1, false,
    "When the card declares extendedAgentCard, GetExtendedAgentCard answers a card with the required members." => extended_card);

const STATES: [&str; 8] = [
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_REJECTED",
    "TASK_STATE_AUTH_REQUIRED",
];

/// Whether `holder.member` is missing or an empty string.
fn blank(holder: &Value, member: &str) -> bool {
    holder
        .get(member)
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
}

/// The problems of `task` as a Task.
pub(crate) fn task_problems(task: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if blank(task, "id") {
        problems.push("the task has no id".to_owned());
    }
    if blank(task, "contextId") {
        problems.push("the task has no contextId".to_owned());
    }
    match task.pointer("/status/state").and_then(Value::as_str) {
        Some(state) if STATES.contains(&state) => {}
        Some(state) => problems.push(format!("status.state {state:?} is not a TaskState name")),
        None => problems.push("the task has no status.state".to_owned()),
    }
    problems
}

/// The problems of `message` as an agent's Message.
pub(crate) fn message_problems(message: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if !message.get("messageId").is_some_and(Value::is_string) {
        problems.push("the message has no messageId".to_owned());
    }
    if message.get("role").and_then(Value::as_str) != Some("ROLE_AGENT") {
        problems.push(format!(
            "the message's role is {}, not ROLE_AGENT",
            message
                .get("role")
                .map_or("absent".to_owned(), Value::to_string)
        ));
    }
    if message
        .get("parts")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        problems.push("the message has no parts".to_owned());
    }
    if blank(message, "contextId") {
        problems.push("the agent's message has no contextId".to_owned());
    }
    problems
}

async fn send_shape(context: Arc<Context>) -> Checked {
    let exchange = context
        .send("a2a-test", "Hello from a2a test", None)
        .await?;
    let answer = exchange.ok("SendMessage")?;
    let problems = match (answer.get("task"), answer.get("message")) {
        (Some(task), None) => task_problems(task),
        (None, Some(message)) => message_problems(message),
        (Some(_), Some(_)) => vec!["the answer sets both task and message".to_owned()],
        (None, None) => vec!["the answer sets neither task nor message".to_owned()],
    };
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(Outcome::fail(problems.join("; "))
            .with(&exchange)
            .expected("{\"task\": Task} or {\"message\": Message}"))
    }
}

async fn send_blocking(context: Arc<Context>) -> Checked {
    let (exchange, task) = context.task().await?;
    let interrupted = matches!(
        state(&task),
        "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED"
    );
    if is_terminal(&task) || interrupted {
        Ok(Outcome::pass())
    } else {
        Err(Outcome::fail(format!(
            "a blocking SendMessage answered a task still {}",
            state(&task)
        ))
        .with(&exchange)
        .expected("a terminal or interrupted task"))
    }
}

async fn return_immediately(context: Arc<Context>) -> Checked {
    context.behaviours()?;
    let exchange = context
        .send(
            "test-resubscribe-message-id",
            "work for a while",
            Some(json!({"returnImmediately": true})),
        )
        .await?;
    let answer = exchange.ok("SendMessage")?;
    let Some(task) = answer.get("task") else {
        return Err(Outcome::fail("the answer is not a task")
            .with(&exchange)
            .expected("{\"task\": …}"));
    };
    let _ = context
        .call(Op::CancelTask, json!({"id": id_of(task)}))
        .await;
    match state(task) {
        "TASK_STATE_SUBMITTED" | "TASK_STATE_WORKING" => Ok(Outcome::pass()),
        other => Err(Outcome::fail(format!(
            "with returnImmediately the answer came at {other}, after the work"
        ))
        .with(&exchange)
        .expected("a task in TASK_STATE_SUBMITTED or TASK_STATE_WORKING")),
    }
}

async fn get_task(context: Arc<Context>) -> Checked {
    let (_, task) = context.task().await?;
    let exchange = context
        .call(Op::GetTask, json!({"id": id_of(&task)}))
        .await?;
    let got = exchange.ok("GetTask")?;
    let mut problems = task_problems(got);
    for member in ["id", "contextId"] {
        if got.get(member) != task.get(member) {
            problems.push(format!(
                "{member} differs from the task SendMessage answered"
            ));
        }
    }
    if is_terminal(&task) && state(got) != state(&task) {
        problems.push(format!(
            "the state is {}, SendMessage said {}",
            state(got),
            state(&task)
        ));
    }
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(Outcome::fail(problems.join("; "))
            .with(&exchange)
            .expected(format!("the task {}", id_of(&task))))
    }
}

async fn history_length(context: Arc<Context>) -> Checked {
    let (_, task) = context.task().await?;
    let id = id_of(&task);
    for (length, most) in [(1, 1), (0, 0)] {
        let exchange = context
            .call(Op::GetTask, json!({"id": id, "historyLength": length}))
            .await?;
        let got = exchange.ok("GetTask")?;
        let count = got
            .get("history")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if count > most {
            return Err(Outcome::fail(format!(
                "historyLength {length} returned {count} history messages"
            ))
            .with(&exchange)
            .expected(format!("at most {most}")));
        }
    }
    Ok(Outcome::pass())
}

async fn context(context: Arc<Context>) -> Checked {
    let (exchange, task) = context.task().await?;
    let Some(context_id) = task.get("contextId").and_then(Value::as_str) else {
        return Err(Outcome::fail("the task has no contextId")
            .with(&exchange)
            .expected("a contextId"));
    };
    let mut message = user_message("a2a-test", "A follow-up in the same context");
    message["contextId"] = json!(context_id);
    let follow = context
        .call(Op::SendMessage, json!({"message": message}))
        .await?;
    let answer = follow.ok("SendMessage in the task's context")?;
    let got = answer
        .pointer("/task/contextId")
        .or_else(|| answer.pointer("/message/contextId"))
        .and_then(Value::as_str);
    if got == Some(context_id) {
        Ok(Outcome::pass())
    } else {
        Err(
            Outcome::fail(format!("the follow-up came back in context {got:?}"))
                .with(&follow)
                .expected(format!("contextId {context_id}")),
        )
    }
}

async fn cancel_running(context: Arc<Context>) -> Checked {
    context.behaviours()?;
    let task = context.running_task().await?;
    let exchange = context
        .call(Op::CancelTask, json!({"id": id_of(&task)}))
        .await?;
    let canceled = exchange.ok("CancelTask")?;
    let mut problems = task_problems(canceled);
    if state(canceled) != "TASK_STATE_CANCELED" {
        problems.push(format!("the task is {} after CancelTask", state(canceled)));
    }
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(Outcome::fail(problems.join("; "))
            .with(&exchange)
            .expected("the task, TASK_STATE_CANCELED"))
    }
}

async fn extended_card(context: Arc<Context>) -> Checked {
    if !context.card()?.capabilities.supports_extended_agent_card() {
        return Err(Outcome::skip(
            "the card does not declare capabilities.extendedAgentCard",
        ));
    }
    let exchange = context.call(Op::GetExtendedAgentCard, json!({})).await?;
    let card = exchange.ok("GetExtendedAgentCard")?;
    let missing: Vec<_> = [
        "name",
        "description",
        "supportedInterfaces",
        "version",
        "capabilities",
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
    ]
    .into_iter()
    .filter(|member| card.get(*member).is_none())
    .collect();
    if missing.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(
            Outcome::fail(format!("the extended card lacks {}", missing.join(", ")))
                .with(&exchange)
                .expected("an AgentCard with every REQUIRED member"),
        )
    }
}
