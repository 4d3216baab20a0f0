//! A run of the checks.
//!
//! A run: the card fetched, the plan made (each rule on each interface its scope names, less
//! what `--filter`, `--binding`, `--protocol-version` and `--read-only` leave out), the checks
//! run concurrently, each within its time limit, with a progress report as each finishes.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_types::{AgentCard, ProtocolBinding};
use futures::StreamExt as _;
use serde_json::Value;

use crate::context::{BEHAVIOURS_EXTENSION, CardFetch, Context, Target};
use crate::outcome::Outcome;
use crate::receiver::Receiver;
use crate::report::{CheckResult, InterfaceInfo, Report};
use crate::rule::{Rule, Scope};
use crate::wire::{GrpcWire, HttpPeer, JsonRpcWire, RestWire, Wire};

/// How a run is made.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunOptions {
    /// Credentials for every call but the card's (which is public).
    pub credentials: Option<a2a_client::Credentials>,
    /// Headers sent with every request, the card's included.
    pub headers: Vec<(http::HeaderName, http::HeaderValue)>,
    /// Only interfaces of these bindings; all when empty.
    pub bindings: Vec<ProtocolBinding>,
    /// Only interfaces of these protocol versions (`1.0`, `0.3`); all when empty.
    pub versions: Vec<String>,
    /// Only rules whose id matches one of these globs; all when empty.
    pub filters: Vec<String>,
    /// Only the rules that create nothing on the agent.
    pub read_only: bool,
    /// How long one call may take.
    pub timeout: Duration,
    /// How long connecting may take.
    pub connect_timeout: Duration,
    /// How many checks run at once.
    pub concurrency: usize,
    /// Where the webhook receiver listens.
    pub receiver_bind: SocketAddr,
    /// The receiver's URL as the agent reaches it, when not its bound address.
    pub receiver_url: Option<String>,
    /// Extra certificate authorities to trust and a client certificate to present, on every
    /// connection (HTTP and gRPC); the bundled and the system's roots are trusted anyway.
    pub tls: Option<a2a_client::transport::TlsOptions>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            credentials: None,
            headers: Vec::new(),
            bindings: Vec::new(),
            versions: Vec::new(),
            filters: Vec::new(),
            read_only: false,
            timeout: Duration::from_secs(15),
            connect_timeout: Duration::from_secs(10),
            concurrency: 16,
            receiver_bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            receiver_url: None,
            tls: None,
        }
    }
}

/// Why a run could not be made at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The agent cannot be reached.
    #[error("cannot reach the agent: {0}")]
    Unreachable(String),
    /// The options cannot be used.
    #[error("{0}")]
    Usage(String),
}

/// What a run reports while it goes.
#[derive(Debug)]
#[non_exhaustive]
pub enum Progress<'a> {
    /// The plan is made: this many checks will run.
    Planned(usize),
    /// One check finished; `done` of `total`.
    Finished {
        /// Checks finished so far.
        done: usize,
        /// All checks.
        total: usize,
        /// The one that just finished.
        result: &'a CheckResult,
    },
}

/// One planned check.
struct Planned {
    rule: Rule,
    context: Arc<Context>,
    /// A verdict known without running it (nothing to run it on).
    settled: Option<Outcome>,
}

