//! The `a2a` command: a library with a thin binary on top.
//!
//! `main.rs` parses the command line into a [`Cli`], calls [`run`] and turns the outcome into
//! an exit code with [`report_failure`]: 0 success, 1 runtime failure (for the client
//! commands: the agent refused, or the task ended FAILED, REJECTED or CANCELED), 2 usage or
//! configuration error, 3 cannot bind, or cannot reach the agent.
//!
//! ```
//! use clap::Parser as _;
//!
//! // What `a2a serve --agent echo --bind 127.0.0.1:0` parses into; `a2a_cli::run(cli)`
//! // would then serve until SIGINT or SIGTERM.
//! let cli = a2a_cli::Cli::try_parse_from(["a2a", "serve", "--agent", "echo", "--bind", "127.0.0.1:0"])?;
//! # let _ = cli;
//! # Ok::<(), clap::Error>(())
//! ```
//!
//! # Layout
//!
//! - `cli`: the clap command tree and the dispatch to one subcommand.
//! - `commands/`: one file per subcommand: `serve`, `gateway` (the registry and proxy of
//!   `a2a-gateway` on one address, KubeMQ's defaults), the client commands `card`, `send`,
//!   `chat`, `get`, `list`, `cancel`, `subscribe`, `push`, and `webhook`, a receiver of push
//!   deliveries for development; `completions` and `man`, the command's own documentation.
//! - `config`: flags, `A2A_*` environment variables and the TOML file, merged in one place
//!   into validated settings, and printed back as TOML by `--print-config`.
//! - `card`: the agent card served, from a file and/or parameters.
//! - `authentication`: the security options as the card's schemes and the server's
//!   `Authentication`.
//! - `agents/`: the built-in agents `echo`, `exec` and `conformance`.
//! - `logging`: `tracing` to stderr, human-readable or JSON.
//! - `client_args`: the flags every client command shares (URL, binding, credentials,
//!   timeout, `--json`); `connection`: the `a2a-client` built from them, the one place the
//!   commands meet the client library.
//! - `follow`, `progress`: following a stream of events, and what the events said about
//!   the task (which decides the exit code).
//! - `render/`: human output of protocol values, as strings; `spinner`: the wait animation.
//! - `serving`: how `a2a serve` serves, over HTTP or HTTPS (mutual TLS with `--client-ca`),
//!   and stops gracefully.
//! - `register`: `a2a serve --register`, keeping the served agent registered with a
//!   gateway.
//! - `output`: the only module that prints to stdout; `color`: whether anything is coloured.
//! - `version`: the text of `--version`, with the git commit `build.rs` records.
//! - `duration`: the one reading of a duration (`1500`, `30s`, `5m`) that flags and the
//!   config file share.
//!
//! # Feature flags
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `otel` | yes | OTLP export of traces from `a2a serve`, `a2a gateway` and the calling commands, configured by the standard `OTEL_*` variables |
//!
//! # The a2a crates
//!
//! This crate is part of a2a, the A2A protocol in Rust:
//! [`a2a-types`](https://docs.rs/a2a-types) (the wire model),
//! [`a2a-grpc`](https://docs.rs/a2a-grpc) (the gRPC wire form),
//! [`a2a-signature`](https://docs.rs/a2a-signature) (signed cards),
//! [`a2a-retry`](https://docs.rs/a2a-retry) (retry schedules),
//! [`a2a-server`](https://docs.rs/a2a-server) (the server framework),
//! [`a2a-store-sql`](https://docs.rs/a2a-store-sql) (SQLite and PostgreSQL stores),
//! [`a2a-client`](https://docs.rs/a2a-client) (the client),
//! [`a2a-run`](https://docs.rs/a2a-run) (agent runs with tools and approvals),
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector).

mod actions;
mod agents;
mod authentication;
mod card;
mod cli;
mod client_args;
mod color;
mod commands;
mod config;
mod connection;
mod credential_args;
mod duration;
mod error;
mod follow;
mod kubemq_env;
mod lines;
mod log_writer;
mod logging;
mod metrics_export;
mod output;
mod progress;
mod register;
mod render;
mod secret;
mod serving;
mod spinner;
#[cfg(feature = "otel")]
mod telemetry;
#[cfg(not(feature = "otel"))]
#[path = "telemetry_off.rs"]
mod telemetry;
mod version;

pub use self::cli::{Cli, run};
pub use self::error::{report_failure, report_usage_error};
