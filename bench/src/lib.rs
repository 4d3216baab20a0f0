//! Pieces shared by the load benchmark's binaries (see `bench/README.md`): canned A2A
//! payloads shaped like the ones `a2a serve` sends, an SSE event counter for the stream
//! clients, the batch runner of the closed-loop clients, their JSON-RPC `SendMessage`, and
//! small helpers.

pub mod batch;
mod bytes;
pub mod canned;
mod http;
pub mod jsonrpc;
mod listen;
pub mod sse;
mod stats;

/// The header every A2A request of the benchmark carries.
pub const VERSION_HEADER: (&str, &str) = ("A2A-Version", "1.0");

pub use bytes::contains;
pub use http::{http_client, successful};
pub use listen::{announce, serve};
pub use stats::percentile;
