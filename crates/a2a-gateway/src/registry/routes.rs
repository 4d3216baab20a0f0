//! The registry's HTTP API (KubeMQ-compatible), as an axum [`Router`].
//!
//! | route | success | failure |
//! |---|---|---|
//! | `POST /agents/register` | 200, the enriched record | 400 `{"error"}`: bad JSON, record or signature; 409 `{"error"}`: `max_agents` reached |
//! | `GET /agents?skill_tags=a,b&limit=N` | 200, a bare array of the records with a skill carrying any listed tag; `{"agents": […]}`, the live KubeMQ broker's form, with `wrap=true` | 400: `limit` not a number |
//! | `GET /agents/{id}` | 200, the record | 404 `{"error":"agent not found"}` |
//! | `POST /agents/heartbeat {agent_id}` | 200 `{agent_id, last_seen}` | **400** `{"error":"agent not found"}` |
//! | `POST /agents/deregister {agent_id}` | 200 `{agent_id, status:"deregistered"}` | 404 `{"error":"agent not found"}` |
//! | `DELETE /agents/{id}` | as deregister | as deregister |
//!
//! A body without a string `agent_id` is 400 `{"error":"agent_id is required"}`; `limit=0`
//! means no limit; a database failure is 500 `{"error":"registry unavailable"}` (logged).
//! Ids `register`, `heartbeat` and `deregister` are valid agent ids, so `GET` and `DELETE`
//! of those three paths reach the agent of that id.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::error::RegistryError;
use super::lifecycle::{AgentFilter, Registry};
use super::record::{enriched, format_time};

/// The largest register body read: cards are small.
const MAX_BODY_BYTES: usize = 1024 * 1024;

const NOT_FOUND: &str = "agent not found";

/// The registry routes over `registry`, to be merged into the gateway's router.
///
/// ```
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use a2a_gateway::registry::{Registry, router};
///
/// let registry = Arc::new(Registry::in_memory().await?);
/// let app: axum::Router = router(registry);
/// # let _ = app;
/// # Ok(()) }
/// ```
pub fn router(registry: Arc<Registry>) -> Router {
    Router::new()
        .route("/agents", get(list))
        .route("/agents/{agent_id}", get(get_agent).delete(delete_agent))
        .route(
            "/agents/register",
            post(register)
                .get(|state| get_named(state, "register"))
                .delete(|state| delete_named(state, "register")),
        )
        .route(
            "/agents/heartbeat",
            post(heartbeat)
                .get(|state| get_named(state, "heartbeat"))
                .delete(|state| delete_named(state, "heartbeat")),
        )
        .route(
            "/agents/deregister",
            post(deregister)
                .get(|state| get_named(state, "deregister"))
                .delete(|state| delete_named(state, "deregister")),
        )
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(registry)
}

type Shared = State<Arc<Registry>>;

async fn register(State(registry): Shared, body: Bytes) -> Response {
    let body: Value = match serde_json::from_slice(&body) {
        Ok(body) => body,
        Err(_) => return error(StatusCode::BAD_REQUEST, "the body is not valid JSON"),
    };
    match registry.register(body).await {
        Ok(agent) => Json(enriched(&agent)).into_response(),
        Err(failure) => failed(&failure),
    }
}

async fn list(State(registry): Shared, RawQuery(query): RawQuery) -> Response {
    let mut filter = AgentFilter::new();
    let mut wrap = false;
    for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        match name.as_ref() {
            // The live KubeMQ broker's `{"agents": […]}` instead of a bare array, for clients
            // written for it.
            "wrap" => wrap = matches!(value.trim(), "true" | "1"),
            "skill_tags" => filter.skill_tags.extend(
                value
                    .split(',')
                    .map(str::trim)
                    .filter(|tag| !tag.is_empty())
                    .map(str::to_owned),
            ),
            "limit" => match value.trim().parse::<usize>() {
                Ok(0) => filter.limit = None,
                Ok(limit) => filter.limit = Some(limit),
                Err(_) => {
                    return error(
                        StatusCode::BAD_REQUEST,
                        "limit must be a non-negative integer",
                    );
                }
            },
            _ => {}
        }
    }
    match registry.list(&filter).await {
        Ok(agents) => {
            let agents = Value::Array(agents.iter().map(enriched).collect());
            if wrap {
                Json(json!({ "agents": agents })).into_response()
            } else {
                Json(agents).into_response()
            }
        }
        Err(failure) => failed(&failure),
    }
}

