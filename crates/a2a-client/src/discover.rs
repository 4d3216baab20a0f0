//! Discovery: where the card is, fetching and validating it, and the address requests go
//! to.

use std::sync::Arc;
use std::time::Duration;

use a2a_types::AgentCard;
use bytes::Bytes;
use http::HeaderMap;
use http::header::{ACCEPT, HeaderName, HeaderValue, LOCATION};

use crate::binding::{A2A_VERSION, APPLICATION_JSON, error_from_answer};
use crate::card_signature::{CardVerifier, SignatureChecks};
use crate::error::{ClientError, TimeoutKind};
use crate::exchange::Failed;
use crate::http_url::parse_http_url;
use crate::options::RetryPolicy;
use crate::transport::{HttpTransport, Transport, read_body};

// Where an agent serves its public card; defined with the card in a2a-types.
pub use a2a_types::card::WELL_KNOWN_CARD_PATH;

/// Redirects followed at most, when following is on.
const MAX_REDIRECTS: usize = 5;
/// The largest card read by default.
const DEFAULT_MAX_CARD_SIZE: usize = 10 * 1024 * 1024;

/// How [`fetch_agent_card`] fetches.
#[derive(Debug, Clone)]
pub struct CardFetchOptions {
    pub(crate) path: Option<String>,
    pub(crate) follow_redirects: bool,
    pub(crate) headers: HeaderMap,
    pub(crate) timeout: Duration,
    pub(crate) retry: RetryPolicy,
    pub(crate) max_size: usize,
    pub(crate) transport: Option<Arc<dyn Transport>>,
    pub(crate) verifier: Option<Arc<CardVerifier>>,
}

impl Default for CardFetchOptions {
    fn default() -> Self {
        Self {
            path: None,
            follow_redirects: false,
            headers: HeaderMap::new(),
            timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            max_size: DEFAULT_MAX_CARD_SIZE,
            transport: None,
            verifier: None,
        }
    }
}

impl CardFetchOptions {
    /// The defaults: the well-known path, no redirects, 60 s, two retries.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the card at `path`, resolved against the URL (e.g. `/agents/echo/card.json`, or
    /// `card.json` relative to the URL's directory).
    #[must_use]
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Follows up to five redirects (default: a redirect is an error). The card's
    /// source, whose origin credentials are bound to, is then where the last one led.
    #[must_use]
    pub fn follow_redirects(mut self, follow: bool) -> Self {
        self.follow_redirects = follow;
        self
    }

    /// Sends this header with the request.
    ///
    /// # Errors
    /// [`ClientError::Config`] for an invalid name or value.
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, ClientError> {
        let name = HeaderName::try_from(name)
            .map_err(|_| ClientError::config(format!("{name:?} is not a header name")))?;
        let value = HeaderValue::try_from(value)
            .map_err(|_| ClientError::config(format!("the {name} header value is invalid")))?;
        self.headers.append(name, value);
        Ok(self)
    }

    /// Gives up after `timeout` per attempt (default 60 s).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Retries retryable failures under `retry` (default: two retries).
    #[must_use]
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Refuses cards larger than `bytes` (default 10 MiB).
    #[must_use]
    pub fn max_size(mut self, bytes: usize) -> Self {
        self.max_size = bytes;
        self
    }

    /// Fetches through `transport` (default: a fresh [`HttpTransport`]).
    #[must_use]
    pub fn transport(mut self, transport: impl Transport) -> Self {
        self.transport = Some(Arc::new(transport));
        self
    }

    /// Refuses a card whose signatures do not verify against `verifier`'s keys
    /// ([`ClientError::CardSignature`]); checked over the card JSON as received.
    pub fn verify_signatures(mut self, verifier: CardVerifier) -> Self {
        self.verifier = Some(Arc::new(verifier));
        self
    }

    pub(crate) fn shared_transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.transport = Some(transport);
        self
    }
}

