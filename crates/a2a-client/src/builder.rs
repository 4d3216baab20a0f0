//! [`A2aClientBuilder`]: the card or URL, binding preference, address overrides, transport,
//! TLS, headers, extensions, credentials, timeouts, size limit, retries and stream resumption.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use a2a_types::{AgentCard, ProtocolBinding};
use http::HeaderMap;
use http::header::{HeaderName, HeaderValue};

use crate::auth::{Authenticator, Credentials};
use crate::binding::{Binding, Endpoint};
use crate::client::{A2aClient, HeaderFn, Inner};
use crate::discover::{
    CardFetchOptions, HostOverride, fetch_card_with_source, parse_http_url, pick_interface,
    resolve_address, validate_card,
};
use crate::error::ClientError;
use crate::options::{CallOptions, ResumePolicy, RetryPolicy, Timeouts, append_header};
use crate::transport::{HttpTransport, InProcessTransport, TlsOptions, Transport};

/// The default limit on one SSE event or one response body: 10 MiB.
pub const DEFAULT_MAX_PAYLOAD_SIZE: usize = 10 * 1024 * 1024;

// The ways to make a client all go through the builder, so they are defined beside it.
impl A2aClient {
    /// Starts configuring a client.
    pub fn builder() -> A2aClientBuilder {
        A2aClientBuilder::new()
    }

    /// Fetches the agent card at `url` (see [`fetch_agent_card`](crate::fetch_agent_card)) and
    /// builds a client for its first usable interface, with default settings.
    ///
    /// # Errors
    /// As [`fetch_agent_card`](crate::fetch_agent_card) and [`A2aClientBuilder::build`].
    pub async fn discover(url: &str) -> Result<Self, ClientError> {
        Self::builder().discover(url).await
    }

    /// A client for the first usable interface of `card`, with default settings.
    ///
    /// # Errors
    /// [`ClientError::NoUsableInterface`] when the card has no JSONRPC or HTTP+JSON
    /// interface for protocol 1.x.
    pub fn from_card(card: AgentCard) -> Result<Self, ClientError> {
        Self::builder().card(card).build()
    }

    /// A client for `url` spoken in `binding`, without a card.
    ///
    /// # Errors
    /// [`ClientError::NoUsableInterface`] for a binding other than JSONRPC and HTTP+JSON;
    /// [`ClientError::Config`] for a URL that is not absolute http(s).
    pub fn from_url(url: &str, binding: ProtocolBinding) -> Result<Self, ClientError> {
        Self::builder().url(url, binding).build()
    }

    /// A client that calls `service` (an axum `Router`, e.g. `A2aServer::router()`) in this
    /// process, with no socket; the interface is chosen from `card` as usual.
    ///
    /// # Errors
    /// As [`from_card`](Self::from_card).
    pub fn in_process<S>(service: S, card: &AgentCard) -> Result<Self, ClientError>
    where
        InProcessTransport<S>: Transport,
    {
        Self::builder()
            .transport(InProcessTransport::new(service))
            .card(card.clone())
            .build()
    }
}

/// Configures an [`A2aClient`].
///
/// Give it a card ([`card`](Self::card), or [`discover`](Self::discover) to fetch one) or a
/// URL and binding ([`url`](Self::url)); everything else has a default.
///
/// ```no_run
/// use std::time::Duration;
/// use a2a_client::{A2aClient, Credentials, RetryPolicy};
///
/// # async fn run() -> Result<(), a2a_client::ClientError> {
/// let client = A2aClient::builder()
///     .credentials(Credentials::bearer("token"))
///     .header("X-Team", "search")
///     .extension("https://example.com/ext/trace/v1")
///     .request_timeout(Duration::from_secs(20))
///     .retry(RetryPolicy::default().max_retries(3))
///     .discover("https://agent.example.com")
///     .await?;
/// # let _ = client; Ok(()) }
/// ```
#[must_use]
pub struct A2aClientBuilder {
    card: Option<AgentCard>,
    card_source: Option<String>,
    url: Option<(String, ProtocolBinding)>,
    tenant: Option<String>,
    preferred: Option<ProtocolBinding>,
    host: Option<String>,
    port: Option<u16>,
    base_path: Option<String>,
    transport: Option<Arc<dyn Transport>>,
    tls: TlsOptions,
    headers: HeaderMap,
    header_fn: Option<HeaderFn>,
    extensions: Vec<String>,
    credentials: Option<Credentials>,
    timeouts: Timeouts,
    retry: RetryPolicy,
    resume: ResumePolicy,
    max_payload_size: usize,
    card_fetch: CardFetchOptions,
    invalid: Option<String>,
}

