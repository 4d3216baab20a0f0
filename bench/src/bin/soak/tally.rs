//! What the soak counts between two samples: operations finished, errors by kind, the
//! latencies of the operations, and the push deliveries received.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// How many error messages go to stderr; the rest are only counted.
const PRINTED_ERRORS: usize = 20;

/// The counts of the interval being measured.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    interval: Mutex<Interval>,
    printed: AtomicUsize,
}

/// One interval's counts, taken by [`Tally::take`].
#[derive(Debug, Default)]
pub(crate) struct Interval {
    /// Operations finished (failed ones included).
    pub(crate) requests: u64,
    /// Failures by kind: the operation (`send`, `stream`, …), or `push-missing`,
    /// `overload` (an operation not started because too many were in flight).
    pub(crate) errors: BTreeMap<&'static str, u64>,
    /// Latencies of the successful operations, ms.
    pub(crate) latencies_ms: Vec<f64>,
    /// Push deliveries received (every POST to the webhook).
    pub(crate) pushes: u64,
}

impl Interval {
    /// All the errors of the interval.
    pub(crate) fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }
}

impl Tally {
    fn with<R>(&self, f: impl FnOnce(&mut Interval) -> R) -> R {
        f(&mut self.interval.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// One operation of kind `kind` finished after `elapsed`, with `result`.
    pub(crate) fn finished(
        &self,
        kind: &'static str,
        elapsed: Duration,
        result: anyhow::Result<()>,
    ) {
        match result {
            Ok(()) => self.with(|interval| {
                interval.requests += 1;
                interval.latencies_ms.push(elapsed.as_secs_f64() * 1000.0);
            }),
            Err(error) => {
                self.with(|interval| interval.requests += 1);
                self.error(kind, &error);
            }
        }
    }

    /// A failure of kind `kind` that is not an operation's answer (the end of a
    /// subscription, a missing push), or an operation not started.
    pub(crate) fn error(&self, kind: &'static str, error: &anyhow::Error) {
        self.with(|interval| *interval.errors.entry(kind).or_default() += 1);
        if self.printed.fetch_add(1, Ordering::Relaxed) < PRINTED_ERRORS {
            eprintln!("soak: {kind} failed: {error:#}");
        }
    }

    /// One push delivery received.
    pub(crate) fn push_received(&self) {
        self.with(|interval| interval.pushes += 1);
    }

    /// The counts since the last call, latencies sorted; the next interval starts empty.
    pub(crate) fn take(&self) -> Interval {
        let mut taken = self.with(std::mem::take);
        taken.latencies_ms.sort_by(f64::total_cmp);
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_counts_and_resets() {
        let tally = Tally::default();
        tally.finished("send", Duration::from_millis(3), Ok(()));
        tally.finished("send", Duration::from_millis(1), Ok(()));
        tally.finished(
            "list",
            Duration::from_millis(9),
            Err(anyhow::anyhow!("boom")),
        );
        tally.error("push-missing", &anyhow::anyhow!("late"));
        tally.push_received();
        let interval = tally.take();
        assert_eq!(interval.requests, 3);
        assert_eq!(interval.latencies_ms, [1.0, 3.0]);
        assert_eq!(interval.error_count(), 2);
        assert_eq!(interval.errors["list"], 1);
        assert_eq!(interval.pushes, 1);
        let next = tally.take();
        assert_eq!(next.requests, 0);
        assert_eq!(next.error_count(), 0);
    }
}
