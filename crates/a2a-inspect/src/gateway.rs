//! A gateway's agents: `GET /api/connections/{c}/agents`, the registry's list, and
//! `GET /api/connections/{c}/agents/{id}/liveness`, whether one of them answers through the
//! gateway.

use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_client::{CardFetchOptions, ClientError};
use a2a_types::{GetTaskRequest, ProtocolBinding, TaskId};
use axum::Json;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use crate::agent_list::gateway_agents;
use crate::connection::{Connection, SharedTransport, build_client};
use crate::error::{ApiError, ErrorKindName};
use crate::schemes::card_api_key_header;
use crate::state::{AppState, normalise};

/// How long a liveness probe may take in all: the card through the gateway, then one call.
const LIVENESS_TIMEOUT: Duration = Duration::from_secs(5);

/// `GET /api/connections/{c}/agents`: `{"agents": [{"id", "name", "description", "url",
/// "lastSeen", "registeredAt", "skills"}]}`. The registry lists only agents whose last
/// heartbeat is within its time to live; whether one answers is
/// [`liveness`]'s to find out.
pub(crate) async fn agents(
    State(state): AppState,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let connection = state.connection(&id)?;
    let not_a_gateway = || {
        ApiError::bad_request(format!(
            "{} is not a gateway: it has no agent list at /agents.",
            connection.url
        ))
    };
    if !connection.gateway {
        return Err(not_a_gateway());
    }
    let records = gateway_agents(connection.transport.as_ref(), &connection.url)
        .await
        .map_err(|error| connection.error(&error))?
        .ok_or_else(not_a_gateway)?;
    let base = normalise(&connection.url);
    let agents: Vec<Value> = records
        .iter()
        .map(|record| {
            let id = record
                .get("agent_id")
                .and_then(Value::as_str)
                .unwrap_or_default();
            json!({
                "id": id,
                "name": record.get("name").and_then(Value::as_str).unwrap_or(id),
                "description": record.get("description").and_then(Value::as_str).unwrap_or_default(),
                "url": format!("{base}/a2a/{id}"),
                "lastSeen": record.get("last_seen").cloned().unwrap_or(Value::Null),
                "registeredAt": record.get("registered_at").cloned().unwrap_or(Value::Null),
                "skills": record.get("skills").and_then(Value::as_array).map_or(0, Vec::len),
            })
        })
        .collect();
    Ok(Json(json!({ "agents": agents })))
}

/// `GET /api/connections/{c}/agents/{id}/liveness`: `{"status", "message", "ms"}`.
///
/// The probe goes the way a client's call goes: the agent's card through the gateway, then
/// `GetTask` for a task id nobody has, with the connection's credentials. Any answer the
/// agent itself makes (task not found, even a refusal of the credentials) shows it is
/// `live`. The gateway's own errors say why not: `unreachable` (no connection, or the agent
/// answered 502/503/504), `timeout`, `busy`, `gone` (no longer registered). `refused` when
/// the call was refused at the HTTP level (by the gateway or by the agent: the answer does
/// not say which); `unknown` when the gateway itself could not be asked.
pub(crate) async fn liveness(
    State(state): AppState,
    Path((id, agent_id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let connection = state.connection(&id)?;
    if !connection.gateway {
        return Err(ApiError::bad_request(format!(
            "{} is not a gateway.",
            connection.url
        )));
    }
    let well_formed = agent_id.len() >= 2
        && agent_id
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-');
    if !well_formed {
        return Err(ApiError::bad_request(format!(
            "{agent_id:?} is not a gateway agent id: lowercase letters, digits and hyphens."
        )));
    }
    let url = format!("{}/a2a/{agent_id}", normalise(&connection.url));
    let started = Instant::now();
    let (status, message) = match tokio::time::timeout(
        LIVENESS_TIMEOUT,
        probe(&connection, &url, state.request_timeout),
    )
    .await
    {
        Ok(found) => found,
        Err(_) => (
            "timeout",
            format!(
                "No answer through the gateway within {} s.",
                LIVENESS_TIMEOUT.as_secs()
            ),
        ),
    };
    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(Json(
        json!({ "status": status, "message": message, "ms": ms }),
    ))
}

async fn probe(
    connection: &Connection,
    url: &str,
    request_timeout: Duration,
) -> (&'static str, String) {
    let transport = Arc::clone(&connection.transport);
    let options = CardFetchOptions::new().transport(SharedTransport(Arc::clone(&transport)));
    let card = match a2a_client::fetch_agent_card(url, &options).await {
        Ok(card) => card,
        Err(error) => return from_gateway(connection, &error),
    };
    // An API key goes in the header the agent's card names, as for a connection to it.
    let card_json = serde_json::to_value(&card).ok();
    let client = match build_client(
        &card,
        None,
        &connection.auth,
        card_api_key_header(card_json.as_ref()),
        transport,
        ProtocolBinding::JsonRpc,
        request_timeout,
    ) {
        Ok(client) => client,
        Err(error) => return ("unknown", connection.error(&error).message),
    };
    let request = GetTaskRequest {
        tenant: String::new(),
        id: TaskId::generate(),
        history_length: None,
    };
    match client.get_task(request).await {
        Ok(_) => ("live", "The agent answered through the gateway.".to_owned()),
        Err(error) => from_gateway(connection, &error),
    }
}

/// What a failed probe call says of the agent.
fn from_gateway(connection: &Connection, error: &ClientError) -> (&'static str, String) {
    let said = |error: &ClientError| {
        error
            .agent_error()
            .map_or_else(|| error.to_string(), |agent| agent.message().to_owned())
    };
    match error.gateway_code() {
        Some(-32001) => (
            "timeout",
            format!(
                "The agent did not answer the gateway in time ({}).",
                said(error)
            ),
        ),
        Some(-32002) => (
            "gone",
            "The gateway no longer has this agent: it deregistered or its heartbeat expired."
                .to_owned(),
        ),
        Some(-32003) => {
            let busy = error
                .agent_error()
                .is_some_and(|agent| agent.peer_reason() == "SERVER_BUSY");
            if busy {
                ("busy", format!("The gateway is busy ({}).", said(error)))
            } else {
                (
                    "unreachable",
                    format!("The gateway cannot reach the agent ({}).", said(error)),
                )
            }
        }
        Some(code) => (
            "unknown",
            format!("The gateway answered {code}: {}.", said(error)),
        ),
        None if error.agent_error().is_some() => {
            ("live", "The agent answered through the gateway.".to_owned())
        }
        None => {
            let api = connection.error(error);
            match api.kind {
                // The gateway or the agent behind it: an HTTP refusal does not say which.
                ErrorKindName::Unauthorized | ErrorKindName::Forbidden => ("refused", api.message),
                ErrorKindName::Unreachable
                | ErrorKindName::NotFound
                | ErrorKindName::InvalidCard
                | ErrorKindName::Timeout
                | ErrorKindName::A2a
                | ErrorKindName::BadRequest
                | ErrorKindName::TooLarge
                | ErrorKindName::UnknownConnection => ("unknown", api.message),
            }
        }
    }
}