impl std::fmt::Debug for A2aClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aClientBuilder")
            .field("card", &self.card.as_ref().map(|card| &card.name))
            .field("url", &self.url)
            .field("preferred", &self.preferred)
            .field("host", &self.host)
            .field("credentials", &self.credentials)
            .field("timeouts", &self.timeouts)
            .finish_non_exhaustive()
    }
}

impl Default for A2aClientBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl A2aClientBuilder {
    /// A builder with every default.
    pub fn new() -> Self {
        Self {
            card: None,
            card_source: None,
            url: None,
            tenant: None,
            preferred: None,
            host: None,
            port: None,
            base_path: None,
            transport: None,
            tls: TlsOptions::default(),
            headers: HeaderMap::new(),
            header_fn: None,
            extensions: Vec::new(),
            credentials: None,
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
            resume: ResumePolicy::default(),
            max_payload_size: DEFAULT_MAX_PAYLOAD_SIZE,
            card_fetch: CardFetchOptions::default(),
            invalid: None,
        }
    }

    /// Talks to the first JSONRPC or HTTP+JSON interface of `card` for protocol 1.x.
    pub fn card(mut self, card: AgentCard) -> Self {
        self.card = Some(card);
        self
    }

    /// Where the card was fetched from. Relative interface URLs resolve against it, and with
    /// credentials and no host override every request goes to its origin.
    pub fn card_source(mut self, url: impl Into<String>) -> Self {
        self.card_source = Some(url.into());
        self
    }

    /// Talks to `url` in `binding`, without a card. Ignored when a card is given.
    pub fn url(mut self, url: impl Into<String>, binding: ProtocolBinding) -> Self {
        self.url = Some((url.into(), binding));
        self
    }

