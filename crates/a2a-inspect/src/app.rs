//! [`Inspector`]: the state (connections, wire log, push inbox) and the axum router that
//! serves the page and its API.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use a2a_client::transport::{HttpTransport, Transport};
use axum::Router;
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{delete, get, post};
use futures::{Stream, StreamExt as _};
use serde::Deserialize;
use serde_json::json;

use crate::connection::Auth;
use crate::error::ApiError;
use crate::push::PushInbox;
use crate::state::{AppState, Shared, normalise};
use crate::wire::WireLog;

/// The page's Content-Security-Policy: nothing but this origin, no inline code.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
     style-src 'self'; script-src 'self'; connect-src 'self'";

/// The header every API call that changes something must carry.
pub const INSPECTOR_HEADER: &str = "x-inspector";

/// How many push deliveries the inbox keeps.
const PUSH_CAPACITY: usize = 500;

/// The largest message the page may send by default: files travel in it as base64.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

/// The inspector: its connections to agents, the wire log of every call, the push inbox.
///
/// Cheap to clone; clones share everything.
#[derive(Debug, Clone)]
pub struct Inspector {
    pub(crate) state: Arc<Shared>,
}

/// Settings for an [`Inspector`].
#[derive(Debug, Default)]
#[must_use]
pub struct InspectorBuilder {
    base_url: Option<String>,
    presets: Vec<(String, Auth)>,
    request_timeout: Option<Duration>,
    transport: Option<Arc<dyn Transport>>,
    max_message_bytes: Option<usize>,
}

impl InspectorBuilder {
    /// The address the page is served at (`http://127.0.0.1:PORT`), which the push webhook
    /// is under; [`Inspector::serve`] sets it from its listener when not given.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into().trim_end_matches('/').to_owned());
        self
    }

    /// Uses `auth` when the page connects to `url` without credentials of its own (the
    /// credentials given to `a2a inspect URL` on its command line).
    pub fn credentials_for(mut self, url: impl Into<String>, auth: Auth) -> Self {
        self.presets.push((normalise(&url.into()), auth));
        self
    }

    /// The time limit of one call to an agent (default 60 s).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = Some(timeout);
        self
    }

    /// The largest message the page may send, files (as base64) included
    /// [default: [`DEFAULT_MAX_MESSAGE_BYTES`]]; a larger one is refused with 413.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = Some(bytes);
        self
    }

    /// Calls agents through `transport` instead of a new network transport.
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.transport = Some(transport);
        self
    }

    /// Builds the inspector.
    ///
    /// # Errors
    /// When the network transport cannot be made (TLS roots unavailable).
    pub fn build(self) -> Result<Inspector, a2a_client::ClientError> {
        let http: Arc<dyn Transport> = match self.transport {
            Some(transport) => transport,
            None => Arc::new(HttpTransport::new()?),
        };
        Ok(Inspector {
            state: Arc::new(Shared {
                connections: RwLock::new(BTreeMap::new()),
                next_connection: AtomicU64::new(1),
                wire: Arc::new(WireLog::new()),
                push: PushInbox::new(PUSH_CAPACITY),
                http,
                base_url: RwLock::new(self.base_url),
                presets: self.presets,
                request_timeout: self.request_timeout.unwrap_or(Duration::from_secs(60)),
                max_message_bytes: self.max_message_bytes.unwrap_or(DEFAULT_MAX_MESSAGE_BYTES),
            }),
        })
    }
}

impl Inspector {
    /// Settings, then [`InspectorBuilder::build`].
    pub fn builder() -> InspectorBuilder {
        InspectorBuilder::default()
    }

    /// The wire log.
    pub fn wire(&self) -> &Arc<WireLog> {
        &self.state.wire
    }

    /// The push inbox.
    pub fn push(&self) -> &PushInbox {
        &self.state.push
    }

    /// The page and its API, ready to serve.
    pub fn router(&self) -> Router {
        let api = Router::new()
            .route("/api/info", get(info))
            .route("/api/connect", post(crate::connect::connect))
            .route("/api/connections", get(list_connections))
            .route("/api/connections/{c}", delete(delete_connection))
            .route(
                "/api/connections/{c}/send",
                post(crate::chat::send).layer(DefaultBodyLimit::max(self.state.max_message_bytes)),
            )
            .route("/api/connections/{c}/tasks", get(crate::tasks::list))
            .route("/api/connections/{c}/tasks/{id}", get(crate::tasks::get))
            .route(
                "/api/connections/{c}/tasks/{id}/cancel",
                post(crate::tasks::cancel),
            )
            .route(
                "/api/connections/{c}/tasks/{id}/events",
                get(crate::tasks::events),
            )
            .route("/api/connections/{c}/agents", get(crate::gateway::agents))
            .route(
                "/api/connections/{c}/agents/{id}/liveness",
                get(crate::gateway::liveness),
            )
            .route("/api/wire", get(wire_calls))
            .route("/api/wire/events", get(wire_events))
            .route("/api/push", get(push_deliveries))
            .route("/api/push/events", get(push_events))
            .fallback(api_not_found)
            .layer(axum::middleware::from_fn(guard))
            .with_state(Arc::clone(&self.state));
        Router::new()
            .route("/", get(crate::assets::index))
            .route("/assets/{file}", get(crate::assets::file))
            .merge(api)
            .merge(self.state.push.router())
            .layer(axum::middleware::from_fn(security_headers))
    }

