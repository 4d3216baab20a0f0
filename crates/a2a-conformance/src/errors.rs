//! Rules on the errors the spec defines.
//!
//! Rules on errors: each error case the spec defines answered with its code on each binding
//! (unknown task, not cancelable, terminal task, invalid params, capabilities not declared,
//! unsupported content type, required extension), ErrorInfo details, and the JSON-RPC
//! envelope's own errors.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::context::{Context, id_of, unknown_id, user_message};
use crate::expect::{self, Expected};
use crate::outcome::{Checked, Outcome};
use crate::rule::{Rule, rule};
use crate::wire::{ErrorCode, Exchange, Op};

/// The rules of this area.
pub(crate) const RULES: &[Rule] = &[
    TASK_NOT_FOUND,
    CANCEL_NOT_FOUND,
    NOT_CANCELABLE,
    TERMINAL_MESSAGE,
    UNKNOWN_TASK_MESSAGE,
    INVALID_PARAMS,
    PUSH_NOT_SUPPORTED,
    STREAMING_NOT_SUPPORTED,
    EXTENDED_CARD_NOT_SUPPORTED,
    CONTENT_TYPE,
    EXTENSION_REQUIRED,
    ERROR_DETAILS,
    JSONRPC_PARSE_ERROR,
    JSONRPC_METHOD_NOT_FOUND,
];

rule!(TASK_NOT_FOUND, "errors.task-not-found", Must, "3.3.2", V1, false,
    "GetTask of an unknown id answers TaskNotFoundError as the binding maps it (-32001, HTTP 404, NOT_FOUND, reason TASK_NOT_FOUND)." => task_not_found);
rule!(CANCEL_NOT_FOUND, "errors.cancel-not-found", Must, "3.1.5", V1, false,
    "CancelTask of an unknown id answers TaskNotFoundError." => cancel_not_found);
rule!(NOT_CANCELABLE, "errors.not-cancelable", Must, "3.1.5", V1, true,
    "CancelTask of a terminal task answers TaskNotCancelableError (-32002, HTTP 400, FAILED_PRECONDITION)." => not_cancelable);
rule!(TERMINAL_MESSAGE, "errors.terminal-task-message", Must, "3.1.1", V1, true,
    "A message sent to a terminal task answers UnsupportedOperationError (-32004)." => terminal_message);
rule!(UNKNOWN_TASK_MESSAGE, "errors.unknown-task-message", Must, "3.4.2", V1, true,
    "A message whose taskId names no task answers TaskNotFoundError." => unknown_task_message);
rule!(INVALID_PARAMS, "errors.invalid-params", Should, "5.7", V1, true,
    "A message without parts (REQUIRED, at least one) is rejected with invalid params (-32602, HTTP 400, INVALID_ARGUMENT)." => invalid_params);
rule!(PUSH_NOT_SUPPORTED, "errors.push-not-supported", Must, "3.3.4", V1, false,
    "When the card does not declare pushNotifications, CreateTaskPushNotificationConfig answers PushNotificationNotSupportedError (-32003)." => push_not_supported);
rule!(STREAMING_NOT_SUPPORTED, "errors.streaming-not-supported", Must, "3.3.4", V1, true,
    "When the card does not declare streaming, SendStreamingMessage answers UnsupportedOperationError." => streaming_not_supported);
rule!(EXTENDED_CARD_NOT_SUPPORTED, "errors.extended-card-not-supported", Must, "3.3.4", V1, false,
    "When the card does not declare extendedAgentCard, GetExtendedAgentCard answers UnsupportedOperationError." => extended_card_not_supported);
rule!(CONTENT_TYPE, "errors.content-type-not-supported", Should, "3.3.2", V1, true,
    "A file part of a media type the card's defaultInputModes do not list answers ContentTypeNotSupportedError (-32005)." => content_type);
rule!(EXTENSION_REQUIRED, "errors.extension-required", Must, "3.3.4", V1, false,
    "When the card declares a required extension, a request that does not activate it answers ExtensionSupportRequiredError (-32008)." => extension_required);
rule!(ERROR_DETAILS, "errors.error-info", Should, "9.5", V1JsonRpc, false,
    "A JSON-RPC A2A error carries data as an array of typed objects with a google.rpc.ErrorInfo of domain a2a-protocol.org." => error_details);
