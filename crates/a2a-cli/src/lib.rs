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
//!   deliveries for development.
//! - `config`: flags, `A2A_*` environment variables and the TOML file, merged in one place
//!   into validated settings.
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
//! - `output`: the only module that prints to stdout.
//! - `duration`: the one reading of a duration (`1500`, `30s`, `5m`) that flags and the
//!   config file share.

mod actions;
mod agents;
mod authentication;
mod card;
mod cli;
mod client_args;
mod commands;
mod config;
mod connection;
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
mod serving;
mod spinner;
#[cfg(feature = "otel")]
mod telemetry;
#[cfg(not(feature = "otel"))]
#[path = "telemetry_off.rs"]
mod telemetry;

pub use self::cli::{Cli, run};
pub use self::error::{report_failure, report_usage_error};
