//! Integration tests of the agent server over real sockets (127.0.0.1:0).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod auth;
mod auth_tokens;
mod bindings_card;
mod bindings_jsonrpc;
mod bindings_rest;
mod blocking_timeout;
mod card_max_age;
mod concurrency;
mod cors;
mod exactly_once;
mod grpc;
mod health;
mod hooks;
mod limits;
mod list_tasks;
mod push;
mod push_address;
mod push_config_delete;
mod request_headers;
mod return_immediately;
mod shutdown;
mod streaming;
mod stuck_tasks;
mod support;
mod tls;
mod turn_rules;
mod unknown_enums;
mod v03;
