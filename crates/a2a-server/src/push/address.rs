//! Webhook address safety, checked at registration and again before each delivery: which
//! URLs a push notification may be sent to, and a client that sends only there.
//!
//! [`check_webhook`] parses a webhook URL, resolves its host and refuses it when any address
//! the host resolves to is loopback, private, link-local, cloud metadata or otherwise not
//! public unicast ([`is_forbidden`]). Call it when a push config is registered, and again just
//! before each delivery, because DNS may have changed in between. Then deliver with
//! [`CheckedWebhook::pinned_client`], which connects only to the addresses just checked, so a
//! DNS answer that changes between check and connect (rebinding) cannot redirect the request.
//!
//! ```no_run
//! # async fn deliver(body: Vec<u8>) -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use a2a_server::push::address::{SystemResolver, WebhookPolicy, check_webhook};
//!
//! let policy = WebhookPolicy::default();
//! let webhook = check_webhook("https://hooks.example.com/a2a", &policy, &SystemResolver::new()).await?;
//! let client = webhook.pinned_client(reqwest::Client::builder().timeout(Duration::from_secs(10)))?;
//! client.post(webhook.url().clone()).body(body).send().await?;
//! # Ok(()) }
//! ```

mod ranges;
mod resolve;

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use a2a_types::A2aError;
use url::{Host, Url};

pub use self::ranges::is_forbidden;
pub use self::resolve::{Resolve, StaticResolver, SystemResolver};

/// The names [`is_forbidden`] and [`AddressError::category`] give to forbidden addresses.
pub mod category {
    /// `127.0.0.0/8`, `::1`, and the `localhost` names; allowed by
    /// [`allow_local`](super::WebhookPolicy::allow_local).
    pub const LOOPBACK: &str = "loopback";
    /// `0.0.0.0/8` and `::`, which reach the local host on most systems.
    pub const UNSPECIFIED: &str = "unspecified";
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (RFC 1918) and local-use NAT64
    /// `64:ff9b:1::/48`.
    pub const PRIVATE: &str = "private";
    /// `169.254.0.0/16` and `fe80::/10`.
    pub const LINK_LOCAL: &str = "link-local";
    /// Shared address space `100.64.0.0/10` (RFC 6598).
    pub const CARRIER_GRADE_NAT: &str = "carrier-grade NAT";
    /// `fc00::/7` (RFC 4193).
    pub const UNIQUE_LOCAL: &str = "unique-local";
    /// Instance metadata services: `169.254.169.254`, `fd00:ec2::254` (AWS), `fd20:ce::254`
    /// (GCP), `100.100.100.200` (Alibaba Cloud), `192.0.0.192` (Oracle Cloud). Never allowed.
    pub const CLOUD_METADATA: &str = "cloud metadata";
    /// `224.0.0.0/4` and `ff00::/8`.
    pub const MULTICAST: &str = "multicast";
    /// `255.255.255.255`.
    pub const BROADCAST: &str = "broadcast";
    /// `198.18.0.0/15` and `2001:2::/48`.
    pub const BENCHMARKING: &str = "benchmarking";
    /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32` and `3fff::/20`.
    pub const DOCUMENTATION: &str = "documentation";
    /// `240.0.0.0/4`, discard-only `100::/64`, IPv4-compatible `::a.b.c.d`, and IPv6 outside
    /// global unicast `2000::/3` that no other category names.
    pub const RESERVED: &str = "reserved";
    /// IETF protocol assignments `192.0.0.0/24`.
    pub const IETF_PROTOCOL: &str = "IETF protocol";
    /// `fec0::/10`, deprecated but still routed by some networks.
    pub const SITE_LOCAL: &str = "site-local";
}

/// Where webhooks may point.
///
/// The default is the production policy: only `https://` URLs whose every address is public.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WebhookPolicy {
    /// Also allow loopback hosts (`127.0.0.0/8`, `::1`, `localhost`), over plain `http://` as
    /// well as https, for development and conformance runs (`allowLocalWebhookUrls`, off by
    /// default).
    /// Plain http is still refused for any other host, and no other forbidden category —
    /// cloud metadata least of all — becomes reachable.
    pub allow_local: bool,
}

/// A webhook URL that passed [`check_webhook`], with the addresses it was checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedWebhook {
    url: Url,
    addresses: Vec<SocketAddr>,
}

impl CheckedWebhook {
    /// The normalised URL: scheme and host lower-case, numeric hosts in dotted or bracketed
    /// form, default port omitted, fragment removed.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The normalised URL, by value.
    pub fn into_url(self) -> Url {
        self.url
    }

    /// The addresses the host resolved to, every one of them checked, with the URL's port.
    /// Never empty.
    pub fn addresses(&self) -> &[SocketAddr] {
        &self.addresses
    }

