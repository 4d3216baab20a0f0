//! `POST /api/connections/{c}/send`: a message to the agent, its answer relayed to the page
//! as `text/event-stream` frames (`call`, then one `a2a` per event, `error`, `end`).

use std::convert::Infallible;
use std::sync::Arc;

use a2a_client::{A2aClient, ClientError};
use a2a_types::{ProtocolBinding, SendMessageRequest};
use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt as _};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::connection::Connection;
use crate::error::{ApiError, ErrorKindName};
use crate::state::{AppState, Shared};
use crate::wire::{CALL_IDS, GrpcCall};

/// The body of a send.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendBody {
    parts: Vec<Value>,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    context_id: Option<String>,
    /// The message id to send; a fresh one when absent (agents may act on it).
    #[serde(default)]
    message_id: Option<String>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    binding: Option<String>,
    #[serde(default)]
    push: bool,
    #[serde(default)]
    return_immediately: bool,
}

/// `POST /api/connections/{c}/send`.
pub(crate) async fn send(
    State(state): AppState,
    Path(id): Path<String>,
    body: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response, ApiError> {
    let connection = state.connection(&id)?;
    let body = body.map_err(|rejection| {
        if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            let limit = state.max_message_bytes;
            let size = if limit >= 1024 * 1024 {
                format!("{} MiB", limit / (1024 * 1024))
            } else {
                format!("{limit} bytes")
            };
            ApiError::new(
                ErrorKindName::TooLarge,
                format!(
                    "The message is larger than the inspector takes ({size}, files counted as base64)."
                ),
            )
        } else {
            ApiError::bad_request("The message could not be read.")
                .with_detail(rejection.body_text())
        }
    })?;
    let body: SendBody = serde_json::from_slice(&body).map_err(|error| {
        ApiError::bad_request("The message is not in the form the inspector reads.")
            .with_detail(error.to_string())
    })?;
    let request = message_request(&body, &state, &connection)?;
    let client = connection.client(body.binding.as_deref())?;
    let (sender, receiver) = mpsc::channel(64);
    let ids = Arc::new(std::sync::Mutex::new(Vec::new()));
    tokio::spawn(CALL_IDS.scope(ids, relay(connection, client, request, body.stream, sender)));
    Ok(event_stream(receiver).into_response())
}

/// The frames `receiver` gets, as an SSE answer.
pub(crate) fn event_stream(
    receiver: mpsc::Receiver<Event>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let stream = futures::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|event| (Ok(event), receiver))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// An `event: NAME` frame with `data` as JSON.
pub(crate) fn frame(name: &str, data: &Value) -> Event {
    Event::default()
        .event(name)
        .json_data(data)
        .unwrap_or_else(|_| Event::default().event(name).data("{}"))
}

/// The SendMessage request the page's body describes.
fn message_request(
    body: &SendBody,
    state: &Shared,
    connection: &Connection,
) -> Result<SendMessageRequest, ApiError> {
    if body.parts.is_empty() {
        return Err(ApiError::bad_request("The message has no parts."));
    }
    let parts = body.parts.iter().map(part).collect::<Result<Vec<_>, _>>()?;
    let mut message = Map::new();
    let message_id = body
        .message_id
        .clone()
        .filter(|id| !id.trim().is_empty())
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    message.insert("messageId".into(), Value::from(message_id));
    message.insert("role".into(), Value::from("ROLE_USER"));
    message.insert("parts".into(), Value::Array(parts));
    for (member, value) in [("taskId", &body.task_id), ("contextId", &body.context_id)] {
        if let Some(value) = value.as_deref().filter(|value| !value.is_empty()) {
            message.insert(member.into(), Value::from(value));
        }
    }
    let mut configuration = Map::new();
    if body.return_immediately {
        configuration.insert("returnImmediately".into(), Value::Bool(true));
    }
    if body.push {
        let token = state.push.token_for(&connection.id);
        configuration.insert(
            "taskPushNotificationConfig".into(),
            json!({
                "url": format!("{}/webhook/{}", state.base_url(), connection.id),
                "token": token,
            }),
        );
    }
    let mut request = Map::new();
    request.insert("message".into(), Value::Object(message));
    if !configuration.is_empty() {
        request.insert("configuration".into(), Value::Object(configuration));
    }
    a2a_types::json::from_value(Value::Object(request)).map_err(|error| {
        ApiError::bad_request("The message is not a valid A2A message.")
            .with_detail(error.to_string())
    })
}

