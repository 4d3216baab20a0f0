//! Rules on streams.
//!
//! Rules on streams: the first event, the order of the rest, the end at a terminal state,
//! the SSE framing, subscribing to a running, a finished and an unknown task, and resuming
//! with Last-Event-ID where the agent numbers its events.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::context::{Context, id_of, unknown_id, user_message};
use crate::expect::{self, Expected};
use crate::outcome::{Checked, Outcome};
use crate::rule::{Rule, rule};
use crate::wire::{Op, StreamRecord, is_final};

/// The rules of this area.
pub(crate) const RULES: &[Rule] = &[
    FIRST_EVENT,
    ENDS_AT_TERMINAL,
    ORDER,
    FRAMING,
    MESSAGE_ONLY,
    SUBSCRIBE_RUNNING,
    SUBSCRIBE_TERMINAL,
    SUBSCRIBE_UNKNOWN,
    LAST_EVENT_ID,
];

rule!(FIRST_EVENT, "streaming.first-event", Must, "3.1.2", V1, true,
    "SendStreamingMessage's first event is a task or a message." => first_event);
rule!(ENDS_AT_TERMINAL, "streaming.ends-at-terminal", Must, "3.1.2", V1, true,
    "The agent closes the stream once the task reaches a terminal state (or after a direct message)." => ends_at_terminal);
rule!(ORDER, "streaming.event-order", Must, "3.5.2", V1, true,
    "After the first task event, every event is a statusUpdate or artifactUpdate of that task and context, and nothing follows a terminal status." => order);
rule!(FRAMING, "streaming.framing", Must, "9.4.2", V1Http, true,
    "A stream answers 200 text/event-stream, every data is JSON (on JSON-RPC, a response with the request's id)." => framing);
rule!(MESSAGE_ONLY, "streaming.message-only", Must, "3.1.2", V1, true,
    "A stream answered by a direct message carries exactly that one message." => message_only);
rule!(SUBSCRIBE_RUNNING, "streaming.subscribe", Must, "3.1.6", V1, true,
    "SubscribeToTask of a running task starts with the task and ends when it is terminal." => subscribe_running);
rule!(SUBSCRIBE_TERMINAL, "streaming.subscribe-terminal", Must, "3.1.6", V1, true,
    "SubscribeToTask of a terminal task answers UnsupportedOperationError." => subscribe_terminal);
rule!(SUBSCRIBE_UNKNOWN, "streaming.subscribe-unknown", Must, "3.1.6", V1, false,
    "SubscribeToTask of an unknown id answers TaskNotFoundError." => subscribe_unknown);
rule!(LAST_EVENT_ID, "streaming.last-event-id", May, "3.1.6", V1Http, true,
    "Where a stream's events carry SSE ids, a SubscribeToTask resumed with Last-Event-ID sends none of the events up to that id again, and ends at the terminal state." => last_event_id);

/// A stream of an ordinary message, refused streams failing the check.
async fn streamed(context: &Context, prefix: &str) -> Result<StreamRecord, Outcome> {
    context.streaming()?;
    let record = context
        .stream(
            Op::SendStreamingMessage,
            json!({"message": user_message(prefix, "Hello from a2a test")}),
        )
        .await?;
    if let Some(error) = &record.refused {
        return Err(Outcome::fail(format!(
            "the agent refused the stream: {}",
            error.describe()
        ))
        .with(&record.exchange())
        .expected("a stream of events"));
    }
    Ok(record)
}

fn failure(record: &StreamRecord, reason: String, expected: &str) -> Outcome {
    Outcome::fail(reason)
        .with_text(&record.sent, &record.received)
        .expected(expected)
}

async fn first_event(context: Arc<Context>) -> Checked {
    let record = streamed(&context, "tck-stream-001").await?;
    match record.events.first() {
        Some(event) if event.get("task").is_some() || event.get("message").is_some() => {
            Ok(Outcome::pass())
        }
        Some(event) => Err(failure(
            &record,
            format!("the first event is {}", first_member(event)),
            "a task or a message first",
        )),
        None => Err(failure(
            &record,
            "the stream carried no event".to_owned(),
            "a task or a message first",
        )),
    }
}

