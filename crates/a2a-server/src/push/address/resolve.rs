//! Name resolution for webhook checks: the [`Resolve`] seam, the system resolver behind it in
//! production, and a fixed table for tests and embedders with their own naming.

use std::collections::HashMap;
use std::fmt::Debug;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use async_trait::async_trait;

/// Turns a host name into the addresses a webhook delivery would connect to.
///
/// [`check_webhook`](super::check_webhook) calls it for every host that is a name rather than
/// an IP literal, and judges every address it returns.
#[async_trait]
pub trait Resolve: Send + Sync + Debug {
    /// Every address `host` resolves to, with `port`.
    ///
    /// `host` is a lower-case ASCII name (international names arrive in punycode), never an IP
    /// literal. Implementations must return all addresses, not a chosen one: the check refuses
    /// the host when any of them is forbidden. A name that does not exist is an error, as is
    /// a lookup that takes too long; an empty list is treated like a name that does not exist.
    async fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<SocketAddr>>;
}

/// The operating system's resolver (`getaddrinfo` through [`tokio::net::lookup_host`]), with
/// a time limit on each lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemResolver {
    timeout: Duration,
}

impl SystemResolver {
    /// How long a lookup may take unless [`with_timeout`](Self::with_timeout) says otherwise.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

    /// A system resolver with [`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT).
    pub const fn new() -> Self {
        Self::with_timeout(Self::DEFAULT_TIMEOUT)
    }

    /// A system resolver whose lookups fail with [`io::ErrorKind::TimedOut`] after `timeout`.
    pub const fn with_timeout(timeout: Duration) -> Self {
        Self { timeout }
    }
}

impl Default for SystemResolver {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Resolve for SystemResolver {
    async fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<SocketAddr>> {
        match tokio::time::timeout(self.timeout, tokio::net::lookup_host((host, port))).await {
            Ok(addresses) => Ok(addresses?.collect()),
            Err(_elapsed) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "name resolution timed out",
            )),
        }
    }
}

/// A fixed table from host names to addresses; names not in it do not resolve.
///
/// Names are matched without regard to case or a trailing dot.
///
/// ```
/// use a2a_server::push::address::StaticResolver;
///
/// let resolver = StaticResolver::new()
///     .with_host("hooks.example.com", ["93.184.216.34".parse().unwrap()])
///     .with_host("internal.test", ["10.0.0.5".parse().unwrap()]);
/// # let _ = resolver;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StaticResolver {
    hosts: HashMap<String, Vec<IpAddr>>,
}

impl StaticResolver {
    /// An empty table: no name resolves.
    pub fn new() -> Self {
        Self::default()
    }

    /// This table with `host` resolving to `addresses` (replacing any earlier entry).
    #[must_use]
    pub fn with_host(mut self, host: &str, addresses: impl IntoIterator<Item = IpAddr>) -> Self {
        self.insert(host, addresses);
        self
    }

    /// Makes `host` resolve to `addresses`, replacing any earlier entry.
    pub fn insert(&mut self, host: &str, addresses: impl IntoIterator<Item = IpAddr>) {
        self.hosts
            .insert(table_key(host), addresses.into_iter().collect());
    }
}

#[async_trait]
impl Resolve for StaticResolver {
    async fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<SocketAddr>> {
        match self.hosts.get(&table_key(host)) {
            Some(addresses) => Ok(addresses
                .iter()
                .map(|ip| SocketAddr::new(*ip, port))
                .collect()),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                "host name not in the table",
            )),
        }
    }
}

fn table_key(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}
