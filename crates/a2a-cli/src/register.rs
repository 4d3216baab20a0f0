//! `a2a serve --register`: keeping the served agent registered with an A2A gateway.
//!
//! After the listener is bound, a task registers the card (the v1.0 card with `agent_id`
//! beside its members, plus the KubeMQ `url` member naming the JSON-RPC interface, so both
//! our gateway and KubeMQ's accept it), then sends a heartbeat every interval. A heartbeat
//! the gateway answers with "agent not found" (it expired or restarted) leads to a new
//! registration. Failures are logged and retried with a doubling delay (1 s to 60 s, with
//! jitter, [`a2a_retry::Backoff`]), never fatal: the agent keeps serving. A gateway that
//! answers with `Retry-After` is not called again sooner (up to 60 s). On SIGINT/SIGTERM the agent deregisters before draining,
//! so the gateway stops routing calls to it.

use std::net::SocketAddr;
use std::time::Duration;

use a2a_retry::{Backoff, Retryable as _};
use a2a_types::AgentCard;
use anyhow::Context as _;
use serde_json::{Map, Value};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use a2a_server::auth::Secret;

use crate::config::{RegisterSetting, Settings};

/// The time limit of one call to the gateway.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long shutdown waits for the gateway to take the deregistration.
const DEREGISTER_TIMEOUT: Duration = Duration::from_secs(3);
/// The first delay before registering again; it doubles up to [`MAX_RETRY_DELAY`], which
/// is also the longest `Retry-After` honoured.
const FIRST_RETRY_DELAY: Duration = Duration::from_secs(1);
const MAX_RETRY_DELAY: Duration = Duration::from_secs(60);

fn retry_schedule() -> Backoff {
    Backoff::new(FIRST_RETRY_DELAY, MAX_RETRY_DELAY).retry_after_cap(MAX_RETRY_DELAY)
}

