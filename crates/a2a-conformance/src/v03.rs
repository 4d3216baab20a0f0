//! Rules on v0.3 interfaces, in v0.3's own shapes.
//!
//! Rules on v0.3 interfaces, in v0.3's own shapes (A2A v0.3 specification): JSON-RPC
//! `message/send`, `tasks/get` and `message/stream` with `kind` discriminators and lower-case
//! states, and the v0.3 REST routes under `/v1`.

use std::sync::Arc;

use a2a_types::ProtocolBinding;
use serde_json::{Value, json};

use crate::context::{Context, Target, message_id, unknown_id};
use crate::outcome::{Checked, Outcome};
use crate::rule::{Rule, rule};
use crate::wire::{CallOptions, ErrorCode, Exchange, Op};

/// The rules of this area.
pub(crate) const RULES: &[Rule] = &[SEND, GET_TASK, TASK_NOT_FOUND, STREAM_FINAL];

rule!(SEND, "v03.send-message", Must, "0.3:7.1", V03, true,
    "v0.3 message/send (REST: POST /v1/message:send) answers a task or message in v0.3 shape: kind, lower-case state (REST: TASK_STATE_ names)." => send);
rule!(GET_TASK, "v03.get-task", Must, "0.3:7.3", V03, true,
    "v0.3 tasks/get (REST: GET /v1/tasks/{id}) answers the task just made, in v0.3 shape." => get_task);
rule!(TASK_NOT_FOUND, "v03.task-not-found", Must, "0.3:8.2", V03, false,
    "v0.3 tasks/get of an unknown id answers TaskNotFoundError (-32001; REST 404)." => task_not_found);
rule!(STREAM_FINAL, "v03.stream-final", Must, "0.3:7.2", V03, true,
    "v0.3 message/stream events carry kind, and the last status-update has final: true." => stream_final);

const STATES: [&str; 9] = [
    "submitted",
    "working",
    "input-required",
    "completed",
    "canceled",
    "failed",
    "rejected",
    "auth-required",
    "unknown",
];

/// A v0.3 call: no A2A-Version, as v0.3 clients send.
fn options(context: &Context) -> CallOptions {
    CallOptions {
        version: None,
        ..context.options()
    }
}

async fn rpc(
    context: &Context,
    target: &Target,
    method: &str,
    params: Value,
) -> Result<Exchange, Outcome> {
    let Some(wire) = target.wire.jsonrpc() else {
        return Err(Outcome::skip("not a JSON-RPC interface"));
    };
    Ok(wire.rpc(method, params, &options(context)).await)
}

async fn rest(
    context: &Context,
    target: &Target,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> Result<Exchange, Outcome> {
    let Some(wire) = target.wire.rest() else {
        return Err(Outcome::skip("not an HTTP+JSON interface"));
    };
    let text = body.map(|body| body.to_string());
    Ok(wire
        .raw(
            method,
            path,
            text.as_deref().map(|text| ("application/json", text)),
            &options(context),
        )
        .await)
}

/// Sends a v0.3 message; the answer's task (or message) in the binding's v0.3 shape.
async fn send_v03(context: &Context, target: &Target) -> Result<(Exchange, Value), Outcome> {
    let exchange = match target.binding {
        ProtocolBinding::JsonRpc => {
            let message = json!({"kind": "message", "messageId": message_id("a2a-test"), "role": "user",
                                 "parts": [{"kind": "text", "text": "Hello from a2a test"}]});
            rpc(context, target, "message/send", json!({"message": message})).await?
        }
        ProtocolBinding::HttpJson => {
            let message = json!({"messageId": message_id("a2a-test"), "role": "ROLE_USER",
                                 "content": [{"text": "Hello from a2a test"}]});
            rest(
                context,
                target,
                reqwest::Method::POST,
                "/v1/message:send",
                Some(json!({"message": message})),
            )
            .await?
        }
        ProtocolBinding::Grpc | ProtocolBinding::Other(_) => {
            return Err(Outcome::skip(
                "v0.3 shapes are checked on JSON-RPC and HTTP+JSON only",
            ));
        }
    };
    let answer = exchange.ok("the v0.3 send")?.clone();
    Ok((exchange, answer))
}

fn shape_problems(binding: &ProtocolBinding, answer: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    match binding {
        ProtocolBinding::JsonRpc => match answer.get("kind").and_then(Value::as_str) {
            Some("task") => {
                let state = answer
                    .pointer("/status/state")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if !STATES.contains(&state) {
                    problems.push(format!("status.state {state:?} is not a v0.3 state"));
                }
                if answer.get("id").is_none() || answer.get("contextId").is_none() {
                    problems.push("the task lacks id or contextId".to_owned());
                }
            }
            Some("message") => {
                if answer.get("role").and_then(Value::as_str) != Some("agent") {
                    problems.push("the message's role is not \"agent\"".to_owned());
                }
            }
            other => problems.push(format!("kind is {other:?}, not \"task\" or \"message\"")),
        },
        ProtocolBinding::HttpJson | ProtocolBinding::Grpc | ProtocolBinding::Other(_) => {
            let task = answer
                .get("task")
                .or_else(|| answer.get("id").map(|_| answer));
            match task {
                Some(task) => {
                    let state = task
                        .pointer("/status/state")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    if !state.starts_with("TASK_STATE_") {
                        problems.push(format!("status.state {state:?} is not a v0.3 proto name"));
                    }
                }
                None if answer.get("msg").is_some() || answer.get("message").is_some() => {}
                None => problems.push("the answer is neither a task nor a message".to_owned()),
            }
        }
    }
    problems
}

async fn send(context: Arc<Context>) -> Checked {
    let target = context.target()?;
    let (exchange, answer) = send_v03(&context, target).await?;
    let problems = shape_problems(&target.binding, &answer);
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(Outcome::fail(problems.join("; "))
            .with(&exchange)
            .expected("a v0.3 Task or Message"))
    }
}

