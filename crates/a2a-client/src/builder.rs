//! [`A2aClientBuilder`]: the card or URL, binding preference, address overrides, transport,
//! TLS, headers, extensions, credentials, timeouts, size limit, retries and stream resumption.

mod build;

use std::sync::Arc;
use std::time::Duration;

use a2a_types::{AgentCard, ProtocolBinding};
use http::HeaderMap;
use http::header::{HeaderName, HeaderValue};

use crate::ProtocolVersion;
use crate::auth::Credentials;
use crate::client::HeaderFn;
use crate::discover::CardFetchOptions;
use crate::error::ClientError;
use crate::options::{ResumePolicy, RetryPolicy, SendOperation, Timeouts, append_header};
use crate::transport::{TlsOptions, Transport};

/// The default limit on one SSE event or one response body: 10 MiB.
pub const DEFAULT_MAX_PAYLOAD_SIZE: usize = 10 * 1024 * 1024;

/// The default cap on a stream's whole life: 300 s (see
/// [`A2aClientBuilder::stream_max_duration`]).
pub const DEFAULT_STREAM_MAX_DURATION: Duration = Duration::from_secs(300);

/// Configures an [`A2aClient`](crate::A2aClient).
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
    preferred: Vec<ProtocolBinding>,
    protocol_version: Option<ProtocolVersion>,
    grpc_plaintext: Option<bool>,
    host: Option<String>,
    port: Option<u16>,
    base_path: Option<String>,
    transport: Option<Arc<dyn Transport>>,
    /// The transport was made by [`discover`](Self::discover) from `tls`, which then still
    /// applies to gRPC.
    made_transport: bool,
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
    pub(crate) default_operation: SendOperation,
    pub(crate) history_length: Option<u32>,
    pub(crate) stream_max_duration: Option<Duration>,
    invalid: Option<String>,
}

