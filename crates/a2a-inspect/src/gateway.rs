//! `GET /api/connections/{c}/agents`: a gateway's registered agents, from its `/agents`.

use axum::Json;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use crate::app::{AppState, normalise};
use crate::connection::gateway_agents;
use crate::error::ApiError;

/// `GET /api/connections/{c}/agents`: `{"agents": [{"id", "name", "description", "url",
/// "live", "lastSeen", "skills"}]}`.
pub(crate) async fn agents(
    State(state): AppState,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let connection = state.connection(&id)?;
    let records = gateway_agents(connection.transport.as_ref(), &connection.url)
        .await
        .map_err(|error| connection.error(&error))?
        .ok_or_else(|| {
            ApiError::bad_request(format!(
                "{} is not a gateway: it has no agent list at /agents.",
                connection.url
            ))
        })?;
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
                // The registry lists only agents whose heartbeat is within its TTL.
                "live": true,
                "lastSeen": record.get("last_seen").cloned().unwrap_or(Value::Null),
                "skills": record.get("skills").and_then(Value::as_array).map_or(0, Vec::len),
            })
        })
        .collect();
    Ok(Json(json!({ "agents": agents })))
}
