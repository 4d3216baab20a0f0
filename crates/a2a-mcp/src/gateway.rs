//! The gateway watcher: a gateway's registry polled, so that agents that register or leave
//! change the tools (and connected hosts get MCP's list-changed notification).

use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::agent::Target;
use crate::server::Bridge;

/// How often the registry is read unless told otherwise.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(10);
/// The time limit of one registry read.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A gateway whose registry (`GET /agents`) lists the agents to offer.
#[derive(Debug, Clone)]
pub struct GatewayWatcher {
    url: String,
    interval: Duration,
    fixed: Vec<Target>,
    http: reqwest::Client,
}

impl GatewayWatcher {
    /// The gateway at `url` (its base URL, where `/agents` and `/a2a/{id}` are).
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn new(url: impl Into<String>) -> Result<Self, GatewayError> {
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|error| GatewayError::Unreachable(error.to_string()))?;
        Ok(Self {
            url: url.into().trim_end_matches('/').to_owned(),
            interval: DEFAULT_POLL_INTERVAL,
            fixed: Vec::new(),
            http,
        })
    }

    /// Reads the registry every `interval`.
    #[must_use]
    pub fn interval(mut self, interval: Duration) -> Self {
        self.interval = interval;
        self
    }

    /// Offers `targets` too, before the registry's agents (agents named on the command line).
    #[must_use]
    pub fn with_targets(mut self, targets: Vec<Target>) -> Self {
        self.fixed = targets;
        self
    }

    /// The targets to offer now: [`with_targets`](Self::with_targets)' and the registry's.
    ///
    /// # Errors
    /// As [`targets`](Self::targets).
    pub async fn all_targets(&self) -> Result<Vec<Target>, GatewayError> {
        let mut targets = self.fixed.clone();
        targets.extend(self.targets().await?);
        Ok(targets)
    }

    /// The registered agents now, in id order.
    ///
    /// # Errors
    /// The registry cannot be reached or its answer read.
    pub async fn targets(&self) -> Result<Vec<Target>, GatewayError> {
        let response = self
            .http
            .get(format!("{}/agents", self.url))
            .send()
            .await
            .map_err(|error| GatewayError::Unreachable(without_url(&error)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(GatewayError::Refused(status.as_u16()));
        }
        let answer: Value = response
            .json()
            .await
            .map_err(|_| GatewayError::Unreadable("the agent list is not JSON"))?;
        let records = match &answer {
            Value::Array(records) => records.as_slice(),
            Value::Object(wrapped) => match wrapped.get("agents") {
                Some(Value::Array(records)) => records.as_slice(),
                Some(Value::Null) => &[],
                _ => return Err(GatewayError::Unreadable("the agent list is not an array")),
            },
            _ => return Err(GatewayError::Unreadable("the agent list is not an array")),
        };
        let mut ids: Vec<&str> = records
            .iter()
            .filter_map(|record| record.get("agent_id").and_then(Value::as_str))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        Ok(ids
            .into_iter()
            .map(|id| Target::gateway_agent(&self.url, id))
            .collect())
    }

    /// Keeps `bridge` offering the registry's agents until `stop`: a registry that cannot be
    /// read leaves the tools as they are and is read again at the next interval.
    pub async fn watch(self, bridge: Bridge, stop: CancellationToken) {
        loop {
            match self.all_targets().await {
                Ok(targets) => {
                    let count = targets.len();
                    if bridge.set_targets(targets).await {
                        tracing::info!(agents = count, "the gateway's agents changed");
                    }
                }
                Err(error) => {
                    tracing::warn!(gateway = %self.url, %error, "cannot read the gateway's registry")
                }
            }
            tokio::select! {
                () = tokio::time::sleep(self.interval) => {}
                () = stop.cancelled() => return,
            }
        }
    }
}

/// reqwest's message without the URL it names (the URL is logged beside it).
fn without_url(error: &reqwest::Error) -> String {
    let mut error = error.to_string();
    if let Some(at) = error.find(" for url (") {
        error.truncate(at);
    }
    error
}

/// Why the registry cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GatewayError {
    /// Not reached.
    #[error("cannot reach the gateway: {0}")]
    Unreachable(String),
    /// Reached, and answered with an error status.
    #[error("the gateway answered HTTP {0}")]
    Refused(u16),
    /// A success that is not an agent list.
    #[error("the gateway's answer cannot be read: {0}")]
    Unreadable(&'static str),
}