/// Where the card of `url` is: `path` resolved against the URL when given; the URL
/// itself when its path ends in `.json`; else `/.well-known/agent-card.json` at its origin.
/// (When that origin has no usable card and the URL has a path, [`fetch_agent_card`] then
/// tries `/.well-known/agent-card.json` under the path.)
///
/// # Errors
/// [`ClientError::Config`] when `url` is not an absolute http(s) URL.
pub fn card_url(url: &str, path: Option<&str>) -> Result<url::Url, ClientError> {
    let base = parse_http_url(url)?;
    let card = match path {
        Some(path) => base
            .join(path)
            .map_err(|error| ClientError::config(format!("invalid card path {path:?}: {error}")))?,
        None if base.path().ends_with(".json") => base,
        None => {
            let mut card = base;
            card.set_path(WELL_KNOWN_CARD_PATH);
            card.set_query(None);
            card.set_fragment(None);
            card
        }
    };
    Ok(card)
}

/// Fetches and validates the agent card of `url`.
///
/// The card must decode as a v1.0 card and name at least one interface. A redirect is an
/// error unless [`CardFetchOptions::follow_redirects`] is set; any other non-2xx answer fails
/// before the body is parsed.
///
/// # Errors
/// [`ClientError::Redirect`], [`ClientError::Http`] or [`ClientError::Agent`] for a refused
/// request, [`ClientError::InvalidCard`] for a body that is not a usable card, and transport
/// errors and timeouts.
pub async fn fetch_agent_card(
    url: &str,
    options: &CardFetchOptions,
) -> Result<AgentCard, ClientError> {
    fetch_card_with_source(url, options)
        .await
        .map(|(card, _)| card)
}

/// [`fetch_agent_card`], also returning where the card was found in the end.
pub(crate) async fn fetch_card_with_source(
    url: &str,
    options: &CardFetchOptions,
) -> Result<(AgentCard, url::Url), ClientError> {
    let (card, source, checks) = fetch_card_checked(url, options).await?;
    if let Some(checks) = checks {
        a2a_signature::verdict(checks).map_err(ClientError::CardSignature)?;
    }
    Ok((card, source))
}

/// [`fetch_agent_card`] with the outcome for each of the card's signatures, checked by the
/// options' [`verify_signatures`](CardFetchOptions::verify_signatures) verifier, without
/// refusing the card (for tools that report them).
///
/// # Errors
/// As [`fetch_agent_card`]; [`ClientError::Config`] when the options have no verifier, and
/// [`ClientError::CardSignature`] when the card has no signatures.
pub async fn fetch_agent_card_signatures(
    url: &str,
    options: &CardFetchOptions,
) -> Result<(AgentCard, SignatureChecks), ClientError> {
    if options.verifier.is_none() {
        return Err(ClientError::config(
            "checking card signatures needs keys: CardFetchOptions::verify_signatures",
        ));
    }
    let (card, _, checks) = fetch_card_checked(url, options).await?;
    Ok((card, checks.unwrap_or_default()))
}

type Fetched = (AgentCard, url::Url, Option<SignatureChecks>);

async fn fetch_card_checked(url: &str, options: &CardFetchOptions) -> Result<Fetched, ClientError> {
    let transport = match &options.transport {
        Some(transport) => Arc::clone(transport),
        None => Arc::new(HttpTransport::new()?),
    };
    let start = card_url(url, options.path.as_deref())?;
    let fetched = fetch_with_retries(transport.as_ref(), &start, options).await;
    match fetched {
        // A URL with a path may name an agent behind a gateway or a shared host, whose
        // card is under that path (`…/a2a/echo/.well-known/agent-card.json`) while the
        // origin serves another card or none: when the origin's answer is no usable card,
        // the path's own well-known card is tried (as the official SDKs resolve cards).
        Err(error @ (ClientError::Http { status: 404, .. } | ClientError::InvalidCard { .. }))
            if options.path.is_none() =>
        {
            // When neither place has a card, the path's answer is the one that names this
            // agent (a gateway's "agent not found: <id>").
            match nested_card_url(url) {
                Some(nested) => fetch_with_retries(transport.as_ref(), &nested, options).await,
                None => Err(error),
            }
        }
        other => other,
    }
}

