//! Checking a webhook URL: parsing it, judging its host's addresses, and the scheme.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use url::{Host, Url};

use super::{AddressError, CheckedWebhook, Resolve, WebhookPolicy, category, is_forbidden, ranges};

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