    /// Serves [`router`](Self::router) on `listener` until the process ends; the push
    /// webhook's address is taken from the listener unless the builder set one.
    ///
    /// # Errors
    /// The listener's.
    pub async fn serve(&self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        let address = listener.local_addr()?;
        {
            let mut base = self
                .state
                .base_url
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            if base.is_none() {
                *base = Some(format!("http://{address}"));
            }
        }
        axum::serve(listener, self.router()).await
    }

    /// [`serve`](Self::serve), stopping when `shutdown` completes.
    ///
    /// # Errors
    /// The listener's.
    pub async fn serve_with_shutdown(
        &self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let address = listener.local_addr()?;
        {
            let mut base = self
                .state
                .base_url
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            if base.is_none() {
                *base = Some(format!("http://{address}"));
            }
        }
        axum::serve(listener, self.router())
            .with_graceful_shutdown(shutdown)
            .await
    }
}

/// The page's security headers on every answer; `no-store` on API answers.
async fn security_headers(request: Request, next: Next) -> Response {
    let is_api = request.uri().path().starts_with("/api/");
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if is_api {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// Refuses API calls that change something unless they carry `X-Inspector: 1`: a page of
/// another origin cannot add that header without a CORS preflight, which is never granted,
/// so it cannot use the credentials this process holds.
async fn guard(request: Request, next: Next) -> Response {
    let changes = !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    let marked = request
        .headers()
        .get(INSPECTOR_HEADER)
        .is_some_and(|value| value.as_bytes() == b"1");
    if changes && !marked {
        let mut refused = ApiError::bad_request(
            "This call must come from the inspector's page (the X-Inspector header is missing).",
        );
        refused.status = axum::http::StatusCode::FORBIDDEN;
        return refused.into_response();
    }
    next.run(request).await
}

async fn api_not_found() -> ApiError {
    ApiError::bad_request("There is no such API call.")
}

async fn info(State(state): AppState) -> Json<serde_json::Value> {
    let base = state.base_url();
    let bind = base.strip_prefix("http://").unwrap_or(&base).to_owned();
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "webhook": format!("{base}/webhook"),
        "bind": bind,
    }))
}

async fn list_connections(State(state): AppState) -> Json<serde_json::Value> {
    let connections: Vec<serde_json::Value> = state
        .connections
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .values()
        .map(|connection| connection.summary())
        .collect();
    Json(json!({ "connections": connections }))
}

async fn delete_connection(
    State(state): AppState,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let connection = state.connection(&id)?;
    state
        .connections
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&connection.number);
    state.push.forget(&connection.id);
    Ok(Json(json!({ "deleted": id })))
}

#[derive(Debug, Deserialize)]
struct After {
    #[serde(default)]
    after: Option<u64>,
}

async fn wire_calls(State(state): AppState, Query(after): Query<After>) -> Json<serde_json::Value> {
    Json(json!({ "calls": state.wire.calls_after(after.after.unwrap_or(0)) }))
}

/// `event: NAME` frames of each value kept, then of each value `receiver` gives, as they
/// come.
pub(crate) fn broadcast_events<T: serde::Serialize + Clone + Send + 'static>(
    (kept, receiver): (Vec<T>, tokio::sync::broadcast::Receiver<T>),
    name: &'static str,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let event = move |value: &T| {
        Event::default()
            .event(name)
            .json_data(value)
            .unwrap_or_else(|_| Event::default().comment("unencodable"))
    };
    let first = futures::stream::iter(
        kept.into_iter()
            .map(move |value| Ok::<_, Infallible>(event(&value))),
    );
    let live = futures::stream::unfold(receiver, move |mut receiver| async move {
        loop {
            match receiver.recv().await {
                Ok(value) => return Some((Ok(event(&value)), receiver)),
                // A slow reader missed some: carry on with the newest.
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(first.chain(live)).keep_alive(KeepAlive::default())
}

async fn wire_events(State(state): AppState) -> impl IntoResponse {
    broadcast_events(state.wire.follow(), "call")
}

async fn push_deliveries(State(state): AppState) -> Json<serde_json::Value> {
    Json(json!({ "deliveries": state.push.deliveries() }))
}

async fn push_events(State(state): AppState) -> impl IntoResponse {
    broadcast_events(state.push.follow(), "delivery")
}