fn first_member(event: &Value) -> String {
    event
        .as_object()
        .and_then(|members| members.keys().next().cloned())
        .unwrap_or_else(|| "not an object".to_owned())
}

async fn ends_at_terminal(context: Arc<Context>) -> Checked {
    let record = streamed(&context, "tck-stream-001").await?;
    let last = record.events.iter().rev().find_map(is_final);
    if record.open_after_final {
        return Err(failure(
            &record,
            format!(
                "the stream stayed open {} s after its final event",
                crate::wire::FINAL_GRACE.as_secs()
            ),
            "the agent closes the stream after a terminal state",
        ));
    }
    if last.is_none() {
        return Err(Outcome::skip(
            "the task did not reach a terminal state within the timeout",
        ));
    }
    if record.closed {
        Ok(Outcome::pass())
    } else {
        Err(Outcome::skip(
            "the task paused (interrupted) without ending the stream; the spec lets it stay open",
        ))
    }
}

async fn order(context: Arc<Context>) -> Checked {
    let record = streamed(&context, "tck-stream-artifact-chunked").await?;
    let Some(first) = record.events.first() else {
        return Err(failure(
            &record,
            "the stream carried no event".to_owned(),
            "events",
        ));
    };
    let Some(task) = first.get("task") else {
        return Ok(Outcome::pass());
    };
    let (task_id, context_id) = (task.get("id"), task.get("contextId"));
    let mut ended = false;
    for (index, event) in record.events.iter().enumerate().skip(1) {
        if ended {
            return Err(failure(
                &record,
                format!("event {index} follows the terminal status"),
                "nothing after a terminal status",
            ));
        }
        let update = event
            .get("statusUpdate")
            .or_else(|| event.get("artifactUpdate"));
        let Some(update) = update else {
            if event.get("task").is_some() && index + 1 == record.events.len() {
                // A final task snapshot before closing is allowed.
                continue;
            }
            return Err(failure(
                &record,
                format!("event {index} is {}", first_member(event)),
                "statusUpdate or artifactUpdate events",
            ));
        };
        if update.get("taskId") != task_id || update.get("contextId") != context_id {
            return Err(failure(
                &record,
                format!("event {index} names another task or context"),
                "the first task's taskId and contextId",
            ));
        }
        if event.get("statusUpdate").is_some() && is_final(event).is_some() {
            ended = true;
        }
    }
    Ok(Outcome::pass())
}

async fn framing(context: Arc<Context>) -> Checked {
    let record = streamed(&context, "tck-stream-001").await?;
    if !record
        .content_type
        .as_deref()
        .is_some_and(|media| media.starts_with("text/event-stream"))
    {
        return Err(failure(
            &record,
            format!("the stream's content type is {:?}", record.content_type),
            "text/event-stream",
        ));
    }
    if let Some(problem) = record.framing.first() {
        return Err(failure(
            &record,
            problem.clone(),
            "one JSON document per event",
        ));
    }
    Ok(Outcome::pass())
}

async fn message_only(context: Arc<Context>) -> Checked {
    context.behaviours()?;
    let record = streamed(&context, "tck-message-response").await?;
    if record
        .events
        .first()
        .and_then(|event| event.get("message"))
        .is_none()
    {
        return Err(Outcome::skip(
            "the agent answered with a task, not a direct message",
        ));
    }
    if record.events.len() != 1 {
        return Err(failure(
            &record,
            format!(
                "the stream carried {} events after the message",
                record.events.len() - 1
            ),
            "exactly one message, then the end",
        ));
    }
    if record.open_after_final {
        return Err(failure(
            &record,
            "the stream stayed open after the message".to_owned(),
            "the end right after the message",
        ));
    }
    Ok(Outcome::pass())
}

async fn subscribe_running(context: Arc<Context>) -> Checked {
    context.behaviours()?;
    context.streaming()?;
    let task = context.running_task().await?;
    let record = context
        .stream(Op::SubscribeToTask, json!({"id": id_of(&task)}))
        .await?;
    if let Some(error) = &record.refused {
        return Err(Outcome::fail(format!(
            "the agent refused the subscription: {}",
            error.describe()
        ))
        .with(&record.exchange())
        .expected("a stream starting with the task"));
    }
    if record
        .events
        .first()
        .and_then(|event| event.get("task"))
        .is_none()
    {
        return Err(failure(
            &record,
            format!(
                "the first event is {}",
                record
                    .events
                    .first()
                    .map_or("missing".to_owned(), first_member)
            ),
            "the task first",
        ));
    }
    if record.open_after_final {
        return Err(failure(
            &record,
            "the subscription stayed open after the terminal state".to_owned(),
            "the end at the terminal state",
        ));
    }
    if !record.closed {
        return Err(failure(
            &record,
            "the subscription did not end within the timeout".to_owned(),
            "the end at the terminal state",
        ));
    }
    Ok(Outcome::pass())
}

