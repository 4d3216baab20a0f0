//! [`Settings::resolve`]: the merged options checked and turned into settings.

use std::net::SocketAddr;

use a2a_server::ServerConfig;

use super::agent::agent;
use super::checks::{card_source, nonzero, positive, protocol_choices};
use super::log::log_level;
use super::model::DEFAULT_SHUTDOWN_GRACE;
use super::store::store;
use super::urls::{binding, grpc_public_url, public_url, route_path};
use super::{CardSource, DEFAULT_BIND};
use crate::config::ConfigError;
use crate::config::connections::{self};
use crate::config::options::{LogFormat, ServeOptions};
use crate::config::push::{self};
use crate::config::register::{self};
use crate::config::security::{self, AuthSetting};
use crate::config::{AgentSetup, Settings};

impl Settings {
    /// Applies defaults to the merged options and checks them.
    pub(crate) fn resolve(options: ServeOptions) -> Result<Self, ConfigError> {
        let mut server = ServerConfig::default();
        if let Some(on) = options.return_immediately {
            server.default_return_immediately = on;
        }
        if let Some(timeout) = options.async_timeout {
            server.async_timeout = positive("async-timeout", timeout.0)?;
        }
        if let Some(timeout) = options.blocking_timeout {
            server.blocking_timeout = timeout.0;
        }
        if let Some(timeout) = options.event_consumption_timeout {
            server.event_consumption_timeout = timeout.0;
        }
        if let Some(timeout) = options.store_reconciliation_timeout {
            server.store_reconciliation_timeout = timeout.0;
        }
        if let Some(on) = options.populate_referenced_tasks {
            server.populate_referenced_tasks = on;
        }
        if let Some(ttl) = options.stuck_task_ttl {
            server.stuck_task_ttl = ttl.0;
        }
        if let Some(max) = options.max_concurrent_tasks {
            server.max_concurrent_tasks = max;
        }
        if let Some(size) = options.task_queue_size {
            server.task_queue_size = size;
        }
        if let Some(size) = options.max_payload_size {
            server.max_payload_size = nonzero("max-payload-size", size)?;
        }
        if let Some(interval) = options.sse_heartbeat_interval {
            server.sse_keepalive = positive("sse-heartbeat-interval", interval.0)?;
        }
        if let Some(capacity) = options.sse_queue_capacity {
            server.sse_queue_capacity = nonzero("sse-queue-capacity", capacity)?;
        }
        server.cors = crate::config::cors::cors(&options)?;
        if let Some(age) = options.card_max_age {
            server.card_max_age = age.0;
        }
        card_source(&options)?;
        protocol_choices(&options, &mut server)?;
        let store = store(&options)?;
        let auth = security::auth(&options)?;
        let tls = security::tls(&options)?;
        let push = push::push(&options)?;
        let register = register::register(&options)?;
        let agent = agent(&options)?;
        let connections = connections::connections(&options)?;
        if let Some(push) = &push {
            server.push = push.options.clone();
        }
        Ok(Self {
            bind: options.bind.unwrap_or_else(|| DEFAULT_BIND.to_owned()),
            public_url: options.public_url.as_deref().map(public_url).transpose()?,
            base_path: options
                .base_path
                .as_deref()
                .map(route_path)
                .unwrap_or_default(),
            card_path: options
                .card_path
                .as_deref()
                .map_or_else(|| a2a_server::WELL_KNOWN_CARD_PATH.to_owned(), route_path),
            protocol_binding: options
                .protocol_binding
                .as_deref()
                .map(|name| binding(name, options.grpc_bind.is_some()))
                .transpose()?,
            grpc_bind: options.grpc_bind,
            grpc_public_url: options
                .grpc_public_url
                .as_deref()
                .map(grpc_public_url)
                .transpose()?,
            card: CardSource {
                file: options.card,
                url: options.card_url,
                inline: options.card_json,
                name: options.name,
                description: options.description,
                version: options.version,
                extended: options.extended_card,
                signing_key: options.card_signing_key,
                signing_key_id: options.card_signing_key_id,
            },
            agent,
            store,
            server,
            auth,
            tls,
            push,
            register,
            connections,
            shutdown_grace: options
                .shutdown_grace
                .map_or(DEFAULT_SHUTDOWN_GRACE, |grace| grace.0),
            log_format: options.log_format.unwrap_or(LogFormat::Text),
            log_level: log_level(options.log_level.unwrap_or_else(|| "info".to_owned()))?,
        })
    }

    /// The scheme clients reach the server with: `https` when TLS is configured.
    pub(crate) fn scheme(&self) -> &'static str {
        if self.tls.is_some() { "https" } else { "http" }
    }

    /// Insecure development settings in force, each as a sentence for a start-up warning: a
    /// listener beyond loopback without authentication serves anyone who can reach it; one
    /// without TLS sends credentials in the clear.
    pub(crate) fn insecure_settings(&self, bound: SocketAddr) -> Vec<String> {
        let mut warnings = Vec::new();
        if !bound.ip().is_loopback()
            && self.tls.is_none()
            && matches!(self.auth, AuthSetting::Required(_))
        {
            warnings.push(format!(
                "listening on {bound} without TLS: credentials and messages cross the network in the clear"
            ));
        }
        if self
            .push
            .as_ref()
            .is_some_and(|push| push.options.allow_local_webhooks)
        {
            warnings.push(
                "local webhooks are allowed (--allow-local-webhooks): callers can make this server \
                 POST to its own loopback services"
                    .to_owned(),
            );
        }
        if !bound.ip().is_loopback() && self.auth == AuthSetting::Disabled {
            let what = match &self.agent {
                AgentSetup::Exec(command) => {
                    format!("and runs `{}` with their input", command.program)
                }
                AgentSetup::Llm(setup) => format!("the model {} and its tools", setup.model),
                AgentSetup::Echo | AgentSetup::Conformance => "the agent".to_owned(),
            };
            warnings.push(format!(
                "listening on {bound} without authentication: anyone who can reach it uses {what}"
            ));
        }
        warnings
    }
}
