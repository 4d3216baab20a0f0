//! The connection options of `a2a serve`, checked: the header, body, keep-alive and write
//! timeouts, the body's minimum rate,
//! the cap on open connections, and the TLS handshake cap and timeout.

use std::time::Duration;

use a2a_server::connections::ConnectionLimits;
use a2a_server::tls::DEFAULT_HANDSHAKE_TIMEOUT;

use super::ConfigError;
use super::options::ServeOptions;

/// The limits on the connections of each listener of `a2a serve`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConnectionSetting {
    /// Timeouts and caps for the accept loop.
    pub(crate) limits: ConnectionLimits,
    /// How long a TLS handshake may wait for its turn, and then take.
    pub(crate) tls_handshake_timeout: Duration,
}

/// The checked connection options; every one must be more than 0.
pub(crate) fn connections(options: &ServeOptions) -> Result<ConnectionSetting, ConfigError> {
    let mut limits = ConnectionLimits::default();
    if let Some(timeout) = options.header_read_timeout {
        limits = limits.header_read_timeout(positive("header-read-timeout", timeout.0)?);
    }
    if let Some(timeout) = options.body_read_timeout {
        limits = limits.body_read_timeout(positive("body-read-timeout", timeout.0)?);
    }
    // 0 turns the minimum rate off, and a zero grace applies it from the first byte.
    if let Some(rate) = options.body_min_rate {
        limits = limits.body_min_rate(rate);
    }
    if let Some(grace) = options.body_min_rate_grace {
        limits = limits.body_min_rate_grace(grace.0);
    }
    if let Some(timeout) = options.keep_alive_timeout {
        limits = limits.keep_alive_timeout(positive("keep-alive-timeout", timeout.0)?);
    }
    if let Some(timeout) = options.write_timeout {
        limits = limits.write_timeout(positive("write-timeout", timeout.0)?);
    }
    if let Some(max) = options.max_connections {
        limits = limits.max_connections(nonzero("max-connections", max)?);
    }
    if let Some(max) = options.max_tls_handshakes {
        limits = limits.max_tls_handshakes(nonzero("max-tls-handshakes", max)?);
    }
    let tls_handshake_timeout = match options.tls_handshake_timeout {
        Some(timeout) => positive("tls-handshake-timeout", timeout.0)?,
        None => DEFAULT_HANDSHAKE_TIMEOUT,
    };
    Ok(ConnectionSetting {
        limits,
        tls_handshake_timeout,
    })
}

fn positive(option: &'static str, duration: Duration) -> Result<Duration, ConfigError> {
    if duration.is_zero() {
        Err(invalid(option))
    } else {
        Ok(duration)
    }
}

fn nonzero(option: &'static str, value: usize) -> Result<usize, ConfigError> {
    if value == 0 {
        Err(invalid(option))
    } else {
        Ok(value)
    }
}

fn invalid(option: &'static str) -> ConfigError {
    ConfigError::Invalid {
        option,
        message: "must be more than 0".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn defaults_flags_variables_and_toml_keys() {
        let defaults = connections(&ServeOptions::default()).unwrap();
        assert_eq!(defaults.limits, ConnectionLimits::default());
        assert_eq!(defaults.tls_handshake_timeout, Duration::from_secs(10));

        let file: ServeOptions = toml::from_str(
            "header_read_timeout = \"2s\"\nbody_read_timeout = 3000\nkeep_alive_timeout = \"4s\"\n\
             max_connections = 5\nmax_tls_handshakes = 6\ntls_handshake_timeout = \"7s\"\n\
             write_timeout = \"8s\"\nbody_min_rate = 10\nbody_min_rate_grace = \"9s\"",
        )
        .unwrap();
        let from_file = connections(&file).unwrap();
        let expected = ConnectionLimits::default()
            .header_read_timeout(Duration::from_secs(2))
            .body_read_timeout(Duration::from_secs(3))
            .keep_alive_timeout(Duration::from_secs(4))
            .write_timeout(Duration::from_secs(8))
            .max_connections(5)
            .max_tls_handshakes(6)
            .body_min_rate(10)
            .body_min_rate_grace(Duration::from_secs(9));
        assert_eq!(from_file.limits, expected);
        assert_eq!(from_file.tls_handshake_timeout, Duration::from_secs(7));

        let variables = [
            ("A2A_HEADER_READ_TIMEOUT", "2s"),
            ("A2A_BODY_READ_TIMEOUT", "3s"),
            ("A2A_KEEP_ALIVE_TIMEOUT", "4s"),
            ("A2A_MAX_CONNECTIONS", "5"),
            ("A2A_MAX_TLS_HANDSHAKES", "6"),
            ("A2A_TLS_HANDSHAKE_TIMEOUT", "7s"),
            ("A2A_WRITE_TIMEOUT", "8s"),
            ("A2A_BODY_MIN_RATE", "10"),
            ("A2A_BODY_MIN_RATE_GRACE", "9s"),
        ]
        .map(|(name, value)| (name.into(), value.into()));
        let from_environment =
            connections(&super::super::environment::from_environment(variables).unwrap()).unwrap();
        assert_eq!(from_environment, from_file);

        for zero in [
            "max_connections = 0",
            "keep_alive_timeout = 0",
            "write_timeout = 0",
        ] {
            let options: ServeOptions = toml::from_str(zero).unwrap();
            let error = connections(&options).unwrap_err();
            assert!(error.to_string().contains("more than 0"), "{error}");
        }
    }
}
