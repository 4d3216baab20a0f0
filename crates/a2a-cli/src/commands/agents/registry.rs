//! The gateway's registry API, as a client calls it, with the ways a call fails.

use std::time::Duration;

use a2a_server::auth::Secret;
use anyhow::Context as _;
use serde_json::Value;

use super::args::Target;
use crate::error::{UnreachableError, UsageError};

/// A registry call that failed once the gateway was reached (exit code 1).
#[derive(Debug, thiserror::Error)]
pub(super) enum RegistryCallError {
    /// The gateway answered with an error status.
    #[error("the gateway answered HTTP {status}: {message}")]
    Refused { status: u16, message: String },
    /// The id is not registered (404, or 400 "agent not found" for heartbeats).
    #[error("agent not found: {0}")]
    NotFound(String),
    /// A 2xx answer that is not what the API returns.
    #[error("the gateway's answer cannot be read: {0}")]
    Unreadable(String),
}

/// What a call to the gateway may fail with.
#[derive(Debug)]
pub(super) enum CallFailure {
    /// Not reached at all (exit code 3).
    Unreachable(UnreachableError),
    /// Reached, but refused or answered nonsense (exit code 1).
    Call(RegistryCallError),
}

impl CallFailure {
    /// An "agent not found" answer named after `agent_id`.
    pub(super) fn about(self, agent_id: &str) -> anyhow::Error {
        match self {
            Self::Call(RegistryCallError::Refused { status, message })
                if matches!(status, 400 | 404) && message == "agent not found" =>
            {
                RegistryCallError::NotFound(agent_id.to_owned()).into()
            }
            other => other.into(),
        }
    }
}

impl From<CallFailure> for anyhow::Error {
    fn from(failure: CallFailure) -> Self {
        match failure {
            CallFailure::Unreachable(error) => error.into(),
            CallFailure::Call(error) => error.into(),
        }
    }
}

/// The gateway could not be reached.
#[derive(Debug, thiserror::Error)]
#[error("cannot reach the gateway at {url}")]
pub(super) struct GatewayUnreachable {
    pub(super) url: String,
    #[source]
    pub(super) source: reqwest::Error,
}

/// The gateway's registry API.
pub(super) struct Registry {
    pub(super) http: reqwest::Client,
    pub(super) root: url::Url,
    pub(super) key: Option<Secret>,
}

impl Registry {
    pub(super) fn new(target: &Target) -> anyhow::Result<Self> {
        let root = url::Url::parse(target.gateway.trim())
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https"))
            .ok_or_else(|| {
                UsageError::new(format!(
                    "GATEWAY `{}` is not an http:// or https:// URL",
                    target.gateway
                ))
            })?;
        let timeout: Duration = target.timeout.0;
        if timeout.is_zero() {
            return Err(UsageError::new("--timeout must be more than 0").into());
        }
        let mut http = reqwest::Client::builder().timeout(timeout);
        if let Some(path) = &target.cacert {
            let shown = path.display();
            let pem = std::fs::read(path)
                .map_err(|error| UsageError::new(format!("--cacert {shown}: {error}")))?;
            let certificates = reqwest::Certificate::from_pem_bundle(&pem)
                .ok()
                .filter(|certificates| !certificates.is_empty())
                .ok_or_else(|| {
                    UsageError::new(format!("--cacert {shown} holds no PEM certificate"))
                })?;
            for certificate in certificates {
                http = http.add_root_certificate(certificate);
            }
        }
        let http = http
            .build()
            .context("cannot build the HTTP client for the gateway")?;
        Ok(Self {
            http,
            root,
            key: target.key.clone().filter(|key| !key.is_empty()),
        })
    }

    /// The gateway's URL with `segments` appended to its path (each percent-encoded).
    pub(super) fn url(&self, segments: &[&str]) -> url::Url {
        let mut url = self.root.clone();
        url.set_query(None);
        url.set_fragment(None);
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        url
    }

    /// `request` with the registry key, when one is set.
    pub(super) fn write(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.key {
            Some(key) => request.bearer_auth(key.expose()),
            None => request,
        }
    }

    /// Sends `request`; the JSON of a 2xx answer, or why not.
    pub(super) async fn call(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<Value, CallFailure> {
        let unreachable = |source: reqwest::Error| {
            CallFailure::Unreachable(UnreachableError::from_error(GatewayUnreachable {
                url: self.root.as_str().trim_end_matches('/').to_owned(),
                source: source.without_url(),
            }))
        };
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(unreachable)?;
        let body = serde_json::from_str::<Value>(&text);
        if (200..300).contains(&status) {
            return body.map_err(|_| {
                CallFailure::Call(RegistryCallError::Unreadable("not JSON".to_owned()))
            });
        }
        let message = crate::register::error_message(&text);
        Err(CallFailure::Call(RegistryCallError::Refused {
            status,
            message,
        }))
    }
}
