//! [`Gateway`]: the registry API, the proxy and the metrics assembled on one router, as
//! `a2a gateway` serves them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use a2a_server::MetricsRender;
use a2a_server::auth::Secret;
use a2a_server::health::{self, HEALTHZ_PATH, READYZ_PATH};
use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use http::header::{self, HeaderValue};
use http::{Method, StatusCode};
use serde_json::json;

use crate::agent::AgentDirectory;
use crate::metrics::{AgentSeries, Metrics, TEXT_FORMAT, UNKNOWN_AGENT};
use crate::proxy::{self, ProxyConfig};
use crate::registry::{self, Registry};

/// Everything a gateway serves, over one [`Registry`]:
///
/// | routes | what |
/// |---|---|
/// | `/agents…` | the registry API ([`registry::router`]), writes guarded by [`Gateway::registry_key`] |
/// | `/a2a/{agent_id}…`, `/.well-known/agent-card.json` | the proxy ([`proxy::router`]) |
/// | `GET /metrics` | the page of [`Gateway::metrics`] (served only when one is set, and on [`Gateway::metrics_router`] alone after [`Gateway::metrics_apart`]); at each scrape the live agents are listed, so the registry-size gauge is right with several instances over one database and the series of agents that are gone are dropped ([`Gateway::agent_series`]) |
/// | `GET /healthz` | 200 `{"status":"ok"}` while the process serves |
/// | `GET /readyz` | 200 `{"status":"ready"}` when the registry's database answers `SELECT 1` in time; 503 `{"status":"draining"}` after [`Gateway::drain`], 503 `{"status":"store unreachable"}` otherwise |
///
/// The health checks need no credentials (neither the callers' JWT nor the registry key).
///
/// CORS headers are added for [`ProxyConfig::trusted_origins`] on every route.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use a2a_gateway::Gateway;
/// use a2a_gateway::proxy::ProxyConfig;
/// use a2a_gateway::registry::{Registry, RegistryOptions};
///
/// let registry = Registry::connect("sqlite://gateway.db", RegistryOptions::new()).await?;
/// let gateway = Gateway::new(Arc::new(registry), ProxyConfig::default())
///     .registry_key("change-me");
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:9090").await?;
/// axum::serve(listener, gateway.router()).await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Gateway {
    registry: Arc<Registry>,
    metrics: Arc<Metrics>,
    proxy: ProxyConfig,
    registry_key: Option<Arc<Secret>>,
    page: Option<MetricsRender>,
    agent_series: Option<Arc<dyn AgentSeries>>,
    /// `/metrics` is served by [`Gateway::metrics_router`] alone, not beside the proxy.
    metrics_apart: bool,
    /// Set by [`Gateway::drain`]; shared by every clone and router.
    draining: Arc<AtomicBool>,
}

