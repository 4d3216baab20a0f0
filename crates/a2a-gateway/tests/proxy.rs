//! The protocol-aware proxy against a fleet of local agents: every error path, streams,
//! headers, tokens, cards and metrics.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

#[path = "proxy/cards.rs"]
mod cards;
#[path = "proxy/compat.rs"]
mod compat;
#[path = "proxy/errors.rs"]
mod errors;
#[path = "proxy/forwarding.rs"]
mod forwarding;
#[path = "proxy/grpc.rs"]
mod grpc;
#[path = "proxy/limits.rs"]
mod limits;
#[path = "proxy/security.rs"]
mod security;
#[path = "proxy/streams.rs"]
mod streams;
#[path = "proxy/support.rs"]
mod support;