    /// The tenant of a client built from a URL (a card's interface names its own).
    pub fn tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }

    /// Picks the card's first interface of `binding`; without one, the first usable
    /// interface (spec §5.4: clients should fall back). gRPC and custom bindings are refused
    /// at build time.
    pub fn prefer_binding(mut self, binding: ProtocolBinding) -> Self {
        self.preferred = Some(binding);
        self
    }

    /// Sends every request to this host instead of the interface URL's: `https`
    /// unless `host` names a scheme (`http://gateway:8080`).
    pub fn host(mut self, host: impl Into<String>) -> Self {
        self.host = Some(host.into());
        self
    }

    /// The port used with [`host`](Self::host); ignored without it.
    pub fn port(mut self, port: u16) -> Self {
        self.port = Some(port);
        self
    }

    /// The path used with [`host`](Self::host) instead of the interface URL's; ignored without
    /// it.
    pub fn base_path(mut self, path: impl Into<String>) -> Self {
        self.base_path = Some(path.into());
        self
    }

    /// Sends requests through `transport` (default: an [`HttpTransport`] with the connect
    /// timeout and the TLS settings). Card discovery and the OAuth token endpoint use it too.
    pub fn transport(mut self, transport: impl Transport) -> Self {
        self.transport = Some(Arc::new(transport));
        self
    }

    /// Sends requests through a shared transport.
    pub fn shared_transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.transport = Some(transport);
        self
    }

    /// Trusts the certificate authorities in `pem` (one or more PEM certificates) for HTTPS,
    /// besides the built-in roots: for agents whose certificate a private CA issued. PEM
    /// without a certificate fails [`build`](Self::build) with [`ClientError::Config`].
    /// Applies to the transport the builder makes.
    pub fn root_certificate_pem(self, pem: &[u8]) -> Self {
        self.change_tls(|tls| tls.root_certificate_pem(pem))
    }

    /// Presents this client certificate to agents that ask for one (mutual TLS): `pem` holds
    /// the certificate chain (leaf first) and its unencrypted private key (PKCS#8, PKCS#1 or
    /// SEC1). PEM without both fails [`build`](Self::build) with [`ClientError::Config`],
    /// whose message never quotes it. Applies to the transport the builder makes, and so
    /// also to card discovery and the OAuth token endpoint.
    pub fn client_identity_pem(self, pem: &[u8]) -> Self {
        self.change_tls(|tls| tls.client_identity_pem(pem))
    }

    /// Replaces the TLS settings (extra CAs, client certificate) of the transport the builder
    /// makes.
    pub fn tls(mut self, tls: TlsOptions) -> Self {
        self.tls = tls;
        self
    }

    fn change_tls(
        mut self,
        change: impl FnOnce(TlsOptions) -> Result<TlsOptions, ClientError>,
    ) -> Self {
        match change(self.tls.clone()) {
            Ok(tls) => self.tls = tls,
            Err(ClientError::Config { reason }) => self.invalid = Some(reason),
            Err(other) => self.invalid = Some(other.to_string()),
        }
        self
    }

    /// Adds a header to every request. An invalid name or value fails [`build`](Self::build).
    pub fn header<N, V>(mut self, name: N, value: V) -> Self
    where
        N: TryInto<HeaderName>,
        V: TryInto<HeaderValue>,
    {
        if !append_header(&mut self.headers, name, value) {
            self.invalid = Some("a client header has an invalid name or value".into());
        }
        self
    }

    /// Adds these headers to every request.
    pub fn headers(mut self, headers: HeaderMap) -> Self {
        self.headers.extend(headers);
        self
    }

    /// Calls `headers` before every request and adds what it returns (after the static
    /// headers, before credentials and per-call headers).
    pub fn header_fn(mut self, headers: impl Fn() -> HeaderMap + Send + Sync + 'static) -> Self {
        self.header_fn = Some(Arc::new(headers));
        self
    }

    /// Asks for one more extension on every request (`A2A-Extensions`).
    pub fn extension(mut self, uri: impl Into<String>) -> Self {
        self.extensions.push(uri.into());
        self
    }

    /// Asks for these extensions on every request.
    pub fn extensions<I, S>(mut self, uris: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.extensions.extend(uris.into_iter().map(Into::into));
        self
    }

    /// Authenticates with `credentials`, sent only to the agent's origin.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Gives up connecting after `timeout` (default 30 s). Applies to the transport the
    /// builder makes, not to one given with [`transport`](Self::transport).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.connect = timeout;
        self
    }

    /// Gives up a non-streaming call, or the opening of a stream, after `timeout` (default
    /// 60 s).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.request = timeout;
        self
    }

    /// Fails an open stream that stays silent (no bytes, heartbeats included) for `timeout`
    /// (default 300 s); it is then resumed when resuming is on.
    pub fn stream_idle_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.stream_idle = timeout;
        self
    }

    /// Replaces all three time limits.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Refuses SSE events and response bodies larger than `bytes` (default 10 MiB).
    pub fn max_payload_size(mut self, bytes: usize) -> Self {
        self.max_payload_size = bytes;
        self
    }

    /// Retries failed calls under `retry` (default: two retries of idempotent calls).
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Resumes broken streams under `resume` (default: on, 5 attempts in a row).
    pub fn resume(mut self, resume: ResumePolicy) -> Self {
        self.resume = resume;
        self
    }

    /// How [`discover`](Self::discover) fetches the card (path, redirects). Its transport,
    /// when unset, is the client's.
    pub fn card_fetch(mut self, options: CardFetchOptions) -> Self {
        self.card_fetch = options;
        self
    }

    /// Fetches the card at `url` with [`card_fetch`](Self::card_fetch)'s options
    /// and this builder's transport, then builds a client for it, bound to where the card
    /// was found.
    ///
    /// # Errors
    /// As [`fetch_agent_card`](crate::fetch_agent_card) and [`build`](Self::build).
    pub async fn discover(mut self, url: &str) -> Result<A2aClient, ClientError> {
        self.check_valid()?;
        let transport = self.make_transport()?;
        // The TLS settings are in the transport now; `build` must not see them as set on a
        // transport given by the caller.
        self.tls = TlsOptions::default();
        let mut options = self.card_fetch.clone();
        if options.transport.is_none() {
            options = options.shared_transport(Arc::clone(&transport));
        }
        let (card, source) = fetch_card_with_source(url, &options).await?;
        self.transport = Some(transport);
        self.card = Some(card);
        self.card_source = Some(source.to_string());
        self.build()
    }

    fn make_transport(&self) -> Result<Arc<dyn Transport>, ClientError> {
        match &self.transport {
            // Silently dropping a client certificate or a CA would be a surprise: say so.
            Some(_) if !self.tls.is_empty() => Err(ClientError::config(
                "TLS settings apply to the transport the builder makes, not to one given \
                 with `transport`; configure that transport instead",
            )),
            Some(transport) => Ok(Arc::clone(transport)),
            None => Ok(Arc::new(HttpTransport::with_tls(
                self.timeouts.connect,
                &self.tls,
            )?)),
        }
    }

    fn check_valid(&self) -> Result<(), ClientError> {
        match &self.invalid {
            Some(invalid) => Err(ClientError::config(invalid.clone())),
            None => Ok(()),
        }
    }

    /// Builds the client.
    ///
    /// # Errors
    /// [`ClientError::NoUsableInterface`] when the card has no JSONRPC or HTTP+JSON
    /// interface for protocol 1.x or the binding asked for is another one;
    /// [`ClientError::InvalidCard`] for a card without interfaces; [`ClientError::Config`]
    /// for neither card nor URL, an invalid URL or header, or credentials that cannot be
    /// resolved (an OAuth grant with no token URL), a CA or client certificate PEM that
    /// cannot be used, or TLS settings together with a [`transport`](Self::transport).
    pub fn build(self) -> Result<A2aClient, ClientError> {
        self.check_valid()?;
        let transport = self.make_transport()?;
        let card_source = self
            .card_source
            .as_deref()
            .map(parse_http_url)
            .transpose()?;
        let (interface_url, binding, tenant) = match (&self.card, &self.url) {
            (Some(card), _) => {
                validate_card(card)?;
                let (interface, binding) = pick_interface(card, self.preferred.as_ref())?;
                (interface.url.clone(), binding, interface.tenant.clone())
            }
            (None, Some((url, binding))) => {
                let binding = Binding::from_protocol(binding).ok_or_else(|| {
                    ClientError::NoUsableInterface {
                        reason: format!("this client does not speak the {binding} binding"),
                    }
                })?;
                parse_http_url(url)?;
                (
                    url.clone(),
                    binding,
                    self.tenant.clone().unwrap_or_default(),
                )
            }
            (None, None) => {
                return Err(ClientError::config(
                    "a client needs an agent card or a url and binding",
                ));
            }
        };
        let host = self.host.as_ref().map(|host| HostOverride {
            host: host.clone(),
            port: self.port,
            base_path: self.base_path.clone(),
        });
        let address = resolve_address(
            &interface_url,
            card_source.as_ref(),
            host.as_ref(),
            self.credentials.is_some(),
        )?;
        let auth = self
            .credentials
            .map(|credentials| {
                Authenticator::resolve(
                    credentials,
                    self.card.as_ref(),
                    card_source.as_ref(),
                    Arc::clone(&transport),
                    self.timeouts.request,
                )
            })
            .transpose()?;
        let inner = Inner {
            transport,
            auth_origin: address.origin(),
            endpoint: Endpoint {
                binding,
                url: address,
                tenant,
            },
            card: self.card,
            headers: self.headers,
            header_fn: self.header_fn,
            extensions: self.extensions,
            auth,
            timeouts: self.timeouts,
            retry: self.retry,
            resume: self.resume,
            max_payload_size: self.max_payload_size,
            next_request_id: AtomicU64::new(1),
        };
        Ok(A2aClient {
            inner: Arc::new(inner),
            call: Arc::new(CallOptions::default()),
        })
    }
}
