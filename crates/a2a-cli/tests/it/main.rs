//! `a2a` as its users run it: the real binary on an ephemeral port, driven over HTTP.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod actions;
mod agents;
mod auth;
mod blocking_timeout;
mod card;
mod card_signing;
mod card_sources;
mod client_card;
mod client_chat;
mod client_errors;
mod client_mock;
mod client_push;
mod client_reach;
mod client_send;
mod client_stream_cap;
mod client_tasks;
mod client_terminal;
mod client_v03;
mod color;
mod config;
mod conformance;
mod conformance_run;
mod connections;
mod cors_browser;
mod crash;
mod data_format;
mod deploy;
mod exec;
mod gateway;
mod inspect;
mod inspect_cli;
mod llm;
mod mcp;
mod metrics;
mod operations;
mod page_tokens;
mod print_config;
mod protocol_choices;
mod push_delivery;
mod python_sdk_03;
mod register;
mod self_docs;
mod serve;
mod slow_bodies;
mod store_cleanup;
mod stuck_tasks;
mod support;
mod test_command;
mod tls;
mod traces;
mod usage;
mod webhook;