/// Runs the checks against the agent at `url` (its base URL or its card's URL).
///
/// # Errors
/// [`RunError::Unreachable`] when the card cannot be fetched at all, [`RunError::Usage`] for
/// a URL or options that cannot be used.
pub async fn run(
    url: &str,
    options: &RunOptions,
    progress: &(dyn Fn(Progress<'_>) + Send + Sync),
) -> Result<Report, RunError> {
    let started = Instant::now();
    let started_at = a2a_types::Timestamp::now().to_string();
    let card_url =
        a2a_client::card_url(url, None).map_err(|error| RunError::Usage(error.to_string()))?;
    let client = crate::tls::http_client(
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(options.connect_timeout.min(options.timeout)),
        options.tls.as_ref(),
    )
    .map_err(RunError::Usage)?
    .build()
    .map_err(|error| RunError::Usage(error.to_string()))?;
    let card = Arc::new(fetch_card(&client, &card_url, options).await?);
    let auth = match (&options.credentials, &card.card) {
        (Some(credentials), Some(typed)) => Some(
            a2a_client::RequestAuth::resolve(
                credentials.clone(),
                typed,
                &card_url,
                options.timeout,
            )
            .map_err(|error| RunError::Usage(error.to_string()))?,
        ),
        (Some(_) | None, _) => None,
    };
    let peer = HttpPeer {
        client,
        auth,
        headers: options.headers.clone(),
        tls: options.tls.clone(),
    };
    let (targets, interfaces) = targets(card.card.as_ref(), &card_url, &peer, options);
    let v1: Arc<Vec<Arc<Target>>> = Arc::new(
        targets
            .iter()
            .filter(|target| target.version.starts_with("1."))
            .cloned()
            .collect(),
    );
    let behaviours = card.card.as_ref().is_some_and(|card| {
        card.capabilities
            .extensions
            .iter()
            .any(|extension| extension.uri == BEHAVIOURS_EXTENSION)
    });
    let receiver = if options.read_only {
        None
    } else {
        Some(Arc::new(
            Receiver::start(options.receiver_bind, options.receiver_url.clone())
                .await
                .map_err(|error| {
                    RunError::Usage(format!(
                        "cannot start the webhook receiver on {}: {error}",
                        options.receiver_bind
                    ))
                })?,
        ))
    };
    let context = |target: Option<Arc<Target>>| {
        Arc::new(Context {
            card: Arc::clone(&card),
            target,
            targets: Arc::clone(&v1),
            behaviours,
            receiver: receiver.clone(),
            timeout: options.timeout,
            http: peer.clone(),
        })
    };
    let mut plan = Vec::new();
    for rule in crate::catalog::rules() {
        if !selected(&rule, options) {
            continue;
        }
        let on: Vec<&Arc<Target>> = match rule.scope {
            Scope::Card | Scope::AcrossV1 => {
                plan.push(Planned {
                    rule,
                    context: context(None),
                    settled: None,
                });
                continue;
            }
            Scope::V1 => v1.iter().collect(),
            Scope::V1Http => v1
                .iter()
                .filter(|target| {
                    matches!(
                        target.binding,
                        ProtocolBinding::JsonRpc | ProtocolBinding::HttpJson
                    )
                })
                .collect(),
            Scope::V1JsonRpc => v1
                .iter()
                .filter(|target| target.binding == ProtocolBinding::JsonRpc)
                .collect(),
            Scope::V03 => targets
                .iter()
                .filter(|target| target.version == "0.3")
                .collect(),
        };
        if on.is_empty() {
            plan.push(Planned {
                rule,
                context: context(None),
                settled: Some(Outcome::skip(format!(
                    "the card declares no interface this rule applies to ({})",
                    scope_words(rule.scope)
                ))),
            });
        }
        for target in on {
            let settled = card
                .card
                .is_none()
                .then(|| Outcome::skip("the agent card could not be read"));
            plan.push(Planned {
                rule,
                context: context(Some(Arc::clone(target))),
                settled,
            });
        }
    }
    let total = plan.len();
    progress(Progress::Planned(total));
    let check_limit = options.timeout * 4;
    let mut finished: Vec<(usize, CheckResult)> = Vec::with_capacity(total);
    let mut running = futures::stream::iter(plan.into_iter().enumerate())
        .map(|(index, planned)| async move {
            let began = Instant::now();
            let outcome = match planned.settled {
                Some(outcome) => outcome,
                None => match tokio::time::timeout(
                    check_limit,
                    (planned.rule.run)(Arc::clone(&planned.context)),
                )
                .await
                {
                    Ok(outcome) => outcome,
                    Err(_) => Outcome::fail(format!(
                        "the check did not finish within {} s: the agent stopped answering",
                        check_limit.as_secs()
                    )),
                },
            };
            (
                index,
                CheckResult::new(
                    &planned.rule,
                    planned.context.target.as_deref(),
                    outcome,
                    began.elapsed(),
                ),
            )
        })
        .buffer_unordered(options.concurrency.max(1));
    while let Some((index, result)) = running.next().await {
        finished.push((index, result));
        if let Some((_, result)) = finished.last() {
            progress(Progress::Finished {
                done: finished.len(),
                total,
                result,
            });
        }
    }
    drop(running);
    finished.sort_by_key(|(index, _)| *index);
    Ok(Report::new(
        url,
        card_url.as_str(),
        card.card.as_ref().map(|card| card.name.clone()),
        started_at,
        started.elapsed(),
        interfaces,
        finished.into_iter().map(|(_, result)| result).collect(),
    ))
}

fn scope_words(scope: Scope) -> &'static str {
    match scope {
        Scope::Card => "the card",
        Scope::V1 => "a v1.0 interface",
        Scope::V1Http => "a v1.0 JSON-RPC or HTTP+JSON interface",
        Scope::V1JsonRpc => "a v1.0 JSON-RPC interface",
        Scope::AcrossV1 => "two or more v1.0 interfaces",
        Scope::V03 => "a v0.3 interface",
    }
}

fn selected(rule: &Rule, options: &RunOptions) -> bool {
    let filtered = options.filters.is_empty()
        || options
            .filters
            .iter()
            .any(|pattern| crate::glob::matches(pattern, rule.id));
    filtered && !(options.read_only && rule.creates)
}

async fn fetch_card(
    client: &reqwest::Client,
    card_url: &url::Url,
    options: &RunOptions,
) -> Result<CardFetch, RunError> {
    let mut request = client
        .get(card_url.clone())
        .header("accept", "application/json")
        .timeout(options.timeout);
    for (name, value) in &options.headers {
        request = request.header(name, value);
    }
    let response = request
        .send()
        .await
        .map_err(|error| RunError::Unreachable(format!("{card_url}: {}", error.without_url())))?;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response
        .text()
        .await
        .map_err(|error| RunError::Unreachable(format!("{card_url}: {}", error.without_url())))?;
    let json = serde_json::from_str::<Value>(&body).ok();
    let card = (status == 200)
        .then(|| json.as_ref().and_then(lenient_card))
        .flatten();
    Ok(CardFetch {
        url: card_url.clone(),
        status,
        headers,
        body,
        json,
        card,
    })
}

/// The card for calling the agent, even when it lacks a required member (the card rules
/// report that): missing strings read as empty, missing lists and objects as empty ones.
fn lenient_card(json: &Value) -> Option<AgentCard> {
    if let Ok(card) = serde_json::from_value::<AgentCard>(json.clone()) {
        return Some(card);
    }
    let mut patched = json.as_object()?.clone();
    for name in ["name", "description", "version"] {
        patched
            .entry(name)
            .or_insert_with(|| Value::String(String::new()));
    }
    for name in [
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
        "supportedInterfaces",
    ] {
        patched
            .entry(name)
            .or_insert_with(|| Value::Array(Vec::new()));
    }
    patched
        .entry("capabilities")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    serde_json::from_value(Value::Object(patched)).ok()
}

/// The interfaces to check, with their wires, and what the report lists about each
/// interface of the card (also those left out, and why).
fn targets(
    card: Option<&AgentCard>,
    card_url: &url::Url,
    peer: &HttpPeer,
    options: &RunOptions,
) -> (Vec<Arc<Target>>, Vec<InterfaceInfo>) {
    let mut targets = Vec::new();
    let mut infos = Vec::new();
    for interface in card
        .map(|card| card.supported_interfaces.as_slice())
        .unwrap_or_default()
    {
        let version = interface.protocol_version.clone();
        let mut info = InterfaceInfo {
            binding: interface.protocol_binding.to_string(),
            version: version.clone(),
            url: interface.url.clone(),
            checked: false,
            note: None,
        };
        let wanted_binding =
            options.bindings.is_empty() || options.bindings.contains(&interface.protocol_binding);
        let wanted_version = options.versions.is_empty() || options.versions.contains(&version);
        let known_version = version.starts_with("1.") || version == "0.3";
        let duplicate = targets.iter().any(|target: &Arc<Target>| {
            target.binding == interface.protocol_binding && target.version == version
        });
        let wire: Result<Box<dyn Wire>, String> = match &interface.protocol_binding {
            _ if !wanted_binding || !wanted_version => {
                Err("left out by --binding / --protocol-version".to_owned())
            }
            _ if !known_version => Err(format!(
                "protocol version {version} is not one this tester speaks"
            )),
            _ if duplicate => {
                Err("another interface of this binding and version is checked".to_owned())
            }
            ProtocolBinding::JsonRpc => url::Url::parse(&interface.url)
                .map(|url| Box::new(JsonRpcWire::new(url, peer.clone())) as Box<dyn Wire>)
                .map_err(|error| format!("invalid URL: {error}")),
            ProtocolBinding::HttpJson => url::Url::parse(&interface.url)
                .map(|url| {
                    Box::new(RestWire::new(
                        &url,
                        Some(interface.tenant.clone()).filter(|tenant| !tenant.is_empty()),
                        peer.clone(),
                    )) as Box<dyn Wire>
                })
                .map_err(|error| format!("invalid URL: {error}")),
            ProtocolBinding::Grpc if version == "0.3" => {
                Err("v0.3 gRPC is not checked by this tester".to_owned())
            }
            ProtocolBinding::Grpc => grpc_address(&interface.url, card_url).and_then(|address| {
                GrpcWire::new(
                    address,
                    peer.clone(),
                    options.connect_timeout.min(options.timeout),
                )
                .map(|wire| Box::new(wire) as Box<dyn Wire>)
            }),
            ProtocolBinding::Other(name) => Err(format!("custom binding {name} is not checked")),
        };
        match wire {
            Ok(wire) => {
                info.checked = true;
                targets.push(Arc::new(Target {
                    binding: interface.protocol_binding.clone(),
                    version,
                    url: interface.url.clone(),
                    tenant: Some(interface.tenant.clone()).filter(|tenant| !tenant.is_empty()),
                    wire,
                }));
            }
            Err(note) => info.note = Some(note),
        }
        infos.push(info);
    }
    (targets, infos)
}

/// A gRPC interface's address as a URL: `host:port` is reached with TLS when the card came
/// over HTTPS and in plaintext HTTP/2 otherwise.
fn grpc_address(text: &str, card_url: &url::Url) -> Result<url::Url, String> {
    let full = if text.contains("://") {
        text.to_owned()
    } else if card_url.scheme() == "https" {
        format!("https://{text}")
    } else {
        format!("http://{text}")
    };
    url::Url::parse(&full)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https") && url.host().is_some())
        .ok_or_else(|| format!("the gRPC address {text:?} is neither host:port nor an http(s) URL"))
}
