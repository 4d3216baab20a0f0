//! [`A2aServer`] and its builder: from a card and an executor to a router, with every
//! configuration problem found at build time. The card is the routing
//! table: each of its JSON-RPC and HTTP+JSON 1.x interfaces is served at its URL's path, and
//! a gRPC 1.x interface by [`A2aServer::grpc_router`] on a listener of its own.

use std::sync::Arc;

use a2a_types::{AgentCard, ProtocolBinding};

use crate::auth::{AuthConfigError, Authentication, Authenticator};
use crate::binding::{self, Endpoint};
use crate::cluster::{Cluster, SingleInstance};
use crate::config::ServerConfig;
use crate::cors::CorsPolicy;
use crate::executor::AgentExecutor;
use crate::handler::RequestHandler;
use crate::metrics_page::MetricsRender;
use crate::push::address::{Resolve, SystemResolver};
use crate::push::delivery::Dispatcher;
use crate::push::signing::{self, PushSigner};
use crate::store::{InMemoryPushConfigStore, InMemoryTaskStore, PushConfigStore, TaskStore};
use crate::turn::Engine;

/// An agent server: the request handler plus the routes of every served interface.
#[derive(Debug, Clone)]
pub struct A2aServer {
    handler: RequestHandler,
    endpoints: Vec<Endpoint>,
    options: binding::RouterOptions,
    /// The handler's engine, for [`A2aServer::shutdown`].
    engine: Arc<Engine>,
    /// `None` unless `ServerConfig::cors` switched CORS on (off by default).
    cors: Option<Arc<CorsPolicy>>,
    /// The card's gRPC 1.x interface: its tenant, or `None` when the card declares none.
    grpc_tenant: Option<String>,
}

impl A2aServer {
    /// Starts building a server for `card`, run by `executor`.
    pub fn builder(card: AgentCard, executor: impl AgentExecutor) -> A2aServerBuilder {
        A2aServerBuilder {
            card,
            executor: Arc::new(executor),
            store: None,
            cluster: None,
            config: ServerConfig::default(),
            authentication: Authentication::required(),
            extended_card: None,
            base_path: String::new(),
            card_path: binding::WELL_KNOWN_CARD_PATH.to_owned(),
            push_signer: None,
            card_signer: None,
            push_store: None,
            webhook_resolver: None,
            metrics: None,
            hooks: crate::hooks::Hooks::default(),
        }
    }

    /// The transport-agnostic handler, for in-process calls or any other HTTP stack.
    #[must_use]
    pub fn handler(&self) -> &RequestHandler {
        &self.handler
    }

    /// The endpoints served, one per usable card interface.
    #[must_use]
    pub fn endpoints(&self) -> &[Endpoint] {
        &self.endpoints
    }

    /// The key push deliveries are signed with, when one was configured with
    /// [`A2aServerBuilder::push_signer`].
    #[must_use]
    pub fn push_signer(&self) -> Option<&PushSigner> {
        self.options.push_signer.as_ref()
    }

    /// Stops the server's work gracefully: no new turns are accepted, running turns
    /// get `grace` to finish (then they are canceled and their tasks failed), queued tasks are
    /// failed and their subscribers told. Call it after the listener stopped accepting.
    ///
    /// From the call on, SendMessage and SendStreamingMessage answer Unavailable. Tasks failed
    /// here carry the status message "the server is shutting down". Returns once every turn
    /// settled; an executor that ignores its cancellation is dropped a few seconds after it.
    pub async fn shutdown(&self, grace: std::time::Duration) {
        self.engine.shutdown(grace).await;
    }

    /// An axum router serving the card, every endpoint and the health checks
    /// ([`crate::health`]: `/healthz`, `/readyz`), with CORS when configured (preflights
    /// answered on every path) and one access-log event per request ([`crate::access`]).
    /// Serving, TLS and other middleware stay the caller's.
    pub fn router(&self) -> axum::Router {
        self.engine.start_background();
        let router = binding::router(self.handler.clone(), &self.endpoints, &self.options);
        let router = match &self.cors {
            Some(cors) => Arc::clone(cors).apply(router),
            None => router,
        };
        router
            .layer(axum::middleware::from_fn(crate::access::log))
            .layer(axum::middleware::from_fn(crate::trace::request))
    }
}

