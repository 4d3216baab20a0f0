//! The exponential backoff with jitter, and how a `Retry-After` lengthens it.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBackoff};

/// The longest `Retry-After` honoured unless [`Backoff::retry_after_cap`] says otherwise.
pub const DEFAULT_RETRY_AFTER_CAP: Duration = Duration::from_secs(60);

/// An exponential backoff: the wait before retry `n` (0-based) is about `initial · 2ⁿ`,
/// capped at `max`, with "equal jitter": half of it fixed, the other half random, so many
/// callers failing together do not retry in step. A [`BackoffBuilder`], so it drives
/// [`Retryable::retry`](backon::Retryable::retry) directly.
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
