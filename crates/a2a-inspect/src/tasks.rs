//! The agent's tasks: list, get, cancel, and a task's events relayed for `EventSource`,
//! resumed from `Last-Event-ID`.

use std::sync::Arc;

use a2a_client::{CallOptions, ClientError};
use a2a_types::error::ErrorKind;
use a2a_types::{
    A2aError, CancelTaskRequest, GetTaskRequest, ListTasksRequest, ProtocolBinding,
    SubscribeToTaskRequest,
};
use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::sse::Event;
use axum::response::{IntoResponse, Response};
use futures::StreamExt as _;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::chat::{event_stream, frame};
use crate::connection::Connection;
use crate::error::ApiError;
use crate::state::AppState;
use crate::wire::{CALL_IDS, now};

/// `GET …/tasks`'s query.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListQuery {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    context_id: Option<String>,
    #[serde(default)]
    page_size: Option<String>,
    #[serde(default)]
    page_token: Option<String>,
    #[serde(default)]
    history_length: Option<String>,
}

fn number(name: &str, value: Option<&str>) -> Result<Option<i64>, ApiError> {
    match value.map(str::trim).filter(|value| !value.is_empty()) {
        None => Ok(None),
        Some(text) => text.parse().map(Some).map_err(|_| {
            ApiError::bad_request(format!("{name} must be a whole number, not {text:?}."))
        }),
    }
}

/// A task state as the page may name it (`working`, `TASK_STATE_WORKING`).
fn state_name(status: &str) -> String {
    let upper = status.trim().to_ascii_uppercase().replace('-', "_");
    if upper.starts_with("TASK_STATE_") {
        upper
    } else {
        format!("TASK_STATE_{upper}")
    }
}

/// `GET /api/connections/{c}/tasks`.
pub(crate) async fn list(
    State(state): AppState,
    Path(id): Path<String>,
    Query(query): Query<ListQuery>,
) -> Result<Json<Value>, ApiError> {
    let connection = state.connection(&id)?;
    let mut request = Map::new();
    if let Some(status) = query.status.as_deref().filter(|status| !status.is_empty()) {
        request.insert("status".into(), Value::from(state_name(status)));
    }
    if let Some(context) = query.context_id.filter(|context| !context.is_empty()) {
        request.insert("contextId".into(), Value::from(context));
    }
    if let Some(size) = number("pageSize", query.page_size.as_deref())? {
        request.insert("pageSize".into(), Value::from(size));
    }
    if let Some(token) = query.page_token.filter(|token| !token.is_empty()) {
        request.insert("pageToken".into(), Value::from(token));
    }
    if let Some(length) = number("historyLength", query.history_length.as_deref())? {
        request.insert("historyLength".into(), Value::from(length));
    }
    let request: ListTasksRequest =
        a2a_types::json::from_value(Value::Object(request)).map_err(|error| {
            ApiError::bad_request("The task filter is not valid.").with_detail(error.to_string())
        })?;
    let client = connection.client(None)?;
    let answer = connection
        .unary(
            &client,
            "ListTasks",
            &request,
            client.list_tasks(request.clone()),
        )
        .await
        .map_err(|error| connection.error(&error))?;
    Ok(Json(serde_json::to_value(answer).unwrap_or(Value::Null)))
}

/// `GET …/tasks/{id}`'s query.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GetQuery {
    #[serde(default)]
    history_length: Option<String>,
}

