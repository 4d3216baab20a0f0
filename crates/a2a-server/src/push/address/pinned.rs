//! What a checked webhook offers: its normalised URL, its checked addresses, and a client
//! that connects only to them.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use url::{Host, Url};

use super::CheckedWebhook;

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
    /// delivery, after a fresh [`check_webhook`](super::check_webhook).
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