async fn subscribe_terminal(context: Arc<Context>) -> Checked {
    context.streaming()?;
    let task = context.terminal_task().await?;
    let record = context
        .stream(Op::SubscribeToTask, json!({"id": id_of(&task)}))
        .await?;
    expect::error(
        &context.target()?.binding,
        &record.exchange(),
        Expected::UnsupportedOperation,
    )?;
    Ok(Outcome::pass())
}

async fn subscribe_unknown(context: Arc<Context>) -> Checked {
    context.streaming()?;
    let record = context
        .stream(Op::SubscribeToTask, json!({"id": unknown_id()}))
        .await?;
    expect::error(
        &context.target()?.binding,
        &record.exchange(),
        Expected::TaskNotFound,
    )?;
    Ok(Outcome::pass())
}

async fn last_event_id(context: Arc<Context>) -> Checked {
    context.behaviours()?;
    context.streaming()?;
    let task = context.running_task().await?;
    let mut options = context.options();
    options.timeout = context.timeout.min(std::time::Duration::from_secs(2));
    let target = context.target()?;
    let first = target
        .wire
        .stream(Op::SubscribeToTask, json!({"id": id_of(&task)}), &options)
        .await;
    let Some(last_id) = first.event_ids.last().cloned() else {
        return Err(Outcome::skip("the agent's stream events carry no SSE id"));
    };
    let mut peer_options = context.options();
    peer_options.extensions = None;
    let mut again_context = context.http.clone();
    if let Ok(value) = http::HeaderValue::from_str(&last_id) {
        again_context
            .headers
            .push((http::HeaderName::from_static("last-event-id"), value));
    }
    let again = match (target.wire.jsonrpc(), target.wire.rest()) {
        (Some(_), _) => {
            let wire = crate::wire::JsonRpcWire::new(
                url::Url::parse(&target.url).map_err(|_| Outcome::skip("invalid URL"))?,
                again_context,
            );
            crate::wire::Wire::stream(
                &wire,
                Op::SubscribeToTask,
                json!({"id": id_of(&task)}),
                &peer_options,
            )
            .await
        }
        (None, Some(_)) => {
            let url = url::Url::parse(&target.url).map_err(|_| Outcome::skip("invalid URL"))?;
            let wire = crate::wire::RestWire::new(&url, target.tenant.clone(), again_context);
            crate::wire::Wire::stream(
                &wire,
                Op::SubscribeToTask,
                json!({"id": id_of(&task)}),
                &peer_options,
            )
            .await
        }
        (None, None) => return Err(Outcome::skip("not an HTTP interface")),
    };
    if let Some(error) = &again.refused {
        if matches!(
            error.code,
            crate::wire::ErrorCode::JsonRpc(-32004) | crate::wire::ErrorCode::Http(400)
        ) {
            return Err(Outcome::skip(
                "the task finished before the second subscription",
            ));
        }
        return Err(Outcome::fail(format!(
            "the subscription with Last-Event-ID was refused: {}",
            error.describe()
        ))
        .with(&again.exchange())
        .expected("a stream starting with the task"));
    }
    let repeated: Vec<_> = again
        .event_ids
        .iter()
        .filter(|id| first.event_ids.contains(id))
        .cloned()
        .collect();
    if !repeated.is_empty() {
        return Err(failure(
            &again,
            format!(
                "resumed after id {last_id}, the stream sends ids {} again",
                repeated.join(", ")
            ),
            "only the events after Last-Event-ID",
        ));
    }
    if !again.closed {
        return Err(failure(
            &again,
            "the resumed stream did not end at the terminal state".to_owned(),
            "the end at the terminal state",
        ));
    }
    Ok(Outcome::pass())
}