/// `/.well-known/agent-card.json` under the path of `url`, when it has one (not `/`, not a
/// `.json` file).
fn nested_card_url(url: &str) -> Option<url::Url> {
    let mut nested = parse_http_url(url).ok()?;
    let path = nested.path().trim_end_matches('/').to_owned();
    if path.is_empty() || path.ends_with(".json") {
        return None;
    }
    nested.set_path(&format!("{path}{WELL_KNOWN_CARD_PATH}"));
    nested.set_query(None);
    nested.set_fragment(None);
    Some(nested)
}

async fn fetch_with_retries(
    transport: &dyn Transport,
    start: &url::Url,
    options: &CardFetchOptions,
) -> Result<Fetched, ClientError> {
    let mut attempt = 0;
    loop {
        let fetched = tokio::time::timeout(
            options.timeout,
            fetch_once(transport, start.clone(), options),
        )
        .await
        .unwrap_or_else(|_| Err(ClientError::Timeout(TimeoutKind::Request).into()));
        match fetched {
            Err(failed) if failed.error.is_retryable() && attempt < options.retry.max_retries => {
                tracing::debug!(error = %failed.error, attempt, "retrying the agent card fetch");
                // A 429 or 503 with `Retry-After` is asked again no sooner than it says
                // (up to the policy's cap).
                let wait = options
                    .retry
                    .wait_after(options.retry.delay(attempt), failed.retry_after);
                tokio::time::sleep(wait).await;
                attempt += 1;
            }
            Err(failed) => return Err(failed.error),
            Ok(fetched) => return Ok(fetched),
        }
    }
}

async fn fetch_once(
    transport: &dyn Transport,
    mut url: url::Url,
    options: &CardFetchOptions,
) -> Result<Fetched, Failed> {
    let mut redirects = 0;
    let origin = url.origin();
    loop {
        let mut request = http::Request::get(url.as_str())
            .body(Bytes::new())
            .map_err(|error| ClientError::config(format!("invalid card url: {error}")))?;
        let headers = request.headers_mut();
        // The caller's headers (credentials, often) go only to the origin they were given
        // for: a redirect to another origin is fetched without them, as browsers do.
        if url.origin() == origin {
            headers.extend(options.headers.clone());
        }
        headers.insert(ACCEPT, HeaderValue::from_static(APPLICATION_JSON));
        headers.insert(
            A2A_VERSION,
            HeaderValue::from_static(a2a_types::PROTOCOL_VERSION),
        );
        let response = transport.send(request).await?;
        let status = response.status();
        let location = response
            .headers()
            .get(LOCATION)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if status.is_redirection() && options.follow_redirects {
            let next = location
                .as_deref()
                .and_then(|location| url.join(location).ok())
                .filter(|next| matches!(next.scheme(), "http" | "https"));
            match next {
                Some(next) if redirects < MAX_REDIRECTS => {
                    redirects += 1;
                    url = next;
                    continue;
                }
                Some(_) | None => {
                    return Err(ClientError::Redirect {
                        status: status.as_u16(),
                        location: None,
                    }
                    .into());
                }
            }
        }
        let retry_after = a2a_retry::retry_after(response.headers());
        let body = read_body(response.into_body(), options.max_size).await?;
        if !status.is_success() {
            return Err(Failed::from(error_from_answer(
                status.as_u16(),
                location.as_deref(),
                &body,
            ))
            .retry_after(retry_after));
        }
        let card = decode_card(&body)?;
        let checks = match &options.verifier {
            Some(verifier) => {
                let json =
                    serde_json::from_slice(&body).map_err(|error| ClientError::InvalidCard {
                        reason: error.to_string(),
                    })?;
                Some(verifier.check(&json, transport).await?)
            }
            None => None,
        };
        return Ok((card, url, checks));
    }
}

