//! The options of `a2a serve` from their three sources, merged in one place:
//! flag > environment variable `A2A_<OPTION>` > TOML file (`--config`, keys in snake_case) >
//! default.
//!
//! Environment variable names come from the flag names (`--max-concurrent-tasks` →
//! `A2A_MAX_CONCURRENT_TASKS`) and their values are parsed by the same clap parsers as the
//! flags, so the three sources cannot disagree on what a value means. The exec agent's
//! command has no variable: a word list does not survive a single string. `A2A_*` variables
//! that name no option are ignored, as they may belong to other tools.

mod millis;
mod options;
mod push;
mod register;
mod security;
mod settings;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{Args as _, FromArgMatches as _};

use crate::error::UsageError;

pub(crate) use self::millis::Millis;
pub(crate) use self::options::{LogFormat, ServeOptions};
pub(crate) use self::register::RegisterSetting;
pub(crate) use self::security::{
    AuthSetting, Credentials, IntrospectionSetting, JwtKeys, JwtSetting,
};
pub(crate) use self::settings::{AgentSetup, ExecCommand, Settings, StoreSetting};

/// Names the configuration file when `--config` does not.
const CONFIG_VARIABLE: &str = "A2A_CONFIG";
const PREFIX: &str = "A2A_";

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

/// Merges `flags`, the `A2A_*` entries of `environment` and the TOML file (`config`, else
/// `A2A_CONFIG`), then applies defaults and checks the result.
pub(crate) fn load(
    flags: ServeOptions,
    config: Option<PathBuf>,
    environment: impl IntoIterator<Item = (OsString, OsString)>,
) -> Result<Settings, ConfigError> {
    let environment: Vec<(OsString, OsString)> = environment.into_iter().collect();
    let config = config.or_else(|| {
        environment
            .iter()
            .find(|(name, value)| name == CONFIG_VARIABLE && !value.is_empty())
            .map(|(_, value)| PathBuf::from(value))
    });
    let file = match config {
        Some(path) => from_file(&path)?,
        None => ServeOptions::default(),
    };
    let merged = flags.or(from_environment(environment)?).or(file);
    Settings::resolve(merged)
}

/// The options set by `A2A_*` variables. Empty values count as unset.
fn from_environment(
    environment: impl IntoIterator<Item = (OsString, OsString)>,
) -> Result<ServeOptions, ConfigError> {
    let command = ServeOptions::augment_args(clap::Command::new("a2a-serve").no_binary_name(true));
    let mut options = ServeOptions::default();
    for (name, value) in environment {
        let Some(name) = name.to_str() else { continue };
        let Some(flag) = flag_of(&command, name) else {
            continue;
        };
        if value.is_empty() {
            continue;
        }
        let Some(value) = value.to_str() else {
            return Err(environment_error(name, "not valid UTF-8".to_owned()));
        };
        let one = command
            .clone()
            .try_get_matches_from([format!("--{flag}={value}")])
            .and_then(|matches| ServeOptions::from_arg_matches(&matches))
            .map_err(|error| {
                let line = crate::error::clap_first_line(&error);
                environment_error(name, line.trim_start_matches("error: ").to_owned())
            })?;
        options = one.or(options);
    }
    Ok(options)
}

/// The long flag that `A2A_<NAME>` sets, if any.
fn flag_of<'a>(command: &'a clap::Command, variable: &str) -> Option<&'a str> {
    let option = variable.strip_prefix(PREFIX)?;
    command
        .get_arguments()
        .filter_map(clap::Arg::get_long)
        .find(|long| long.replace('-', "_").to_ascii_uppercase() == option)
}

fn environment_error(name: &str, message: String) -> ConfigError {
    ConfigError::Environment {
        name: name.to_owned(),
        message,
    }
}

/// The options of a TOML file. A relative card path is relative to the file, as a reader of
/// the file would expect.
fn from_file(path: &Path) -> Result<ServeOptions, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::ReadFile {
        path: path.to_owned(),
        source,
    })?;
    let mut options = parse_file(path, &text)?;
    if let Some(card) = options.card.take() {
        let base = path.parent().unwrap_or_else(|| Path::new(""));
        options.card = Some(base.join(card));
    }
    Ok(options)
}

fn parse_file(path: &Path, text: &str) -> Result<ServeOptions, ConfigError> {
    toml::from_str(text).map_err(|error| {
        // toml's own rendering spans several lines with a source excerpt; one line with
        // the line number fits the command's one-line errors.
        let line = error
            .span()
            .and_then(|span| text.get(..span.start))
            .map(|before| before.matches('\n').count() + 1);
        let message = error.message().trim().to_owned();
        ConfigError::ParseFile {
            path: path.to_owned(),
            message: match line {
                Some(line) => format!("line {line}: {message}"),
                None => message,
            },
        }
    })
}

#[cfg(test)]
mod tests;