impl A2aServer {
    /// An axum router serving the gRPC binding (`lf.a2a.v1.A2AService`), authenticated like
    /// the other endpoints, with the payload limit as its message size limit. Serve it over
    /// HTTP/2 on its own listener: `axum::serve` speaks HTTP/2 without TLS (prior
    /// knowledge), and [`serve_tls_h2`](crate::tls::serve_tls_h2) over TLS. Requests that
    /// name no tenant get the one the card gives its gRPC interface. Each call logs one
    /// access-log event ([`crate::access`]; its `status` is the HTTP one, the gRPC status
    /// travels in trailers).
    pub fn grpc_router(&self) -> axum::Router {
        self.engine.start_background();
        binding::grpc::router(
            self.handler.clone(),
            self.grpc_tenant.clone().unwrap_or_default(),
            self.options.max_body_bytes,
        )
        .layer(axum::middleware::from_fn(crate::access::log))
        .layer(axum::middleware::from_fn(crate::trace::request))
    }

    /// Whether the card declares a gRPC 1.x interface.
    #[must_use]
    pub fn declares_grpc(&self) -> bool {
        self.grpc_tenant.is_some()
    }
}

/// Builds an [`A2aServer`].
#[must_use]
pub struct A2aServerBuilder {
    card: AgentCard,
    executor: Arc<dyn AgentExecutor>,
    store: Option<Arc<dyn TaskStore>>,
    cluster: Option<Arc<dyn Cluster>>,
    config: ServerConfig,
    authentication: Authentication,
    extended_card: Option<AgentCard>,
    base_path: String,
    card_path: String,
    push_signer: Option<PushSigner>,
    card_signer: Option<a2a_signature::SigningKey>,
    push_store: Option<Arc<dyn PushConfigStore>>,
    webhook_resolver: Option<Arc<dyn Resolve>>,
    metrics: Option<MetricsRender>,
    /// Set by the methods of [`crate::hooks`].
    pub(crate) hooks: crate::hooks::Hooks,
}

impl std::fmt::Debug for A2aServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aServerBuilder")
            .field("card", &self.card.name)
            .field("config", &self.config)
            .field("authentication", &self.authentication)
            .field("base_path", &self.base_path)
            .field("push_signer", &self.push_signer)
            .finish_non_exhaustive()
    }
}

impl A2aServerBuilder {
    /// Serves `GET /metrics` (unauthenticated, like the health checks) with what `render`
    /// returns, as Prometheus text: the recorder's page. The server records its series
    /// through the `metrics` facade ([`crate::metrics`]); installing a recorder and
    /// rendering it is the caller's choice.
    pub fn metrics(mut self, render: MetricsRender) -> Self {
        self.metrics = Some(render);
        self
    }

    /// Stores tasks in `store` (default: a fresh [`InMemoryTaskStore`]).
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// Stores tasks in a shared store.
    pub fn shared_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Serves the agent together with other instances over one shared store: `cluster`
    /// provides turn leases and cross-instance signals (default: [`SingleInstance`]). The
    /// SQL store of `a2a-store-sql` is both the store and the cluster.
    pub fn cluster(mut self, cluster: Arc<dyn Cluster>) -> Self {
        self.cluster = Some(cluster);
        self
    }

    /// Replaces the behaviour switches and timeouts.
    pub fn config(mut self, config: ServerConfig) -> Self {
        self.config = config;
        self
    }

    /// Checks callers with `authentication` against the card's `securitySchemes` and
    /// `securityRequirements`. The default is
    /// [`Authentication::required`] with nothing configured, which refuses every operation
    /// with 401 (fail closed); [`Authentication::disabled`] serves everyone.
    pub fn authentication(mut self, authentication: Authentication) -> Self {
        self.authentication = authentication;
        self
    }

    /// Serves `card` to GetExtendedAgentCard (the public card must declare
    /// `capabilities.extendedAgentCard`).
    pub fn extended_card(mut self, card: AgentCard) -> Self {
        self.extended_card = Some(card);
        self
    }

