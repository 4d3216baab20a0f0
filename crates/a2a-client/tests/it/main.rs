//! Integration tests of the A2A client, over real sockets on 127.0.0.1.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

mod client_defaults;
mod delegation;
mod discovery;
mod errors;
mod grpc;
mod kubemq;
mod mtls;
mod oauth;
mod operations;
mod push_delivery;
mod push_signature;
mod python_checks;
mod python_sdk;
mod python_sdk_03;
mod raw_stream;
mod resume;
mod retries;
mod support;
mod v03;
mod wire;