/// One part of the page's message as an A2A part: `{"text"}`, `{"file": {name, mediaType,
/// bytes}}` (base64) or `{"data"}`.
fn part(part: &Value) -> Result<Value, ApiError> {
    if let Some(text) = part.get("text").and_then(Value::as_str) {
        return Ok(json!({ "text": text }));
    }
    if let Some(file) = part.get("file") {
        let bytes = file
            .get("bytes")
            .and_then(Value::as_str)
            .ok_or_else(|| ApiError::bad_request("A file part needs its bytes, base64-encoded."))?;
        let mut raw = Map::new();
        raw.insert("raw".into(), Value::from(bytes));
        if let Some(name) = file.get("name").and_then(Value::as_str) {
            raw.insert("filename".into(), Value::from(name));
        }
        if let Some(kind) = file.get("mediaType").and_then(Value::as_str) {
            raw.insert("mediaType".into(), Value::from(kind));
        }
        return Ok(Value::Object(raw));
    }
    if let Some(data) = part.get("data") {
        return Ok(json!({ "data": data }));
    }
    Err(ApiError::bad_request(
        "Each part is {\"text\"}, {\"file\"} or {\"data\"}.",
    ))
}

/// Makes the call and sends its frames, then `end`.
async fn relay(
    connection: Arc<Connection>,
    client: A2aClient,
    request: SendMessageRequest,
    stream: bool,
    sender: mpsc::Sender<Event>,
) {
    let operation = if stream {
        "SendStreamingMessage"
    } else {
        "SendMessage"
    };
    let grpc = (client.binding() == ProtocolBinding::Grpc)
        .then(|| connection.grpc_call(&client, operation, &request));
    let announce = |ids: Option<u64>| {
        let sender = sender.clone();
        async move {
            let _ = sender.send(frame("call", &json!({ "wire": ids }))).await;
        }
    };
    let opened_id = || {
        grpc.as_ref().map(GrpcCall::id).or_else(|| {
            CALL_IDS
                .try_with(|ids| ids.lock().ok().and_then(|ids| ids.first().copied()))
                .ok()
                .flatten()
        })
    };
    let mut failure: Option<ClientError> = None;
    if stream {
        match client.send_streaming_message(request).await {
            Ok(mut events) => {
                announce(opened_id()).await;
                while let Some(item) = events.next().await {
                    match item {
                        Ok(event) => {
                            let value = serde_json::to_value(&event).unwrap_or(Value::Null);
                            if let Some(recorded) = &grpc {
                                recorded.event(&value);
                            }
                            if sender.send(frame("a2a", &value)).await.is_err() {
                                // The page went away; dropping the stream closes the call.
                                return;
                            }
                        }
                        Err(error) => {
                            failure = Some(error);
                            break;
                        }
                    }
                }
            }
            Err(error) => {
                announce(opened_id()).await;
                failure = Some(error);
            }
        }
    } else {
        let answer = client.send_message(request).await;
        announce(opened_id()).await;
        match answer {
            Ok(answer) => {
                let value = serde_json::to_value(&answer).unwrap_or(Value::Null);
                if let Some(recorded) = &grpc {
                    recorded.answer(&value);
                }
                let _ = sender.send(frame("a2a", &value)).await;
            }
            Err(error) => failure = Some(error),
        }
    }
    if let Some(recorded) = &grpc {
        recorded.end(failure.as_ref());
    }
    if let Some(error) = failure {
        let _ = sender
            .send(frame("error", &connection.error(&error).to_json()))
            .await;
    }
    let _ = sender.send(frame("end", &json!({}))).await;
}
