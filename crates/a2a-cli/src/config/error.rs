//! Why an option cannot be used as given: the user's to fix, so a usage error.

use std::path::PathBuf;

use crate::error::UsageError;

/// An option that cannot be used as given; the user's to fix (exit code 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    /// The configuration file cannot be read.
    #[error("cannot read config file {}", path.display())]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The configuration file is not valid TOML or names an unknown option.
    #[error("config file {}: {message}", path.display())]
    ParseFile {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line.
        message: String,
    },
    /// An `A2A_*` variable has a value its option does not accept.
    #[error("environment variable {name}: {message}")]
    Environment {
        /// The variable.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A merged value is out of range or inconsistent with another.
    #[error("--{option}: {message}")]
    Invalid {
        /// The option, as its flag is spelled.
        option: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl From<ConfigError> for UsageError {
    fn from(error: ConfigError) -> Self {
        Self::from_error(error)
    }
}