rule!(JSONRPC_PARSE_ERROR, "errors.jsonrpc-parse-error", Must, "9.5", V1JsonRpc, false,
    "A body that is not JSON answers the JSON-RPC parse error -32700 with id null." => jsonrpc_parse_error);
rule!(JSONRPC_METHOD_NOT_FOUND, "errors.jsonrpc-method-not-found", Must, "9.5", V1JsonRpc, false,
    "An unknown JSON-RPC method answers -32601 method not found." => jsonrpc_method_not_found);

/// Checks `exchange` against `expected` on the interface under test.
fn expect_error(context: &Context, exchange: &Exchange, expected: Expected) -> Checked {
    expect::error(&context.target()?.binding, exchange, expected)?;
    Ok(Outcome::pass())
}

async fn task_not_found(context: Arc<Context>) -> Checked {
    let exchange = context
        .call(Op::GetTask, json!({"id": unknown_id()}))
        .await?;
    expect_error(&context, &exchange, Expected::TaskNotFound)
}

async fn cancel_not_found(context: Arc<Context>) -> Checked {
    let exchange = context
        .call(Op::CancelTask, json!({"id": unknown_id()}))
        .await?;
    expect_error(&context, &exchange, Expected::TaskNotFound)
}

async fn not_cancelable(context: Arc<Context>) -> Checked {
    let task = context.terminal_task().await?;
    let exchange = context
        .call(Op::CancelTask, json!({"id": id_of(&task)}))
        .await?;
    expect_error(&context, &exchange, Expected::TaskNotCancelable)
}

async fn terminal_message(context: Arc<Context>) -> Checked {
    let task = context.terminal_task().await?;
    let mut message = user_message("a2a-test", "One more thing");
    message["taskId"] = task["id"].clone();
    message["contextId"] = task["contextId"].clone();
    let exchange = context
        .call(Op::SendMessage, json!({"message": message}))
        .await?;
    expect_error(&context, &exchange, Expected::UnsupportedOperation)
}

async fn unknown_task_message(context: Arc<Context>) -> Checked {
    let mut message = user_message("a2a-test", "Continue a task that does not exist");
    message["taskId"] = json!(unknown_id());
    let exchange = context
        .call(Op::SendMessage, json!({"message": message}))
        .await?;
    expect_error(&context, &exchange, Expected::TaskNotFound)
}

async fn invalid_params(context: Arc<Context>) -> Checked {
    let mut message = user_message("a2a-test", "");
    message["parts"] = json!([]);
    let exchange = context
        .call(Op::SendMessage, json!({"message": message}))
        .await?;
    expect_error(&context, &exchange, Expected::InvalidParams)
}

async fn push_not_supported(context: Arc<Context>) -> Checked {
    if context.card()?.capabilities.supports_push_notifications() {
        return Err(Outcome::skip("the card declares pushNotifications"));
    }
    let exchange = context
        .call(
            Op::CreatePushConfig,
            json!({"taskId": unknown_id(), "url": "https://example.com/a2a-test-webhook"}),
        )
        .await?;
    expect_error(&context, &exchange, Expected::PushNotificationNotSupported)
}

async fn streaming_not_supported(context: Arc<Context>) -> Checked {
    if context.card()?.capabilities.supports_streaming() {
        return Err(Outcome::skip("the card declares streaming"));
    }
    let record = context
        .stream(
            Op::SendStreamingMessage,
            json!({"message": user_message("a2a-test", "Hello")}),
        )
        .await?;
    if record.refused.is_none() {
        return Err(Outcome::fail(format!(
            "the agent streamed {} events although its card does not declare streaming",
            record.events.len()
        ))
        .with(&record.exchange())
        .expected("UnsupportedOperationError"));
    }
    expect_error(&context, &record.exchange(), Expected::UnsupportedOperation)
}

async fn extended_card_not_supported(context: Arc<Context>) -> Checked {
    if context.card()?.capabilities.supports_extended_agent_card() {
        return Err(Outcome::skip("the card declares extendedAgentCard"));
    }
    let exchange = context.call(Op::GetExtendedAgentCard, json!({})).await?;
    expect_error(&context, &exchange, Expected::UnsupportedOperation)
}

