//! The limits a listener's connections are held to, with their defaults.

use std::time::Duration;

/// The default [`ConnectionLimits::header_read_timeout`]: 10 s.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The default [`ConnectionLimits::body_read_timeout`]: 30 s.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The default [`ConnectionLimits::body_min_rate`]: 1024 bytes per second.
pub const DEFAULT_BODY_MIN_RATE: u64 = 1024;
/// The default [`ConnectionLimits::body_min_rate_grace`]: 10 s.
pub const DEFAULT_BODY_MIN_RATE_GRACE: Duration = Duration::from_secs(10);
/// The default [`ConnectionLimits::keep_alive_timeout`]: 60 s.
pub const DEFAULT_KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(60);
/// The default [`ConnectionLimits::write_timeout`].
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(60);
/// The default [`ConnectionLimits::max_connections`]: 10 000.
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;
/// The default [`ConnectionLimits::max_tls_handshakes`]: 256.
pub const DEFAULT_MAX_TLS_HANDSHAKES: usize = 256;

/// The limits on a listener's connections; see the [module](super) for how each is enforced.
/// Zero values are raised to the smallest meaningful one (1 ms, one connection).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConnectionLimits {
    /// Time to deliver a complete request head [default: 10 s].
    pub header_read_timeout: Duration,
    /// Longest gap between two pieces of a request body being read [default: 30 s].
    pub body_read_timeout: Duration,
    /// Least rate of a request body, in bytes per second, once its grace is over; 0 for no
    /// minimum [default: 1024].
    pub body_min_rate: u64,
    /// How long a request body may arrive more slowly than the minimum rate, from when it is
    /// first read [default: 10 s].
    pub body_min_rate_grace: Duration,
    /// How long a connection with no request in flight stays open [default: 60 s].
    pub keep_alive_timeout: Duration,
    /// How long a response write may wait for the client to take bytes before the
    /// connection is closed [default: 60 s].
    pub write_timeout: Duration,
    /// Connections open at once; more wait in the listen backlog [default: 10 000].
    pub max_connections: usize,
    /// TLS handshakes in progress at once [default: 256].
    pub max_tls_handshakes: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            body_min_rate: DEFAULT_BODY_MIN_RATE,
            body_min_rate_grace: DEFAULT_BODY_MIN_RATE_GRACE,
            keep_alive_timeout: DEFAULT_KEEP_ALIVE_TIMEOUT,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_tls_handshakes: DEFAULT_MAX_TLS_HANDSHAKES,
        }
    }
}

impl ConnectionLimits {
    /// Sets [`header_read_timeout`](Self::header_read_timeout).
    #[must_use]
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// Sets [`body_read_timeout`](Self::body_read_timeout).
    #[must_use]
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// Sets [`body_min_rate`](Self::body_min_rate) (bytes per second; 0: none).
    #[must_use]
    pub fn body_min_rate(mut self, bytes_per_second: u64) -> Self {
        self.body_min_rate = bytes_per_second;
        self
    }

    /// Sets [`body_min_rate_grace`](Self::body_min_rate_grace).
    #[must_use]
    pub fn body_min_rate_grace(mut self, grace: Duration) -> Self {
        self.body_min_rate_grace = grace;
        self
    }

    /// Sets [`keep_alive_timeout`](Self::keep_alive_timeout).
    #[must_use]
    pub fn keep_alive_timeout(mut self, timeout: Duration) -> Self {
        self.keep_alive_timeout = timeout;
        self
    }

    /// Sets [`write_timeout`](Self::write_timeout).
    #[must_use]
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// Sets [`max_connections`](Self::max_connections).
    #[must_use]
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// Sets [`max_tls_handshakes`](Self::max_tls_handshakes).
    #[must_use]
    pub fn max_tls_handshakes(mut self, max: usize) -> Self {
        self.max_tls_handshakes = max;
        self
    }

    /// The limits with zero values raised to the smallest meaningful ones.
    pub(super) fn sane(mut self) -> Self {
        let least = Duration::from_millis(1);
        self.header_read_timeout = self.header_read_timeout.max(least);
        self.body_read_timeout = self.body_read_timeout.max(least);
        self.keep_alive_timeout = self.keep_alive_timeout.max(least);
        self.write_timeout = self.write_timeout.max(least);
        self.max_connections = self.max_connections.max(1);
        self.max_tls_handshakes = self.max_tls_handshakes.max(1);
        self
    }
}