impl Gateway {
    /// A gateway over `registry`, forwarding as `proxy` says, with fresh metrics.
    #[must_use]
    pub fn new(registry: Arc<Registry>, proxy: ProxyConfig) -> Self {
        Self {
            registry,
            metrics: Arc::new(Metrics::new()),
            proxy,
            registry_key: None,
            page: None,
            agent_series: None,
            metrics_apart: false,
            draining: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Marks the gateway as draining: from now on `/readyz` answers 503, so load balancers
    /// stop sending callers here while the calls in flight finish. Call it when shutdown
    /// begins; there is no way back.
    pub fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// Requires `key` on the registry's writes (register, heartbeat, deregister), as
    /// `Authorization: Bearer <key>` or `X-API-Key: <key>`; others get 401
    /// `{"error":"registry key required"}`. Without one, anybody who reaches the gateway can
    /// register an agent id and so decide where its calls go: set one unless every caller
    /// is trusted. Reads (`GET /agents…`) stay open: they show cards, which are public.
    #[must_use]
    pub fn registry_key(mut self, key: impl Into<Secret>) -> Self {
        let key = key.into();
        self.registry_key = (!key.is_empty()).then(|| Arc::new(key));
        self
    }

    /// Serves `GET /metrics` (unauthenticated, like the health checks) with what `render`
    /// returns: the installed recorder's page. The gateway records its series through the
    /// `metrics` facade ([`crate::metrics`]); installing a recorder and rendering it is the
    /// caller's choice.
    #[must_use]
    pub fn metrics(mut self, render: MetricsRender) -> Self {
        self.page = Some(render);
        self
    }

    /// Asks `series` at each scrape of `/metrics` to drop the series of agents that are no
    /// longer registered (deregistered, or expired); see [`crate::metrics`].
    #[must_use]
    pub fn agent_series(mut self, series: Arc<dyn AgentSeries>) -> Self {
        self.agent_series = Some(series);
        self
    }

    /// Serves `/metrics` only on [`metrics_router`](Self::metrics_router), for a listener
    /// of its own (an address only the scraper reaches), not on [`router`](Self::router).
    #[must_use]
    pub fn metrics_apart(mut self) -> Self {
        self.metrics_apart = true;
        self
    }

    /// `GET /metrics` alone, as [`router`](Self::router) serves it (nothing without a
    /// [`metrics`](Self::metrics) page).
    pub fn metrics_router(&self) -> Router {
        let mut metrics = Router::new();
        if let Some(page) = &self.page {
            // Served only with a page to show: the library records, its host exports.
            let scrape = Scrape {
                registry: Arc::clone(&self.registry),
                metrics: Arc::clone(&self.metrics),
                page: page.clone(),
                agent_series: self.agent_series.clone(),
            };
            metrics = metrics.route(
                "/metrics",
                axum::routing::get(render_metrics).with_state(Arc::new(scrape)),
            );
        }
        metrics
    }

    /// The registry the gateway routes by.
    #[must_use]
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The routes, ready to serve.
    pub fn router(&self) -> Router {
        let directory: Arc<dyn AgentDirectory> = self.registry.clone();
        let proxied = proxy::router(directory, self.proxy.clone(), Arc::clone(&self.metrics));
        let mut registry = registry::router(Arc::clone(&self.registry));
        if let Some(key) = &self.registry_key {
            registry = registry.layer(axum::middleware::from_fn_with_state(
                Arc::clone(key),
                guard_writes,
            ));
        }
        let metrics = if self.metrics_apart {
            Router::new()
        } else {
            self.metrics_router()
        };
        let health = Router::new()
            .route(HEALTHZ_PATH, axum::routing::get(live))
            .route(READYZ_PATH, axum::routing::get(ready))
            .with_state(Arc::new(Health {
                registry: Arc::clone(&self.registry),
                draining: Arc::clone(&self.draining),
            }));
        let own = proxy::cors::apply(
            registry.merge(metrics).merge(health),
            &self.proxy.trusted_origins,
        );
        own.merge(proxied)
    }
}

/// Refuses registry writes without the key.
async fn guard_writes(State(key): State<Arc<Secret>>, request: Request, next: Next) -> Response {
    let writes = request.method() == Method::POST || request.method() == Method::DELETE;
    if !writes || presented(&request).is_some_and(|presented| key.matches(presented)) {
        return next.run(request).await;
    }
    let mut response = (
        StatusCode::UNAUTHORIZED,
        axum::Json(json!({"error": "registry key required"})),
    )
        .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"a2a-gateway registry\""),
    );
    response
}

/// The key a request presents: its bearer token, else its `X-API-Key`.
fn presented(request: &Request) -> Option<&[u8]> {
    let headers = request.headers();
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .map(str::as_bytes);
    bearer.or_else(|| headers.get("x-api-key").map(HeaderValue::as_bytes))
}

/// What `/readyz` looks at.
#[derive(Debug)]
struct Health {
    registry: Arc<Registry>,
    draining: Arc<AtomicBool>,
}

/// `GET /healthz`.
async fn live() -> Response {
    health::live_response()
}

/// `GET /readyz`: not while draining, nor while the registry's database does not answer.
async fn ready(State(state): State<Arc<Health>>) -> Response {
    let draining = state.draining.load(Ordering::Relaxed);
    health::ready_response(
        health::check(draining, "registry database", state.registry.ping()).await,
    )
}

#[derive(Debug)]
struct Scrape {
    registry: Arc<Registry>,
    metrics: Arc<Metrics>,
    page: MetricsRender,
    agent_series: Option<Arc<dyn AgentSeries>>,
}

/// `GET /metrics`: lists the live agents (their count, and whose series to keep), then
/// renders the page.
async fn render_metrics(State(scrape): State<Arc<Scrape>>) -> Response {
    match scrape.registry.live_agent_ids().await {
        Ok(live) => {
            scrape.metrics.set_registered_agents(live.len());
            if let Some(series) = &scrape.agent_series {
                series.retain_agents(&|agent_id| {
                    agent_id == UNKNOWN_AGENT || live.contains(agent_id)
                });
            }
        }
        // The last count and the series stay; the scrape still shows the proxy's series.
        Err(error) => tracing::warn!(error = %error, "cannot list the registered agents"),
    }
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(TEXT_FORMAT))],
        scrape.page.render(),
    )
        .into_response()
}