    /// Puts every route under `base_path`, e.g. `/agents/echo`.
    pub fn base_path(mut self, base_path: impl Into<String>) -> Self {
        self.base_path = base_path.into();
        self
    }

    /// Serves the public card at `path` instead of `/.well-known/agent-card.json`.
    pub fn card_path(mut self, path: impl Into<String>) -> Self {
        self.card_path = path.into();
        self
    }

    /// Keeps push configs and their delivery progress in `store` (default: a fresh
    /// [`InMemoryPushConfigStore`]). The SQL store of `a2a-store-sql` is one, and keeps
    /// pending deliveries across restarts and instances.
    pub fn push_store(mut self, store: Arc<dyn PushConfigStore>) -> Self {
        self.push_store = Some(store);
        self
    }

    /// Resolves webhook host names with `resolver` (default: the system's), at registration
    /// and again before every delivery (DNS may change in between).
    pub fn webhook_resolver(mut self, resolver: Arc<dyn Resolve>) -> Self {
        self.webhook_resolver = Some(resolver);
        self
    }

    /// Signs push deliveries with `signer` and serves its public keys, without
    /// authentication, at `/.well-known/jwks.json` under the base path (see
    /// [`crate::push::signing`]). Without a signer there is no such route.
    pub fn push_signer(mut self, signer: PushSigner) -> Self {
        self.push_signer = Some(signer);
        self
    }

    /// Signs the served agent card (and the extended card) with `key` (spec §11.5: a JWS
    /// over the RFC 8785 form of the card, `kid` and `alg` in the protected header) and adds
    /// its public key to the JWK Set served, without authentication, at
    /// `/.well-known/jwks.json` under the base path.
    pub fn card_signing_key(mut self, key: a2a_signature::SigningKey) -> Self {
        self.card_signer = Some(key);
        self
    }