/// `GET /api/connections/{c}/tasks/{id}`.
pub(crate) async fn get(
    State(state): AppState,
    Path((id, task)): Path<(String, String)>,
    Query(query): Query<GetQuery>,
) -> Result<Json<Value>, ApiError> {
    let connection = state.connection(&id)?;
    let mut request = json!({ "id": task });
    if let Some(length) = number("historyLength", query.history_length.as_deref())? {
        request["historyLength"] = Value::from(length);
    }
    let request: GetTaskRequest = a2a_types::json::from_value(request).map_err(|error| {
        ApiError::bad_request("The task id is not valid.").with_detail(error.to_string())
    })?;
    let client = connection.client(None)?;
    let task = connection
        .unary(
            &client,
            "GetTask",
            &request,
            client.get_task(request.clone()),
        )
        .await
        .map_err(|error| connection.error(&error))?;
    Ok(Json(serde_json::to_value(task).unwrap_or(Value::Null)))
}

/// `POST /api/connections/{c}/tasks/{id}/cancel`.
pub(crate) async fn cancel(
    State(state): AppState,
    Path((id, task)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let connection = state.connection(&id)?;
    let request: CancelTaskRequest =
        a2a_types::json::from_value(json!({ "id": task })).map_err(|error| {
            ApiError::bad_request("The task id is not valid.").with_detail(error.to_string())
        })?;
    let client = connection.client(None)?;
    let task = connection
        .unary(
            &client,
            "CancelTask",
            &request,
            client.cancel_task(request.clone()),
        )
        .await
        .map_err(|error| connection.error(&error))?;
    Ok(Json(serde_json::to_value(task).unwrap_or(Value::Null)))
}

/// `GET …/events`'s query.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct EventsQuery {
    #[serde(default)]
    after: Option<String>,
}

