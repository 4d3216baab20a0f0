//! `a2a` as its users run it: the real binary on an ephemeral port, driven over HTTP.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod card;
mod conformance;
mod exec;
mod serve;
mod support;
mod usage;
