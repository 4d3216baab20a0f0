//! The log level, checked.

use super::checks::invalid;
use crate::config::ConfigError;

/// `filter` when it parses as a log filter, so a bad `--log-level` stops the command with a
/// usage error even when `RUST_LOG` overrides it.
pub(super) fn log_level(filter: String) -> Result<String, ConfigError> {
    match crate::logging::parse(&filter) {
        Ok(_) => Ok(filter),
        Err(error) => Err(invalid("log-level", format!("`{filter}`: {error}"))),
    }
}
