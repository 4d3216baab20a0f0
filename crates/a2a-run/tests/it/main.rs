//! The agent-run executor over real sockets: an A2A server on 127.0.0.1 serving a
//! [`a2a_run::RunAgent`] whose model is the tests' scripted OpenAI-compatible server.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub
)]

mod output;
mod refusals;
mod resume;
mod runs;
mod support;