    /// Builds a client from `base` that can only reach this webhook's checked addresses.
    ///
    /// The host name is pinned to [`addresses`](Self::addresses), any other name fails to
    /// resolve, redirects are not followed (a redirect could point anywhere), and proxies are
    /// disabled (a proxy would resolve the name itself). TLS still verifies the certificate
    /// against the host name in the URL. Set timeouts on `base`; build a new client for each
    /// delivery, after a fresh [`check_webhook`].
    ///
    /// # Errors
    ///
    /// Whatever [`reqwest::ClientBuilder::build`] fails with, e.g. a TLS backend that cannot
    /// start.
    pub fn pinned_client(&self, base: reqwest::ClientBuilder) -> reqwest::Result<reqwest::Client> {
        let mut builder = base
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(RefuseUnpinned));
        if let Some(Host::Domain(domain)) = self.url.host() {
            builder = builder.resolve_to_addrs(domain, &self.addresses);
        }
        builder.build()
    }
}

/// The DNS resolver under a pinned client's overrides: any name not pinned fails.
#[derive(Debug)]
struct RefuseUnpinned;

impl reqwest::dns::Resolve for RefuseUnpinned {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let error = io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} is not the pinned webhook host", name.as_str()),
        );
        Box::pin(std::future::ready(Err(error.into())))
    }
}

/// Why a webhook URL was refused. The messages name the problem in the caller's terms and
/// suit an `InvalidParams` error; [`to_a2a_error`](Self::to_a2a_error) makes that error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AddressError {
    /// The URL contains whitespace or control characters, which URL parsing would silently
    /// drop or which could inject header lines.
    #[error("webhook URL contains whitespace or control characters")]
    InvalidCharacters,
    /// The URL does not parse.
    #[error("webhook URL is not a valid URL")]
    InvalidUrl {
        /// What the parser objected to.
        #[source]
        source: url::ParseError,
    },
    /// The scheme is neither https nor http.
    #[error("webhook URL scheme {scheme} is not supported; use https")]
    UnsupportedScheme {
        /// The scheme, lower-case.
        scheme: String,
    },
    /// The URL carries a user name or password.
    #[error("webhook URL must not contain credentials (user:password@)")]
    Credentials,
    /// The URL has an empty host.
    #[error("webhook URL has no host")]
    MissingHost,
    /// Plain http under the production policy.
    #[error("webhook URL must use https")]
    HttpsRequired,
    /// Plain http to a host that is not loopback, under
    /// [`allow_local`](WebhookPolicy::allow_local).
    #[error("webhook URL must use https unless it points to a loopback address")]
    HttpOnlyForLoopback,
    /// The host is `localhost` or a name under `.localhost`.
    #[error("webhook host {host} is a localhost name")]
    LocalhostName {
        /// The host as written in the normalised URL.
        host: String,
    },
    /// The host is an IP literal (in any spelling) in a forbidden range.
    #[error("webhook URL points to {} {category} address ({ip})", article(.category))]
    ForbiddenAddress {
        /// The address, after normalisation.
        ip: IpAddr,
        /// One of the [`category`] names.
        category: &'static str,
    },
    /// The host name resolves to at least one address in a forbidden range.
    #[error("webhook host {host} resolves to {} {category} address ({ip})", article(.category))]
    ForbiddenResolvedAddress {
        /// The host name.
        host: String,
        /// The first forbidden address among those it resolved to.
        ip: IpAddr,
        /// One of the [`category`] names.
        category: &'static str,
    },
    /// The host name does not resolve (unknown, no addresses, or the lookup failed or timed
    /// out).
    #[error("webhook host {host} does not resolve")]
    Unresolvable {
        /// The host name.
        host: String,
        /// What the resolver reported.
        #[source]
        source: io::Error,
    },
}

impl AddressError {
    /// The [`category`] of the forbidden address behind this refusal; `localhost` names count
    /// as [`LOOPBACK`](category::LOOPBACK). `None` when the refusal is not about an address.
    pub fn category(&self) -> Option<&'static str> {
        match self {
            Self::ForbiddenAddress { category, .. }
            | Self::ForbiddenResolvedAddress { category, .. } => Some(*category),
            Self::LocalhostName { .. } => Some(category::LOOPBACK),
            Self::InvalidCharacters
            | Self::InvalidUrl { .. }
            | Self::UnsupportedScheme { .. }
            | Self::Credentials
            | Self::MissingHost
            | Self::HttpsRequired
            | Self::HttpOnlyForLoopback
            | Self::Unresolvable { .. } => None,
        }
    }

    /// The `InvalidParams` error to answer the registering client with.
    ///
    /// The message is the [`Display`](std::fmt::Display) text, with two differences: a parse
    /// failure says what the parser objected to, and the address a host *name* resolved to is
    /// left out — the category is enough for the caller, and echoing internal DNS answers
    /// would let anyone who can register a webhook map the server's network.
    pub fn to_a2a_error(&self) -> A2aError {
        let message = match self {
            Self::InvalidUrl { source } => format!("{self}: {source}"),
            Self::ForbiddenResolvedAddress { host, category, .. } => {
                format!(
                    "webhook host {host} resolves to {} {category} address",
                    article(category)
                )
            }
            Self::InvalidCharacters
            | Self::UnsupportedScheme { .. }
            | Self::Credentials
            | Self::MissingHost
            | Self::HttpsRequired
            | Self::HttpOnlyForLoopback
            | Self::LocalhostName { .. }
            | Self::ForbiddenAddress { .. }
            | Self::Unresolvable { .. } => self.to_string(),
        };
        A2aError::invalid_params(message)
    }
}

