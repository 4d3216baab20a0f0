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

use std::time::{Duration, SystemTime};

pub use backon::{BackoffBuilder, ExponentialBackoff, Retryable};

/// The longest `Retry-After` honoured unless [`Backoff::retry_after_cap`] says otherwise.
pub const DEFAULT_RETRY_AFTER_CAP: Duration = Duration::from_secs(60);

/// An exponential backoff: the wait before retry `n` (0-based) is about `initial · 2ⁿ`,
/// capped at `max`, with "equal jitter": half of it fixed, the other half random, so many
/// callers failing together do not retry in step. A [`BackoffBuilder`], so it drives
/// [`Retryable::retry`] directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct Backoff {
    initial: Duration,
    max: Duration,
    max_retries: Option<u32>,
    retry_after_cap: Duration,
}

impl Backoff {
    /// From about `initial` up to `max` (at least `initial`), without a limit on retries.
    pub fn new(initial: Duration, max: Duration) -> Self {
        Self {
            initial,
            max: max.max(initial),
            max_retries: None,
            retry_after_cap: DEFAULT_RETRY_AFTER_CAP,
        }
    }

    /// At most `retries` retries after the first attempt.
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = Some(retries);
        self
    }

    /// The longest wait a `Retry-After` may ask for; longer requests wait this long.
    pub fn retry_after_cap(mut self, cap: Duration) -> Self {
        self.retry_after_cap = cap;
        self
    }

    /// The waits before each retry, as many as retries are allowed.
    pub fn delays(&self) -> ExponentialBackoff {
        let builder = backon::ExponentialBuilder::new()
            // backon's jitter adds up to the delay again, so halving both bounds gives
            // [ceiling/2, ceiling).
            .with_min_delay(self.initial / 2)
            .with_max_delay(self.max / 2)
            .with_factor(2.0)
            .with_jitter();
        match self.max_retries {
            Some(retries) => builder.with_max_times(retries as usize),
            None => builder.without_max_times(),
        }
        .build()
    }

    /// The wait before retry `retry` (0-based), for schedules kept outside a loop (a
    /// stored "next attempt at").
    pub fn delay(&self, retry: u32) -> Duration {
        let unlimited = Self {
            max_retries: None,
            ..*self
        };
        unlimited.delays().nth(retry as usize).unwrap_or(self.max)
    }

    /// The wait before the next attempt: `backoff`, or what the peer asked for with
    /// `Retry-After` when that is longer, never more than the cap.
    pub fn wait(&self, backoff: Duration, retry_after: Option<Duration>) -> Duration {
        match retry_after {
            Some(asked) => backoff.max(asked.min(self.retry_after_cap)),
            None => backoff,
        }
    }
}

impl BackoffBuilder for Backoff {
    type Backoff = ExponentialBackoff;

    fn build(self) -> Self::Backoff {
        self.delays()
    }
}

/// How long an answer's `Retry-After` asks to wait, from now; `None` without one or when
/// it is neither delta-seconds nor an HTTP-date. A date in the past is no wait.
pub fn retry_after(headers: &http::HeaderMap) -> Option<Duration> {
    let value = headers.get(http::header::RETRY_AFTER)?.to_str().ok()?;
    parse_retry_after(value, SystemTime::now())
}

/// `value` read as a `Retry-After` header at `now`.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|byte| byte.is_ascii_digit()) {
        // More digits than a u64 holds is still "a very long time".
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_with_jitter_under_the_cap() {
        let backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(1));
        for retry in 0..10 {
            let ceiling =
                (Duration::from_millis(100) * 2_u32.pow(retry)).min(Duration::from_secs(1));
            let delay = backoff.delay(retry);
            assert!(
                delay >= ceiling / 2 && delay <= ceiling,
                "{retry}: {delay:?}"
            );
        }
    }

    #[test]
    fn the_retry_limit_ends_the_schedule() {
        let backoff = Backoff::new(Duration::from_millis(1), Duration::from_millis(4));
        assert_eq!(backoff.max_retries(2).delays().count(), 2);
        assert_eq!(backoff.max_retries(0).delays().count(), 0);
        assert_eq!(backoff.delays().take(50).count(), 50);
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        let cases = [
            ("120", Some(Duration::from_secs(120))),
            (" 0 ", Some(Duration::ZERO)),
            (
                "99999999999999999999999",
                Some(Duration::from_secs(u64::MAX)),
            ),
            (
                "Wed, 21 Oct 2015 07:28:30 GMT",
                Some(Duration::from_secs(30)),
            ),
            ("Wed, 21 Oct 2015 07:27:00 GMT", Some(Duration::ZERO)),
            ("-5", None),
            ("1.5", None),
            ("soon", None),
            ("", None),
        ];
        for (value, expected) in cases {
            assert_eq!(parse_retry_after(value, now), expected, "{value:?}");
        }
    }

    #[test]
    fn retry_after_lengthens_the_wait_up_to_the_cap() {
        let backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(1))
            .retry_after_cap(Duration::from_secs(10));
        let short = Duration::from_millis(50);
        assert_eq!(backoff.wait(short, None), short);
        assert_eq!(backoff.wait(short, Some(Duration::ZERO)), short);
        let asked = Some(Duration::from_secs(3));
        assert_eq!(backoff.wait(short, asked), Duration::from_secs(3));
        let too_long = Some(Duration::from_secs(3600));
        assert_eq!(backoff.wait(short, too_long), Duration::from_secs(10));
    }
}