async fn get_agent(state: Shared, Path(agent_id): Path<String>) -> Response {
    get_named(state, &agent_id).await
}

async fn get_named(State(registry): Shared, agent_id: &str) -> Response {
    match registry.get(agent_id).await {
        Ok(Some(agent)) => Json(enriched(&agent)).into_response(),
        Ok(None) => error(StatusCode::NOT_FOUND, NOT_FOUND),
        Err(failure) => failed(&failure),
    }
}

async fn heartbeat(State(registry): Shared, body: Bytes) -> Response {
    let agent_id = match agent_id_of(&body) {
        Ok(agent_id) => agent_id,
        Err(reason) => return error(StatusCode::BAD_REQUEST, reason),
    };
    match registry.heartbeat(&agent_id).await {
        Ok(Some(last_seen)) => {
            Json(json!({"agent_id": agent_id, "last_seen": format_time(last_seen)})).into_response()
        }
        // An unknown agent's heartbeat is 400, not 404, as KubeMQ answers.
        Ok(None) => error(StatusCode::BAD_REQUEST, NOT_FOUND),
        Err(failure) => failed(&failure),
    }
}

async fn deregister(state: Shared, body: Bytes) -> Response {
    match agent_id_of(&body) {
        Ok(agent_id) => delete_named(state, &agent_id).await,
        Err(reason) => error(StatusCode::BAD_REQUEST, reason),
    }
}

async fn delete_agent(state: Shared, Path(agent_id): Path<String>) -> Response {
    delete_named(state, &agent_id).await
}

async fn delete_named(State(registry): Shared, agent_id: &str) -> Response {
    match registry.deregister(agent_id).await {
        Ok(true) => Json(json!({"agent_id": agent_id, "status": "deregistered"})).into_response(),
        Ok(false) => error(StatusCode::NOT_FOUND, NOT_FOUND),
        Err(failure) => failed(&failure),
    }
}

/// The `agent_id` of a heartbeat or deregister body, or why there is none (for a 400).
fn agent_id_of(body: &[u8]) -> Result<String, &'static str> {
    let Ok(body) = serde_json::from_slice::<Value>(body) else {
        return Err("the body is not valid JSON");
    };
    match body.get("agent_id") {
        Some(Value::String(agent_id)) => Ok(agent_id.clone()),
        Some(_) | None => Err("agent_id is required"),
    }
}

/// The one place a [`RegistryError`] becomes a status and a body.
fn failed(failure: &RegistryError) -> Response {
    match failure {
        RegistryError::InvalidRecord(reason) => error(StatusCode::BAD_REQUEST, &reason.to_string()),
        RegistryError::InvalidSignature(reason) => error(
            StatusCode::BAD_REQUEST,
            &format!("invalid card signature: {reason}"),
        ),
        RegistryError::Full { .. } => error(StatusCode::CONFLICT, &failure.to_string()),
        RegistryError::InvalidUrl { .. }
        | RegistryError::InvalidOption { .. }
        | RegistryError::Connect { .. }
        | RegistryError::Migration { .. }
        | RegistryError::SchemaTooNew { .. }
        | RegistryError::Database(_)
        | RegistryError::Corrupt { .. } => {
            tracing::error!(error = %failure, source = ?std::error::Error::source(failure), "registry call failed");
            error(StatusCode::INTERNAL_SERVER_ERROR, "registry unavailable")
        }
    }
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({"error": message}))).into_response()
}
