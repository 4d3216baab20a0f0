//! The minimum rate of a request body (Apache mod_reqtimeout's `MinRate`): after a grace
//! period, the bytes received so far divided by the time since the body was first read must
//! stay at or above the rate.

use std::time::Duration;

use tokio::time::Instant;

/// A body's progress against the minimum rate.
#[derive(Debug, Clone, Copy)]
pub(super) struct MinRate {
    /// Bytes per second; 0 turns the rate off.
    rate: u64,
    grace: Duration,
    /// When the body was first read (the server's own delays before that do not count).
    started: Option<Instant>,
    received: u64,
}

impl MinRate {
    pub(super) fn new(rate: u64, grace: Duration) -> Self {
        Self {
            rate,
            grace,
            started: None,
            received: 0,
        }
    }

    /// Notes that the body is being read (from the first call on, its time runs).
    pub(super) fn reading(&mut self) {
        if self.started.is_none() {
            self.started = Some(Instant::now());
        }
    }

    /// Counts `bytes` more received.
    pub(super) fn received(&mut self, bytes: usize) {
        self.received = self
            .received
            .saturating_add(u64::try_from(bytes).unwrap_or(u64::MAX));
    }

    /// When the body falls below the rate if no more bytes arrive: the grace, or the time
    /// the bytes so far pay for at the rate, whichever is later. `None` when the rate is off.
    pub(super) fn deadline(&self) -> Option<Instant> {
        if self.rate == 0 {
            return None;
        }
        let started = self.started?;
        // Whole seconds and the rest, so that no float rounds a large count.
        let paid = Duration::from_secs(self.received / self.rate)
            + Duration::from_nanos((self.received % self.rate) * 1_000_000_000 / self.rate);
        Some(started + self.grace.max(paid))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_deadline_is_the_grace_until_the_bytes_pay_for_longer() {
        let mut rate = MinRate::new(1024, Duration::from_secs(10));
        assert_eq!(rate.deadline(), None, "not read yet");
        rate.reading();
        let start = Instant::now();
        assert_eq!(rate.deadline(), Some(start + Duration::from_secs(10)));
        rate.received(5 * 1024);
        assert_eq!(rate.deadline(), Some(start + Duration::from_secs(10)));
        rate.received(7 * 1024 + 512);
        assert_eq!(rate.deadline(), Some(start + Duration::from_millis(12_500)));
        tokio::time::advance(Duration::from_secs(3)).await;
        rate.reading();
        assert_eq!(
            rate.deadline(),
            Some(start + Duration::from_millis(12_500)),
            "the clock started at the first read"
        );
    }

    #[test]
    fn a_zero_rate_is_off() {
        let mut rate = MinRate::new(0, Duration::from_secs(10));
        rate.reading();
        assert_eq!(rate.deadline(), None);
    }
}