/// A media type no agent accepts.
const ODD_MEDIA: &str = "application/x-a2a-test-unsupported";

async fn content_type(context: Arc<Context>) -> Checked {
    let card = context.card()?;
    if card
        .default_input_modes
        .iter()
        .any(|mode| mode == ODD_MEDIA || mode.contains('*'))
    {
        return Err(Outcome::skip("the card accepts any input media type"));
    }
    let mut message = user_message("a2a-test", "");
    message["parts"] = json!([{"raw": "AAEC", "mediaType": ODD_MEDIA, "filename": "a2a-test.bin"}]);
    let exchange = context
        .call(Op::SendMessage, json!({"message": message}))
        .await?;
    expect_error(&context, &exchange, Expected::ContentTypeNotSupported)
}

async fn extension_required(context: Arc<Context>) -> Checked {
    let card = context.card()?;
    let Some(extension) = card
        .capabilities
        .extensions
        .iter()
        .find(|extension| extension.required)
    else {
        return Err(Outcome::skip("the card declares no required extension"));
    };
    let uri = extension.uri.clone();
    let exchange = context
        .call(Op::GetTask, json!({"id": unknown_id()}))
        .await?;
    expect_error(&context, &exchange, Expected::ExtensionSupportRequired).map(|outcome| Outcome {
        reason: Some(format!("required extension {uri}")),
        ..outcome
    })
}

async fn error_details(context: Arc<Context>) -> Checked {
    let exchange = context
        .call(Op::GetTask, json!({"id": unknown_id()}))
        .await?;
    let Err(error) = &exchange.result else {
        return Err(Outcome::skip("GetTask of an unknown id did not fail"));
    };
    if !matches!(error.code, ErrorCode::JsonRpc(_)) {
        return Err(Outcome::skip("the answer is not a JSON-RPC error"));
    }
    let mut problems = Vec::new();
    if error.untyped_details {
        problems.push("error.data is not an array of objects that each have @type".to_owned());
    }
    match (&error.reason, &error.domain) {
        (None, _) => problems.push("error.data has no google.rpc.ErrorInfo".to_owned()),
        (Some(_), Some(domain)) if domain == "a2a-protocol.org" => {}
        (Some(_), domain) => problems.push(format!(
            "the ErrorInfo domain is {domain:?}, not a2a-protocol.org"
        )),
    }
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(Outcome::fail(problems.join("; ")).with(&exchange).expected(
            "\"data\": [{\"@type\": \"type.googleapis.com/google.rpc.ErrorInfo\", \"reason\": \"TASK_NOT_FOUND\", \"domain\": \"a2a-protocol.org\"}]",
        ))
    }
}

async fn raw_rpc(context: &Context, body: &str) -> Result<Exchange, Outcome> {
    let target = context.target()?;
    let Some(wire) = target.wire.jsonrpc() else {
        return Err(Outcome::skip("not a JSON-RPC interface"));
    };
    let mut options = context.options();
    options.raw_body = Some(body.to_owned());
    Ok(wire.rpc("", Value::Null, &options).await)
}

async fn jsonrpc_parse_error(context: Arc<Context>) -> Checked {
    let exchange = raw_rpc(&context, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ").await?;
    expect_error(&context, &exchange, Expected::ParseError)?;
    // `received` reads `HTTP <status> <body>`.
    let body = exchange.received.splitn(3, ' ').nth(2).unwrap_or_default();
    let id = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|answer| answer.get("id").cloned());
    if id == Some(Value::Null) {
        Ok(Outcome::pass())
    } else {
        Err(
            Outcome::fail("the parse error's response does not carry id null")
                .with(&exchange)
                .expected("{\"jsonrpc\": \"2.0\", \"id\": null, \"error\": {\"code\": -32700, …}}"),
        )
    }
}

async fn jsonrpc_method_not_found(context: Arc<Context>) -> Checked {
    let body =
        json!({"jsonrpc": "2.0", "id": 7, "method": "NoSuchA2aMethod", "params": {}}).to_string();
    let exchange = raw_rpc(&context, &body).await?;
    expect_error(&context, &exchange, Expected::MethodNotFound)
}