/// `GET /api/connections/{c}/tasks/{id}/events`: SubscribeToTask relayed with the agent's
/// event ids, resumed after `after` or the request's own `Last-Event-ID`.
pub(crate) async fn events(
    State(state): AppState,
    Path((id, task)): Path<(String, String)>,
    Query(query): Query<EventsQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let connection = state.connection(&id)?;
    // EventSource's own Last-Event-ID (a reconnect) is newer than the `after` the page
    // opened it with.
    let after = headers
        .get("last-event-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .or(query.after)
        .map(|after| after.trim().to_owned())
        .filter(|after| !after.is_empty());
    if let Some(after) = &after
        && (after.len() > 64 || !after.chars().all(|c| c.is_ascii_graphic()))
    {
        return Err(ApiError::bad_request(
            "The event id to resume after is not valid.",
        ));
    }
    let request: SubscribeToTaskRequest = a2a_types::json::from_value(json!({ "id": task }))
        .map_err(|error| {
            ApiError::bad_request("The task id is not valid.").with_detail(error.to_string())
        })?;
    let (sender, receiver) = mpsc::channel(64);
    let ids = Arc::new(std::sync::Mutex::new(Vec::new()));
    tokio::spawn(CALL_IDS.scope(ids, follow(connection, request, after, sender)));
    Ok(event_stream(receiver).into_response())
}

/// An `a2a` frame of one event: `id: SEQ`, data `{"seq", "time", "event"}`.
fn event_frame(id: Option<&str>, event: &Value) -> Event {
    let seq = id.and_then(|id| id.parse::<u64>().ok());
    let mut frame = frame("a2a", &json!({ "seq": seq, "time": now(), "event": event }));
    if let Some(id) = id {
        frame = frame.id(id);
    }
    frame
}

/// The error frame of a failed subscription; a finished task is said to be so.
fn subscribe_error(connection: &Connection, error: &ClientError) -> Value {
    if let Some(agent) = error.agent_error()
        && agent.kind() == ErrorKind::UnsupportedOperation
    {
        let mut api = connection.error(error);
        api.message = format!(
            "The task is finished: the agent has no more events to stream ({}).",
            agent.message().trim_end_matches('.')
        );
        return api.to_json();
    }
    connection.error(error).to_json()
}

async fn follow(
    connection: Arc<Connection>,
    request: SubscribeToTaskRequest,
    after: Option<String>,
    sender: mpsc::Sender<Event>,
) {
    let send = |event: Event| {
        let sender = sender.clone();
        async move { sender.send(event).await.is_ok() }
    };
    let client = match connection.client(None) {
        Ok(client) => client,
        Err(error) => {
            let _ = send(frame("error", &error.to_json())).await;
            let _ = send(frame("end", &json!({}))).await;
            return;
        }
    };
    if client.binding() == ProtocolBinding::Grpc {
        // A gRPC stream has no event ids: the decoded events, unnumbered.
        let recorded = connection.grpc_call(&client, "SubscribeToTask", &request);
        let mut failure = None;
        match client.subscribe_to_task(request).await {
            Ok(mut events) => {
                while let Some(item) = events.next().await {
                    match item {
                        Ok(event) => {
                            let value = serde_json::to_value(&event).unwrap_or(Value::Null);
                            recorded.event(&value);
                            if !send(event_frame(None, &value)).await {
                                recorded.end(None);
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
            Err(error) => failure = Some(error),
        }
        recorded.end(failure.as_ref());
        if let Some(error) = &failure {
            let _ = send(frame("error", &subscribe_error(&connection, error))).await;
        }
        let _ = send(frame("end", &json!({}))).await;
        return;
    }
    let mut options = CallOptions::new();
    if let Some(after) = &after {
        options = options.header("last-event-id", after.as_str());
    }
    let jsonrpc = client.binding() == ProtocolBinding::JsonRpc;
    match client
        .with_options(options)
        .subscribe_to_task_raw(request)
        .await
    {
        Ok(mut raw) => {
            let mut pending = String::new();
            'read: while let Some(chunk) = raw.next().await {
                let chunk = match chunk {
                    Ok(chunk) => chunk,
                    Err(error) => {
                        let _ = send(frame("error", &subscribe_error(&connection, &error))).await;
                        break;
                    }
                };
                pending.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
                while let Some(end) = pending.find("\n\n") {
                    let text: String = pending.drain(..end + 2).collect();
                    let Some(parsed) = parse_frame(&text) else {
                        continue;
                    };
                    match relayable(parsed.data, jsonrpc) {
                        Ok(event) => {
                            if !send(event_frame(parsed.id.as_deref(), &event)).await {
                                return;
                            }
                        }
                        Err(error) => {
                            let error = ClientError::Agent(error);
                            let _ =
                                send(frame("error", &subscribe_error(&connection, &error))).await;
                            break 'read;
                        }
                    }
                }
            }
        }
        Err(error) => {
            let _ = send(frame("error", &subscribe_error(&connection, &error))).await;
        }
    }
    let _ = send(frame("end", &json!({}))).await;
}

/// One SSE frame's id and data.
struct Parsed {
    id: Option<String>,
    data: Value,
}

fn parse_frame(text: &str) -> Option<Parsed> {
    let mut id = None;
    let mut data = String::new();
    for line in text.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => id = Some(value.to_owned()),
            "data" => {
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(value);
            }
            _ => {}
        }
    }
    if data.is_empty() {
        return None;
    }
    let data = serde_json::from_str(&data).ok()?;
    Some(Parsed { id, data })
}

/// The StreamResponse a frame's data carries, or the A2A error it is.
fn relayable(data: Value, jsonrpc: bool) -> Result<Value, A2aError> {
    if jsonrpc {
        if let Some(result) = data.get("result") {
            return Ok(result.clone());
        }
        if let Some(error) = data.get("error") {
            let error: a2a_types::jsonrpc::JsonRpcError = serde_json::from_value(error.clone())
                .unwrap_or(a2a_types::jsonrpc::JsonRpcError {
                    code: -32603,
                    message: error.to_string(),
                    data: None,
                });
            return Err(A2aError::from_jsonrpc_error(&error));
        }
        return Ok(data);
    }
    if data.get("error").is_some() {
        let bytes = serde_json::to_vec(&data).unwrap_or_default();
        return Err(A2aError::from_http_body(500, &bytes));
    }
    Ok(data)
}