impl std::fmt::Debug for A2aClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aClientBuilder")
            .field("card", &self.card.as_ref().map(|card| &card.name))
            .field("url", &self.url)
            .field("preferred", &self.preferred)
            .field("protocol_version", &self.protocol_version)
            .field("grpc_plaintext", &self.grpc_plaintext)
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
            preferred: Vec::new(),
            protocol_version: None,
            grpc_plaintext: None,
            host: None,
            port: None,
            base_path: None,
            transport: None,
            made_transport: false,
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
            default_operation: SendOperation::default(),
            history_length: None,
            stream_max_duration: Some(DEFAULT_STREAM_MAX_DURATION),
            invalid: None,
        }
    }

    /// Talks to the first JSONRPC or HTTP+JSON interface of `card` for protocol 1.x, else its
    /// first GRPC one (see [`prefer_bindings`](Self::prefer_bindings)); a card with no 1.x
    /// interface, in v0.3 to its first JSONRPC or HTTP+JSON interface for 0.3 (see
    /// [`protocol_version`](Self::protocol_version)).
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
    /// interface (spec §5.4: clients should fall back). Custom bindings are refused at build
    /// time. Replaces an order given before.
    pub fn prefer_binding(self, binding: ProtocolBinding) -> Self {
        self.prefer_bindings([binding])
    }

    /// Picks the card's first interface of the first binding in `order` that the card offers;
    /// without any, the default: the first JSONRPC or HTTP+JSON interface in card order, else
    /// the first GRPC one. Custom bindings are refused at build time.
    ///
    /// ```no_run
    /// use a2a_client::A2aClient;
    /// use a2a_types::ProtocolBinding;
    ///
    /// # async fn run() -> Result<(), a2a_client::ClientError> {
    /// let client = A2aClient::builder()
    ///     .prefer_bindings([ProtocolBinding::Grpc, ProtocolBinding::JsonRpc])
    ///     .discover("https://agent.example.com")
    ///     .await?;
    /// # let _ = client; Ok(()) }
    /// ```
    pub fn prefer_bindings(mut self, order: impl IntoIterator<Item = ProtocolBinding>) -> Self {
        self.preferred = order.into_iter().collect();
        self
    }

    /// Speaks `version` whatever the card prefers: the card's interfaces for that version
    /// (for 0.3 also the v0.3 members a dual card carries), or, for a client built from a
    /// URL, that version at that URL. Unset, the card decides: 1.x when it offers it, else
    /// 0.3; a client built from a URL speaks 1.0. v0.3 is not spoken over gRPC.
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = Some(version);
        self
    }

    /// Whether a gRPC interface given as a bare `host:port` is spoken in plaintext HTTP/2
    /// (h2c) or over TLS. Unset, it follows where the card came from: plaintext when the card
    /// was fetched over plain `http`, TLS otherwise (an `https` card, or no card source). An
    /// `http://` address is always plaintext and an `https://` one always TLS. Also applies
    /// to a [`host`](Self::host) override without a scheme.
    pub fn grpc_plaintext(mut self, plaintext: bool) -> Self {
        self.grpc_plaintext = Some(plaintext);
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

    /// Sends requests through `transport` (default: an [`HttpTransport`](crate::transport::HttpTransport) with the connect
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

    /// Trusts the certificate authorities in `pem` (one or more PEM certificates) for HTTPS
    /// and gRPC over TLS, besides the operating system's certificate store and the bundled
    /// webpki roots: for agents whose certificate a private CA issued. PEM
    /// without a certificate fails [`build`](Self::build) with [`ClientError::Config`].
    /// Applies to the transport the builder makes.
    pub fn root_certificate_pem(self, pem: &[u8]) -> Self {
        self.change_tls(|tls| tls.root_certificate_pem(pem))
    }

    /// Presents this client certificate to agents that ask for one (mutual TLS): `pem` holds
    /// the certificate chain (leaf first) and its unencrypted private key (PKCS#8, PKCS#1 or
    /// SEC1). PEM without both fails [`build`](Self::build) with [`ClientError::Config`],
    /// whose message never quotes it. Applies to the transport the builder makes, and so
    /// also to card discovery and the OAuth token endpoint, and to gRPC.
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
    /// builder makes, not to one given with [`transport`](Self::transport), and to gRPC.
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

    /// Closes a stream (SendStreamingMessage, SubscribeToTask) that is still open `limit`
    /// after it was asked for, whether or not events keep coming, with
    /// [`ClientError::Timeout`]`(`[`TimeoutKind::StreamDuration`](crate::TimeoutKind::StreamDuration)`)`
    /// as its last item. Resumptions count towards it. Default
    /// [`DEFAULT_STREAM_MAX_DURATION`], 300 s (a
    /// streaming request's time limit in Apache Camel's client); `Duration::ZERO` lifts the
    /// cap, leaving only [`stream_idle_timeout`](Self::stream_idle_timeout).
    ///
    /// ```
    /// use std::time::Duration;
    /// use a2a_client::A2aClient;
    /// use a2a_types::ProtocolBinding;
    ///
    /// # fn run() -> Result<(), a2a_client::ClientError> {
    /// let client = A2aClient::builder()
    ///     .url("http://localhost:8080/a2a", ProtocolBinding::JsonRpc)
    ///     .stream_max_duration(Duration::from_secs(300))
    ///     .build()?;
    /// # let _ = client; Ok(()) }
    /// ```
    pub fn stream_max_duration(mut self, limit: Duration) -> Self {
        self.stream_max_duration = (!limit.is_zero()).then_some(limit);
        self
    }

    /// Replaces all three time limits.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Refuses SSE events, response bodies and gRPC messages larger than `bytes` (default
    /// 10 MiB).
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

    /// What [`A2aClient::send_default`](crate::A2aClient::send_default) does with a
    /// message (default [`SendOperation::SendMessage`]);
    /// [`CallOptions::operation`](crate::CallOptions::operation) overrides it per call.
    ///
    /// ```
    /// use a2a_client::{A2aClient, SendOperation};
    /// use a2a_types::ProtocolBinding;
    ///
    /// # fn run() -> Result<(), a2a_client::ClientError> {
    /// let client = A2aClient::builder()
    ///     .url("http://localhost:8080/a2a", ProtocolBinding::JsonRpc)
    ///     .default_operation(SendOperation::SendStreamingMessage)
    ///     .build()?;
    /// # let _ = client; Ok(()) }
    /// ```
    pub fn default_operation(mut self, operation: SendOperation) -> Self {
        self.default_operation = operation;
        self
    }

    /// The `historyLength` of SendMessage, SendStreamingMessage and GetTask requests that set
    /// none (default: unset, the agent decides); `0` asks for no history.
    /// [`CallOptions::history_length`](crate::CallOptions::history_length) overrides it per
    /// call, and a request's own value wins over both.
    ///
    /// ```
    /// use a2a_client::A2aClient;
    /// use a2a_types::ProtocolBinding;
    ///
    /// # fn run() -> Result<(), a2a_client::ClientError> {
    /// let client = A2aClient::builder()
    ///     .url("http://localhost:8080/a2a", ProtocolBinding::JsonRpc)
    ///     .history_length(10)
    ///     .build()?;
    /// # let _ = client; Ok(()) }
    /// ```
    pub fn history_length(mut self, length: u32) -> Self {
        self.history_length = Some(length);
        self
    }

    /// How [`discover`](Self::discover) fetches the card (path, redirects). Its transport,
    /// when unset, is the client's.
    pub fn card_fetch(mut self, options: CardFetchOptions) -> Self {
        self.card_fetch = options;
        self
    }
}