/// Decodes and validates a card body, v1.0 or v0.3.
pub(crate) fn decode_card(body: &[u8]) -> Result<AgentCard, ClientError> {
    let value: serde_json::Value =
        a2a_types::json::from_slice(body).map_err(|error| ClientError::InvalidCard {
            reason: error.to_string(),
        })?;
    let invalid = |error: a2a_types::A2aError| ClientError::InvalidCard {
        reason: error.message().to_owned(),
    };
    // A v0.3 card (no `supportedInterfaces`) has its `url` and `additionalInterfaces` read
    // as v0.3 interfaces; any other card is read as v1.0.
    let card = if is_v03_card(&value) {
        a2a_types::v03::translate::card_to_v1(value).map_err(invalid)?
    } else {
        a2a_types::json::from_value(value).map_err(|error| ClientError::InvalidCard {
            reason: error.to_string(),
        })?
    };
    validate_card(&card)?;
    Ok(card)
}

/// Whether a card is a v0.3 one: no `supportedInterfaces`, a `url`, and a `protocolVersion`
/// of 0.x, or none at all but no v1.0-style `protocolVersions` either (a gateway's own card
/// with `url` and `protocolVersions: ["1.0"]` is not an agent to call in v0.3).
fn is_v03_card(card: &serde_json::Value) -> bool {
    let has_interfaces = card
        .get("supportedInterfaces")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|interfaces| !interfaces.is_empty());
    let has_url = card.get("url").is_some_and(serde_json::Value::is_string);
    let version_ok = match card
        .get("protocolVersion")
        .and_then(serde_json::Value::as_str)
    {
        Some(version) => version.starts_with("0."),
        None => card.get("protocolVersions").is_none(),
    };
    !has_interfaces && has_url && version_ok
}

/// A card must name at least one interface.
pub(crate) fn validate_card(card: &AgentCard) -> Result<(), ClientError> {
    if card.supported_interfaces.is_empty() {
        return Err(ClientError::InvalidCard {
            reason: "supportedInterfaces is empty".into(),
        });
    }
    Ok(())
}

/// A host override: `host` (https unless it names a scheme), with `port` and
/// `base_path` applying only together with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HostOverride {
    pub(crate) host: String,
    pub(crate) port: Option<u16>,
    pub(crate) base_path: Option<String>,
}

/// The address requests go to: the host override, else the interface URL,
/// else the card-source URL. With credentials and no host override, the origin is always the
/// card source's, never one taken from the card.
pub(crate) fn resolve_address(
    interface_url: &str,
    card_source: Option<&url::Url>,
    host: Option<&HostOverride>,
    with_credentials: bool,
) -> Result<url::Url, ClientError> {
    let interface_url = interface_url.trim();
    let mut address = if interface_url.is_empty() {
        card_source.cloned().ok_or_else(|| {
            ClientError::config("the interface has no url and the card's source is unknown")
        })?
    } else {
        match url::Url::parse(interface_url) {
            Ok(url) => url,
            Err(url::ParseError::RelativeUrlWithoutBase) => card_source
                .ok_or_else(|| {
                    ClientError::config(format!(
                        "interface url {interface_url:?} is relative and the card's source is unknown"
                    ))
                })?
                .join(interface_url)
                .map_err(|error| ClientError::config(format!("invalid interface url: {error}")))?,
            Err(error) => {
                return Err(ClientError::config(format!("invalid interface url: {error}")));
            }
        }
    };
    if let Some(host) = host {
        let text = if host.host.contains("://") {
            host.host.clone()
        } else {
            format!("https://{}", host.host)
        };
        let mut origin = parse_http_url(&text)?;
        if let Some(port) = host.port {
            origin
                .set_port(Some(port))
                .map_err(|()| ClientError::config("the host override cannot take a port"))?;
        }
        let path = host
            .base_path
            .clone()
            .unwrap_or_else(|| address.path().to_owned());
        origin.set_path(&path);
        address = origin;
    } else if with_credentials && let Some(source) = card_source {
        set_origin(&mut address, source);
    }
    if !matches!(address.scheme(), "http" | "https") {
        return Err(ClientError::config(format!(
            "the agent address must be http or https, not {}",
            address.scheme()
        )));
    }
    Ok(address)
}

/// Replaces the scheme, host and port of `url` with those of `origin`.
fn set_origin(url: &mut url::Url, origin: &url::Url) {
    let mut moved = origin.clone();
    moved.set_path(url.path());
    moved.set_query(url.query());
    moved.set_fragment(None);
    *url = moved;
}

#[cfg(test)]
mod tests;