    /// Checks the configuration and builds the server.
    ///
    /// # Errors
    /// [`ConfigError`] when the card has no servable interface, names an interface URL that
    /// is not a URL, declares a capability this server cannot provide, paths collide, or a
    /// declared security scheme has nothing to check it.
    pub fn build(self) -> Result<A2aServer, ConfigError> {
        if self.extended_card.is_some() && !self.card.capabilities.supports_extended_agent_card() {
            return Err(ConfigError::ExtendedCardNotDeclared);
        }
        let base_path = binding::normalize_path(&self.base_path);
        let mut endpoints = Vec::new();
        let mut grpc_tenant = None;
        for interface in &self.card.supported_interfaces {
            if !interface.is_v1() {
                // Other versions are someone else's to serve.
                continue;
            }
            let binding = match &interface.protocol_binding {
                ProtocolBinding::JsonRpc => binding::BindingKind::JsonRpc,
                ProtocolBinding::HttpJson => binding::BindingKind::HttpJson,
                // gRPC has no path: the first gRPC interface names the tenant, and
                // `grpc_router` serves it on a listener of its own.
                ProtocolBinding::Grpc => {
                    grpc_tenant.get_or_insert_with(|| interface.tenant.clone());
                    continue;
                }
                // Custom bindings are someone else's to serve.
                ProtocolBinding::Other(_) => continue,
            };
            let path = binding::url_path(&interface.url).ok_or_else(|| {
                ConfigError::InvalidInterfaceUrl {
                    url: interface.url.clone(),
                }
            })?;
            let endpoint = Endpoint {
                binding,
                path: binding::join_paths(&base_path, &path),
                tenant: interface.tenant.clone(),
            };
            if endpoints.iter().any(|known: &Endpoint| {
                known.binding == endpoint.binding && known.path == endpoint.path
            }) {
                continue;
            }
            endpoints.push(endpoint);
        }
        if endpoints.is_empty() && grpc_tenant.is_none() {
            return Err(ConfigError::NoServableInterface);
        }
        let store = self
            .store
            .unwrap_or_else(|| Arc::new(InMemoryTaskStore::new()));
        let max_body_bytes = self.config.max_payload_size;
        let rest_status_profile = self.config.rest_status_profile;
        let cors = self.config.cors.as_ref().map(|cors| {
            Arc::new(CorsPolicy::new(
                &cors.clone().with_card_credentials(&self.card),
            ))
        });
        let authenticator = Authenticator::new(&self.card, &self.authentication)?;
        let cluster = self
            .cluster
            .unwrap_or_else(|| Arc::new(SingleInstance::default()));
        let push = self.card.capabilities.supports_push_notifications().then(|| {
            store.retain_event_logs();
            if self.config.push.allow_local_webhooks {
                tracing::warn!(
                    "local webhooks are allowed: loopback and plain-http push URLs are accepted (development only)"
                );
            }
            Arc::new(Dispatcher::new(
                self.push_store
                    .unwrap_or_else(|| Arc::new(InMemoryPushConfigStore::new())),
                Arc::clone(&store),
                self.config.push.clone(),
                self.push_signer.clone(),
                self.webhook_resolver
                    .unwrap_or_else(|| Arc::new(SystemResolver::new())),
            ))
        });
        let executor =
            crate::hooks::with_extensions(self.executor, &self.card, self.hooks.extensions)
                .map_err(|uri| ConfigError::UndeclaredExtension { uri })?;
        let versions = self.config.protocol_versions;
        let mut engine = Engine::new(store, cluster, self.config, push, executor);
        engine.subscribers = self.hooks.subscribers;
        engine.failure_message = self.hooks.failure_message;
        engine.deps = self.hooks.deps;
        let engine = Arc::new(engine);
        // The cards as served: with the v0.3 interfaces and members when v0.3 is on.
        let sign = |mut card: AgentCard| -> Result<Arc<AgentCard>, ConfigError> {
            if let Some(key) = &self.card_signer {
                a2a_signature::sign_agent_card(&mut card, key, None)
                    .map_err(ConfigError::CardSigning)?;
            }
            Ok(Arc::new(card))
        };
        let card = sign(binding::served_card(&self.card, versions))?;
        let extended_card = self
            .extended_card
            .map(|card| sign(binding::served_card(&card, versions)))
            .transpose()?;
        let handler = RequestHandler::new(Arc::clone(&engine), card, extended_card, authenticator)
            .with_policy(self.hooks.owner, self.hooks.authorizer)
            .with_return_immediately(self.hooks.return_immediately)
            .with_stream_hooks(self.hooks.streams);
        Ok(A2aServer {
            handler,
            endpoints,
            engine,
            cors,
            grpc_tenant,
            options: binding::RouterOptions {
                card_path: binding::join_paths(
                    &base_path,
                    &binding::normalize_path(&self.card_path),
                ),
                max_body_bytes,
                rest_status_profile,
                push_signer: self.push_signer,
                card_jwk: self
                    .card_signer
                    .as_ref()
                    .map(|key| key.public_jwk().clone()),
                jwks_path: binding::join_paths(&base_path, signing::JWKS_PATH),
                metrics: self.metrics,
            },
        })
    }
}

/// A configuration the server cannot run with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The agent card could not be signed.
    #[error("{0}")]
    CardSigning(a2a_signature::CardSignatureError),
    /// No interface of the card is JSONRPC, HTTP+JSON or GRPC with protocol version 1.x.
    #[error("the agent card has no JSONRPC, HTTP+JSON or GRPC interface with protocol version 1.x")]
    NoServableInterface,
    /// An interface URL has no parseable path.
    #[error("interface url {url:?} is not an absolute http(s) url or path")]
    InvalidInterfaceUrl {
        /// The URL as written in the card.
        url: String,
    },
    /// The card's security schemes and the configured authentication do not fit.
    #[error(transparent)]
    Authentication(#[from] AuthConfigError),
    /// An extended card was given but the public card does not declare one.
    #[error(
        "an extended card was configured but the public card does not declare capabilities.extendedAgentCard"
    )]
    ExtendedCardNotDeclared,
    /// An extension handler was given for an extension the card does not declare.
    #[error(
        "an extension handler was configured for {uri:?}, which the card's capabilities.extensions does not declare"
    )]
    UndeclaredExtension {
        /// The handler's extension URI.
        uri: String,
    },
}
