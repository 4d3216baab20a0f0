//! One retry schedule for every HTTP caller of the toolkit (the client, push delivery and
//! gateway registration): exponential backoff with jitter, from [`backon`], lengthened when
//! the peer answers with `Retry-After` (RFC 9110 §10.2.3, delta-seconds or an HTTP-date),
//! up to a cap.
//!
//! ```
//! use std::time::Duration;
//! use a2a_retry::{Backoff, Retryable as _};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let backoff = Backoff::new(Duration::from_millis(1), Duration::from_millis(10)).max_retries(2);
//! let mut attempts = 0;
//! let answer: Result<&str, &str> = (|| {
//!     attempts += 1;
//!     let attempt = attempts;
//!     async move { if attempt < 3 { Err("busy") } else { Ok("done") } }
//! })
//! .retry(backoff)
//! .sleep(tokio::time::sleep)
//! .await;
//! assert_eq!(answer, Ok("done"));
//!
//! // A 503 that asks for two seconds waits two seconds, not the backoff's milliseconds.
//! let mut headers = http::HeaderMap::new();
//! headers.insert(http::header::RETRY_AFTER, http::HeaderValue::from_static("2"));
//! let asked = a2a_retry::retry_after(&headers);
//! assert_eq!(backoff.wait(Duration::from_millis(5), asked), Duration::from_secs(2));
//! # }
//! ```
//!
//! # Feature flags
//!
//! None: everything is always built.
//!
//! # The a2a crates
//!
//! This crate is part of a2a, the A2A protocol in Rust:
//! [`a2a-types`](https://docs.rs/a2a-types) (the wire model),
//! [`a2a-grpc`](https://docs.rs/a2a-grpc) (the gRPC wire form),
//! [`a2a-signature`](https://docs.rs/a2a-signature) (signed cards),
//! [`a2a-server`](https://docs.rs/a2a-server) (the server framework),
//! [`a2a-store-sql`](https://docs.rs/a2a-store-sql) (SQLite and PostgreSQL stores),
//! [`a2a-client`](https://docs.rs/a2a-client) (the client),
//! [`a2a-run`](https://docs.rs/a2a-run) (agent runs with tools and approvals),
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

mod backoff;
mod retry_after;

pub use backoff::{Backoff, DEFAULT_RETRY_AFTER_CAP};
pub use backon::{BackoffBuilder, ExponentialBackoff, Retryable};
pub use retry_after::{parse_retry_after, retry_after};
