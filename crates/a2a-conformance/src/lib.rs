//! Conformance checks for any A2A agent: `a2a test URL` as a library.
//!
//! The run reads the agent's card, then checks the spec's rules on every interface the card
//! declares (JSON-RPC, HTTP+JSON, gRPC; v1.0 and v0.3 interfaces each in their own version),
//! independent checks concurrently, each with a timeout. Every rule has an id of ours, its
//! RFC 2119 level, the spec section that states it, and one sentence saying what is checked,
//! declared beside the function that checks it ([`rules`]). A run gives a [`Report`]: a
//! verdict per rule and interface, with what was sent, what came back and what was expected
//! on a failure, written as a table, JSON or JUnit XML.
//!
//! Checks that need the agent to behave in particular ways (wait for input, work for a few
//! seconds) run only when its card declares [`BEHAVIOURS_EXTENSION`]; otherwise they are
//! skipped with that reason. Push checks register webhooks at a receiver the run serves on a
//! local port.
//!
//! ```no_run
//! use a2a_conformance::{RunOptions, report};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let report = a2a_conformance::run("http://127.0.0.1:8080", &RunOptions::default(), &|_| {}).await?;
//! print!("{}", report::table(&report, false));
//! assert!(!report.failed(false), "a MUST rule fails");
//! # Ok(()) }
//! ```
//!
//! # Feature flags
//!
//! No feature flags.
//!
//! # The a2a crates
//!
//! Part of the a2a toolkit: [`a2a-types`](https://docs.rs/a2a-types) (the wire model),
//! [`a2a-grpc`](https://docs.rs/a2a-grpc) (the gRPC wire form), [`a2a-client`](https://docs.rs/a2a-client)
//! (credentials, push signature checks), [`a2a-server`](https://docs.rs/a2a-server) (the
//! agent server the tests run it against), and [`a2a-cli`](https://docs.rs/a2a-cli), whose
//! `a2a test` is this crate.
//!
//! # Layout
//!
//! * `rule`, `outcome`: what a rule and a verdict are; `catalog`: every rule, in order.
//! * One module per rule area: `card`, `signatures`, `operations`, `errors`, `streaming`, `listing`,
//!   `push`, `equivalence`, `versions`, `v03`.
//! * `wire/`: one operation over one binding, answers as ProtoJSON; `expect`: the error each
//!   binding must answer.
//! * `context`: what a check is given; `receiver`: the webhook receiver; `tls`: the extra
//!   CAs and client certificate of every connection.
//! * `runner`: the plan (rules × interfaces, filters), concurrency, timeouts, progress;
//!   `glob`: `--filter` patterns.
//! * `report/`: the report and its table, JSON, JUnit and Markdown forms.

mod card;
mod catalog;
mod context;
mod equivalence;
mod errors;
mod expect;
mod glob;
mod listing;
mod operations;
mod outcome;
mod push;
mod receiver;
pub mod report;
mod rule;
mod runner;
mod signatures;
mod streaming;
mod tls;
mod v03;
mod versions;
mod wire;

pub use self::catalog::rules;
pub use self::context::{BEHAVIOURS_EXTENSION, Context};
pub use self::outcome::{Outcome, Verdict};
pub use self::receiver::Receiver;
pub use self::report::{CheckResult, Report, Summary};
pub use self::rule::{Level, Rule, Scope};
pub use self::runner::{Progress, RunError, RunOptions, run};