/// The registration of this agent, kept alive by a background task until [`stop`].
///
/// [`stop`]: Registration::stop
#[derive(Debug)]
pub(crate) struct Registration {
    gateway: Gateway,
    stop: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Starts registering `card` with the gateway `settings` names; `None` without
/// `--register`. `address` is the bound listener, for the card's relative URLs when no
/// `--public-url` is set.
///
/// # Errors
/// When no HTTP client can be built.
pub(crate) fn start(
    settings: &Settings,
    card: &AgentCard,
    address: SocketAddr,
) -> anyhow::Result<Option<Registration>> {
    let Some(setting) = &settings.register else {
        return Ok(None);
    };
    let root = settings
        .public_url
        .clone()
        .unwrap_or_else(|| format!("{}://{address}", settings.scheme()));
    let agent_id = setting.agent_id_for(&card.name);
    let body = register_body(card, &agent_id, &format!("{root}{}/", settings.base_path))?;
    let gateway = Gateway::new(setting, agent_id)?;
    let stop = CancellationToken::new();
    let task = tokio::spawn(keep_registered(
        gateway.clone(),
        body,
        setting.heartbeat_interval,
        stop.clone(),
    ));
    Ok(Some(Registration {
        gateway,
        stop,
        task: Some(task),
    }))
}

impl Registration {
    /// Stops the heartbeats and deregisters, waiting at most 3 s for the gateway.
    pub(crate) async fn stop(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
        let gateway = &self.gateway;
        match tokio::time::timeout(DEREGISTER_TIMEOUT, gateway.deregister()).await {
            Ok(Ok(Answer::Done)) => tracing::info!(
                gateway = %gateway.root,
                agent_id = %gateway.agent_id,
                "deregistered from the gateway"
            ),
            Ok(Ok(Answer::Unknown)) => tracing::info!(
                gateway = %gateway.root,
                agent_id = %gateway.agent_id,
                "the gateway had no registration to remove"
            ),
            Ok(Err(error)) => tracing::warn!(
                gateway = %gateway.root,
                agent_id = %gateway.agent_id,
                "cannot deregister from the gateway: {error}"
            ),
            Err(_) => tracing::warn!(
                gateway = %gateway.root,
                agent_id = %gateway.agent_id,
                "the gateway did not take the deregistration within {} s",
                DEREGISTER_TIMEOUT.as_secs()
            ),
        }
    }
}

/// The register body: the card's members with `agent_id` first; interface URLs made
/// absolute against `base` (a card file may give them relative to the base path); and a
/// top-level `url`, the JSON-RPC interface, for gateways that read KubeMQ records.
fn register_body(card: &AgentCard, agent_id: &str, base: &str) -> anyhow::Result<Value> {
    let base = url::Url::parse(base).with_context(|| format!("{base} is not a URL"))?;
    let Value::Object(mut members) = serde_json::to_value(card)? else {
        anyhow::bail!("the card is not a JSON object");
    };
    let mut jsonrpc_url = None;
    if let Some(Value::Array(interfaces)) = members.get_mut("supportedInterfaces") {
        for interface in interfaces.iter_mut().filter_map(Value::as_object_mut) {
            let Some(Value::String(url)) = interface.get_mut("url") else {
                continue;
            };
            if url::Url::parse(url).is_err()
                && let Ok(absolute) = base.join(url.trim_start_matches('/'))
            {
                *url = absolute.to_string();
            }
            let is_jsonrpc = interface
                .get("protocolBinding")
                .and_then(Value::as_str)
                .is_some_and(|binding| {
                    a2a_types::ProtocolBinding::parse(binding)
                        == a2a_types::ProtocolBinding::JsonRpc
                });
            if is_jsonrpc && jsonrpc_url.is_none() {
                jsonrpc_url = interface.get("url").cloned();
            }
        }
    }
    let mut body = Map::new();
    body.insert("agent_id".to_owned(), Value::from(agent_id));
    body.append(&mut members);
    if let Some(url) = jsonrpc_url
        && !body.contains_key("url")
    {
        body.insert("url".to_owned(), url);
    }
    Ok(Value::Object(body))
}

/// Registers, then heartbeats until `stop`, registering again when the gateway forgot us.
async fn keep_registered(
    gateway: Gateway,
    body: Value,
    interval: Duration,
    stop: CancellationToken,
) {
    if !register_until_done(&gateway, &body, &stop).await {
        return;
    }
    let mut wait = interval;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(wait) => {}
        }
        wait = interval;
        let beat = tokio::select! {
            () = stop.cancelled() => return,
            beat = gateway.heartbeat() => beat,
        };
        match beat {
            Ok(Answer::Done) => tracing::debug!(agent_id = %gateway.agent_id, "heartbeat sent"),
            Ok(Answer::Unknown) => {
                tracing::warn!(
                    gateway = %gateway.root,
                    agent_id = %gateway.agent_id,
                    "the gateway no longer knows this agent; registering again"
                );
                if !register_until_done(&gateway, &body, &stop).await {
                    return;
                }
            }
            Err(error) => {
                wait = retry_schedule().wait(interval, error.retry_after());
                tracing::warn!(
                    gateway = %gateway.root,
                    agent_id = %gateway.agent_id,
                    "heartbeat failed: {error}; next in {} ms",
                    wait.as_millis()
                );
            }
        }
    }
}

/// Registers, retrying on [`retry_schedule`] for as long as it takes; false when stopped
/// first.
async fn register_until_done(gateway: &Gateway, body: &Value, stop: &CancellationToken) -> bool {
    let schedule = retry_schedule();
    let registering = (|| gateway.register(body))
        .retry(schedule)
        .sleep(tokio::time::sleep)
        .adjust(|error: &CallError, backoff| {
            backoff.map(|backoff| schedule.wait(backoff, error.retry_after()))
        })
        .notify(|error, delay| {
            tracing::warn!(
                gateway = %gateway.root,
                agent_id = %gateway.agent_id,
                "cannot register with the gateway: {error}; retrying in {} ms",
                delay.as_millis()
            );
        });
    let registered = tokio::select! {
        () = stop.cancelled() => return false,
        registered = registering => registered,
    };
    // The schedule has no end, so only a registration ends it.
    let done = registered.is_ok();
    if done {
        tracing::info!(
            gateway = %gateway.root,
            agent_id = %gateway.agent_id,
            "registered with the gateway"
        );
    }
    done
}

/// How the gateway answered a heartbeat or deregistration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    /// 200.
    Done,
    /// "agent not found": 400 for heartbeats, 404 for deregistrations.
    Unknown,
}

/// A gateway call that failed.
#[derive(Debug, thiserror::Error)]
enum CallError {
    #[error("the gateway is unreachable")]
    Unreachable(#[source] reqwest::Error),
    #[error("the gateway answered HTTP {status}: {message}")]
    Refused {
        status: u16,
        message: String,
        /// How long its `Retry-After` asked to wait.
        retry_after: Option<Duration>,
    },
}

impl CallError {
    fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Unreachable(_) => None,
            Self::Refused { retry_after, .. } => *retry_after,
        }
    }
}