impl From<AddressError> for A2aError {
    fn from(error: AddressError) -> Self {
        error.to_a2a_error()
    }
}

/// The indefinite article before a [`category`] name.
fn article(name: &str) -> &'static str {
    match name {
        category::UNSPECIFIED | category::IETF_PROTOCOL => "an",
        _ => "a",
    }
}

/// Checks that `url` may receive push notifications under `policy`, resolving its host with
/// `resolver`.
///
/// The URL is parsed as a browser would (WHATWG rules), so every numeric host spelling —
/// `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`, `[::ffff:7f00:1]` — is judged as the
/// address it means. IPv6 forms that carry an IPv4 address are judged by that address. A
/// host name is resolved and refused when *any* of its addresses is forbidden; `localhost`
/// and `*.localhost` are loopback without asking the resolver (RFC 6761). The fragment, never
/// sent over HTTP, is dropped. Refusals come in order of importance: what the host is, then
/// the scheme, so `http://169.254.169.254/` is refused as cloud metadata, not for lacking
/// https; host names are not looked up when the scheme alone refuses them.
///
/// Call it at registration and again before each delivery (DNS may have changed
/// since registration), and deliver through
/// [`CheckedWebhook::pinned_client`].
///
/// # Errors
///
/// An [`AddressError`] saying why the URL is refused.
pub async fn check_webhook(
    url: &str,
    policy: &WebhookPolicy,
    resolver: &dyn Resolve,
) -> Result<CheckedWebhook, AddressError> {
    // The URL parser strips tabs and newlines anywhere and trims spaces at the ends; refuse
    // them instead, so what is checked is exactly what was sent.
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(AddressError::InvalidCharacters);
    }
    let mut parsed = Url::parse(url).map_err(|source| match source {
        url::ParseError::EmptyHost => AddressError::MissingHost,
        source => AddressError::InvalidUrl { source },
    })?;
    let https = match parsed.scheme() {
        "https" => true,
        "http" => false,
        scheme => {
            return Err(AddressError::UnsupportedScheme {
                scheme: scheme.to_owned(),
            });
        }
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(AddressError::Credentials);
    }
    parsed.set_fragment(None);
    let port = parsed
        .port_or_known_default()
        .ok_or(AddressError::MissingHost)?;

    let addresses = match parsed.host() {
        None => return Err(AddressError::MissingHost),
        Some(Host::Ipv4(ip)) => vec![check_literal(IpAddr::V4(ip), port, policy)?],
        Some(Host::Ipv6(ip)) => vec![check_literal(IpAddr::V6(ip), port, policy)?],
        Some(Host::Domain(host)) if is_localhost_name(host) => {
            if !policy.allow_local {
                return Err(AddressError::LocalhostName {
                    host: host.to_owned(),
                });
            }
            vec![
                SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port),
                SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port),
            ]
        }
        Some(Host::Domain(host)) => {
            if !https && !policy.allow_local {
                return Err(AddressError::HttpsRequired);
            }
            resolve_checked(host, port, policy, resolver).await?
        }
    };

    if !https {
        if !policy.allow_local {
            return Err(AddressError::HttpsRequired);
        }
        let all_loopback = addresses
            .iter()
            .all(|address| ranges::classify(address.ip()) == Some(category::LOOPBACK));
        if !all_loopback {
            return Err(AddressError::HttpOnlyForLoopback);
        }
    }
    Ok(CheckedWebhook {
        url: parsed,
        addresses,
    })
}

fn check_literal(
    ip: IpAddr,
    port: u16,
    policy: &WebhookPolicy,
) -> Result<SocketAddr, AddressError> {
    match is_forbidden(ip, policy) {
        Some(category) => Err(AddressError::ForbiddenAddress { ip, category }),
        None => Ok(SocketAddr::new(ip, port)),
    }
}

async fn resolve_checked(
    host: &str,
    port: u16,
    policy: &WebhookPolicy,
    resolver: &dyn Resolve,
) -> Result<Vec<SocketAddr>, AddressError> {
    let unresolvable = |source| AddressError::Unresolvable {
        host: host.to_owned(),
        source,
    };
    let resolved = resolver.resolve(host, port).await.map_err(unresolvable)?;
    if resolved.is_empty() {
        return Err(unresolvable(io::Error::new(
            io::ErrorKind::NotFound,
            "no addresses",
        )));
    }
    let mut addresses: Vec<SocketAddr> = Vec::with_capacity(resolved.len());
    for address in resolved {
        let ip = address.ip();
        if let Some(category) = is_forbidden(ip, policy) {
            return Err(AddressError::ForbiddenResolvedAddress {
                host: host.to_owned(),
                ip,
                category,
            });
        }
        // The resolver's port is ignored: the connection goes to the URL's port.
        let address = SocketAddr::new(ip, port);
        if !addresses.contains(&address) {
            addresses.push(address);
        }
    }
    Ok(addresses)
}

fn is_localhost_name(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    host == "localhost" || host.ends_with(".localhost")
}
