//! The assembled [`a2a_gateway::Gateway`] on a real socket: the registry API, the proxy and
//! `/metrics` on one router, with real `A2aServer` agents registered over HTTP.
//!
//! - `seed`: every curl example of KubeMQ's A2A gateway error-handling guide, answered as it
//!   shows.
//! - `lifecycle`: expiry, heartbeats, deregistration and registering again, seen through the
//!   proxy.
//! - `access`: the registry key, CORS, `/metrics` and a stream end to end.
//! - `health`: `/healthz` and `/readyz`, without credentials, draining, a closed registry.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

mod support;

#[allow(dead_code)]
#[path = "proxy/support.rs"]
mod proxy_support;

#[path = "gateway/access.rs"]
mod access;
#[path = "gateway/fleet.rs"]
mod fleet;
#[path = "gateway/health.rs"]
mod health;
#[path = "gateway/lifecycle.rs"]
mod lifecycle;
#[path = "gateway/seed.rs"]
mod seed;