/// The gateway's answer to a call: its status, the `error` of its body (or its first line)
/// and its `Retry-After`.
struct Answered {
    status: u16,
    message: String,
    retry_after: Option<Duration>,
}

impl Answered {
    fn refused(self) -> CallError {
        CallError::Refused {
            status: self.status,
            message: self.message,
            retry_after: self.retry_after,
        }
    }
}

/// The gateway's registry API, for one agent id.
#[derive(Debug, Clone)]
struct Gateway {
    http: reqwest::Client,
    root: String,
    agent_id: String,
    key: Option<Secret>,
}

impl Gateway {
    fn new(setting: &RegisterSetting, agent_id: String) -> anyhow::Result<Self> {
        let mut http = reqwest::Client::builder().timeout(REQUEST_TIMEOUT);
        if let Some(pem) = &setting.ca_pem {
            let certificates = reqwest::Certificate::from_pem_bundle(pem)
                .context("--register-cacert holds no usable PEM certificate")?;
            anyhow::ensure!(
                !certificates.is_empty(),
                "--register-cacert holds no PEM certificate"
            );
            for certificate in certificates {
                http = http.add_root_certificate(certificate);
            }
        }
        let http = http
            .build()
            .context("cannot build the HTTP client for the gateway")?;
        Ok(Self {
            http,
            root: setting.gateway.clone(),
            agent_id,
            key: setting.key.clone(),
        })
    }

    async fn register(&self, body: &Value) -> Result<(), CallError> {
        let answered = self.post("/agents/register", body).await?;
        match answered.status {
            200..=299 => Ok(()),
            _ => Err(answered.refused()),
        }
    }

    async fn heartbeat(&self) -> Result<Answer, CallError> {
        let body = serde_json::json!({"agent_id": self.agent_id});
        let answered = self.post("/agents/heartbeat", &body).await?;
        match answered.status {
            200..=299 => Ok(Answer::Done),
            400 | 404 => Ok(Answer::Unknown),
            _ => Err(answered.refused()),
        }
    }

    async fn deregister(&self) -> Result<Answer, CallError> {
        let body = serde_json::json!({"agent_id": self.agent_id});
        let answered = self.post("/agents/deregister", &body).await?;
        match answered.status {
            200..=299 => Ok(Answer::Done),
            404 => Ok(Answer::Unknown),
            _ => Err(answered.refused()),
        }
    }

    /// POSTs `body`.
    async fn post(&self, path: &str, body: &Value) -> Result<Answered, CallError> {
        let mut request = self.http.post(format!("{}{path}", self.root)).json(body);
        if let Some(key) = &self.key {
            request = request.bearer_auth(key.expose());
        }
        let response = request.send().await.map_err(CallError::Unreachable)?;
        let status = response.status().as_u16();
        let retry_after = a2a_retry::retry_after(response.headers());
        let text = response.text().await.unwrap_or_default();
        let message = error_message(&text);
        Ok(Answered {
            status,
            message,
            retry_after,
        })
    }
}

/// What a registry's error answer says: its `error` member, else the first line of the body
/// (at most 200 characters).
pub(crate) fn error_message(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|answer| {
            answer
                .get("error")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| {
            text.lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(200)
                .collect()
        })
}

#[cfg(test)]
mod tests {
    use a2a_types::{AgentInterface, ProtocolBinding};
    use serde_json::json;

    use super::*;

    #[test]
    fn the_body_is_the_card_with_agent_id_and_a_kubemq_url() {
        let card = AgentCard::new("Echo", "Echoes", "1.0")
            .with_interface(AgentInterface::new("/rest", ProtocolBinding::HttpJson))
            .with_interface(AgentInterface::new("rpc", ProtocolBinding::JsonRpc))
            .with_interface(AgentInterface::new(
                "https://elsewhere.example/rpc",
                ProtocolBinding::JsonRpc,
            ));
        let body = register_body(&card, "echo", "http://127.0.0.1:8080/base/").unwrap();
        let members: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(members.first(), Some(&"agent_id"));
        assert_eq!(body["agent_id"], "echo");
        assert_eq!(body["name"], "Echo");
        let urls: Vec<&str> = body["supportedInterfaces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|interface| interface["url"].as_str().unwrap())
            .collect();
        assert_eq!(
            urls,
            [
                "http://127.0.0.1:8080/base/rest",
                "http://127.0.0.1:8080/base/rpc",
                "https://elsewhere.example/rpc"
            ]
        );
        assert_eq!(body["url"], json!("http://127.0.0.1:8080/base/rpc"));
    }
}