fn task_id(answer: &Value) -> Option<String> {
    answer
        .get("task")
        .unwrap_or(answer)
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

async fn get(context: &Context, target: &Target, id: &str) -> Result<Exchange, Outcome> {
    match target.binding {
        ProtocolBinding::JsonRpc => rpc(context, target, "tasks/get", json!({"id": id})).await,
        ProtocolBinding::HttpJson => {
            rest(
                context,
                target,
                reqwest::Method::GET,
                &format!("/v1/tasks/{id}"),
                None,
            )
            .await
        }
        ProtocolBinding::Grpc | ProtocolBinding::Other(_) => Err(Outcome::skip(
            "v0.3 shapes are checked on JSON-RPC and HTTP+JSON only",
        )),
    }
}

async fn get_task(context: Arc<Context>) -> Checked {
    let target = context.target()?;
    let (_, answer) = send_v03(&context, target).await?;
    let Some(id) = task_id(&answer) else {
        return Err(Outcome::skip(
            "the agent answered with a message, so there is no task to get",
        ));
    };
    let exchange = get(&context, target, &id).await?;
    let got = exchange.ok("the v0.3 get")?;
    let mut problems = shape_problems(&target.binding, got);
    if task_id(got).as_deref() != Some(&id) {
        problems.push("the task has another id".to_owned());
    }
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(Outcome::fail(problems.join("; "))
            .with(&exchange)
            .expected(format!("the v0.3 task {id}")))
    }
}

async fn task_not_found(context: Arc<Context>) -> Checked {
    let target = context.target()?;
    let exchange = get(&context, target, &unknown_id()).await?;
    let want = match target.binding {
        ProtocolBinding::JsonRpc => ErrorCode::JsonRpc(-32001),
        ProtocolBinding::HttpJson | ProtocolBinding::Grpc | ProtocolBinding::Other(_) => {
            ErrorCode::Http(404)
        }
    };
    match &exchange.result {
        Err(error) if error.code == want => Ok(Outcome::pass()),
        Err(error) => Err(
            Outcome::fail(format!("the agent answered {}", error.describe()))
                .with(&exchange)
                .expected("TaskNotFoundError"),
        ),
        Ok(_) => Err(Outcome::fail("the agent answered success")
            .with(&exchange)
            .expected("TaskNotFoundError")),
    }
}

async fn stream_final(context: Arc<Context>) -> Checked {
    context.streaming()?;
    let target = context.target()?;
    if target.binding != ProtocolBinding::JsonRpc {
        return Err(Outcome::skip("the v0.3 final flag is checked on JSON-RPC"));
    }
    let message = json!({"kind": "message", "messageId": message_id("tck-stream-001"), "role": "user",
                         "parts": [{"kind": "text", "text": "Hello from a2a test"}]});
    let mut options = options(&context);
    options.raw_body = None;
    // The v1.0 stream reader reads any JSON-RPC stream; only the method differs.
    let record = crate::wire::Wire::stream(
        &V03Method(target),
        Op::SendStreamingMessage,
        json!({"message": message}),
        &options,
    )
    .await;
    if let Some(error) = &record.refused {
        return Err(
            Outcome::fail(format!("the stream was refused: {}", error.describe()))
                .with(&record.exchange())
                .expected("a v0.3 event stream"),
        );
    }
    if let Some(event) = record
        .events
        .iter()
        .find(|event| event.get("kind").is_none())
    {
        return Err(Outcome::fail("an event has no kind")
            .with_text(&record.sent, &event.to_string())
            .expected("kind: task, message, status-update or artifact-update"));
    }
    let last_status = record
        .events
        .iter()
        .rev()
        .find(|event| event.get("kind").and_then(Value::as_str) == Some("status-update"));
    match last_status {
        None => Err(Outcome::skip("the stream carried no status-update")),
        Some(event) if event.get("final") == Some(&json!(true)) => Ok(Outcome::pass()),
        Some(event) => Err(
            Outcome::fail("the last status-update does not have final: true")
                .with_text(&record.sent, &event.to_string())
                .expected("final: true"),
        ),
    }
}

/// The JSON-RPC wire of `target` with v0.3's `message/stream` in place of the v1.0 method.
#[derive(Debug)]
struct V03Method<'a>(&'a Target);

#[async_trait::async_trait]
impl crate::wire::Wire for V03Method<'_> {
    async fn call(&self, op: Op, params: Value, options: &CallOptions) -> Exchange {
        self.0.wire.call(op, params, options).await
    }

    async fn stream(
        &self,
        _op: Op,
        params: Value,
        options: &CallOptions,
    ) -> crate::wire::StreamRecord {
        match self.0.wire.jsonrpc() {
            Some(wire) => wire.stream_method("message/stream", params, options).await,
            None => crate::wire::StreamRecord::default(),
        }
    }
}
