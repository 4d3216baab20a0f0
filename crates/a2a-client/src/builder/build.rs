//! Making the client: the constructors of [`A2aClient`], card discovery, and
//! [`A2aClientBuilder::build`], which picks the interface, resolves its address and
//! credentials, and makes the transport and, for gRPC, the channel.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use a2a_types::{AgentCard, ProtocolBinding};

use super::A2aClientBuilder;
use crate::ProtocolVersion;
use crate::auth::Authenticator;
use crate::binding::grpc::{GrpcChannel, bind_to_card_host, grpc_url};
use crate::binding::{Binding, Endpoint, pick_interface};
use crate::client::{A2aClient, Inner};
use crate::discover::{HostOverride, fetch_card_with_source, resolve_address, validate_card};
use crate::error::ClientError;
use crate::http_url::parse_http_url;
use crate::options::CallOptions;
use crate::transport::{HttpTransport, InProcessTransport, Transport};

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
    /// [`ClientError::NoUsableInterface`] when the card has no JSONRPC, HTTP+JSON or GRPC
    /// interface for protocol 1.x, nor a JSONRPC or HTTP+JSON one for 0.3.
    pub fn from_card(card: AgentCard) -> Result<Self, ClientError> {
        Self::builder().card(card).build()
    }

    /// A client for `url` spoken in `binding`, without a card.
    ///
    /// # Errors
    /// [`ClientError::NoUsableInterface`] for a custom binding; [`ClientError::Config`] for a
    /// URL that is not absolute http(s) (or, for GRPC, `host:port`).
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

impl A2aClientBuilder {
    /// Fetches the card at `url` with [`card_fetch`](Self::card_fetch)'s options
    /// and this builder's transport, then builds a client for it, bound to where the card
    /// was found.
    ///
    /// # Errors
    /// As [`fetch_agent_card`](crate::fetch_agent_card) and [`build`](Self::build).
    pub async fn discover(mut self, url: &str) -> Result<A2aClient, ClientError> {
        self.check_valid()?;
        let transport = self.make_transport()?;
        // The TLS settings are in the transport now; `build` must not take it for one the
        // caller gave.
        self.made_transport = true;
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
            Some(_) if !self.tls.is_empty() && !self.made_transport => Err(ClientError::config(
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
    /// [`ClientError::NoUsableInterface`] when the card has no interface the client speaks in
    /// the version asked for (see [`protocol_version`](Self::protocol_version)), a binding
    /// asked for is a custom one, or v0.3 is asked for over gRPC;
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
        let (interface_url, binding, tenant, version) = match (&self.card, &self.url) {
            (Some(card), _) => {
                validate_card(card)?;
                let (interface, binding, version) =
                    pick_interface(card, &self.preferred, self.protocol_version)?;
                (interface.url, binding, interface.tenant, version)
            }
            (None, Some((url, binding))) => {
                let binding = Binding::from_protocol(binding).ok_or_else(|| {
                    ClientError::NoUsableInterface {
                        reason: format!("this client does not speak the {binding} binding"),
                    }
                })?;
                let version = self.protocol_version.unwrap_or(ProtocolVersion::V1_0);
                if binding != Binding::Grpc {
                    parse_http_url(url)?;
                } else if version == ProtocolVersion::V0_3 {
                    return Err(ClientError::NoUsableInterface {
                        reason: "A2A v0.3 is spoken over JSONRPC and HTTP+JSON only".into(),
                    });
                }
                (
                    url.clone(),
                    binding,
                    self.tenant.clone().unwrap_or_default(),
                    version,
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
        let (address, grpc) = match binding {
            Binding::JsonRpc | Binding::HttpJson => {
                let address = resolve_address(
                    &interface_url,
                    card_source.as_ref(),
                    host.as_ref(),
                    self.credentials.is_some(),
                )?;
                (address, None)
            }
            Binding::Grpc => {
                let address = self.grpc_address(&interface_url, card_source.as_ref(), host)?;
                let channel = GrpcChannel::new(
                    &address,
                    &self.tls,
                    self.timeouts.connect,
                    self.max_payload_size,
                )?;
                (address, Some(channel))
            }
        };
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
            grpc,
            auth_origin: address.origin(),
            endpoint: Endpoint {
                binding,
                url: address,
                tenant,
                version,
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
            default_operation: self.default_operation,
            history_length: self.history_length,
            stream_max_duration: self.stream_max_duration,
            next_request_id: AtomicU64::new(1),
        };
        Ok(A2aClient {
            inner: Arc::new(inner),
            call: Arc::new(CallOptions::default()),
        })
    }

    /// The address of a gRPC interface (a bare `host:port` in plaintext or over TLS as
    /// [`grpc_plaintext`](Self::grpc_plaintext) says): the host override when there is one;
    /// else the interface's, on the card's host when credentials are sent (its port stays: gRPC is
    /// served on a port of its own).
    fn grpc_address(
        &self,
        interface_url: &str,
        card_source: Option<&url::Url>,
        host: Option<HostOverride>,
    ) -> Result<url::Url, ClientError> {
        // An agent that serves its card without TLS serves its gRPC port without it too.
        let plaintext = self
            .grpc_plaintext
            .unwrap_or_else(|| card_source.is_some_and(|source| source.scheme() == "http"));
        let mut address = grpc_url(interface_url, plaintext)?;
        if let Some(mut host) = host {
            if plaintext && !host.host.contains("://") {
                host.host = format!("http://{}", host.host);
            }
            address = resolve_address(address.as_str(), None, Some(&host), false)?;
        } else if self.credentials.is_some()
            && let Some(source) = card_source
        {
            bind_to_card_host(&mut address, source)?;
        }
        Ok(address)
    }
}
