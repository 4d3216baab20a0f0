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

mod check;
mod error;
mod pinned;
mod ranges;
mod resolve;

use std::net::SocketAddr;

use url::Url;

pub use self::check::check_webhook;
pub use self::error::AddressError;
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
