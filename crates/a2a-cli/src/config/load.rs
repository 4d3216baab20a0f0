//! The merge of the three sources: flag over environment variable over file, then defaults.

use std::ffi::OsString;
use std::path::PathBuf;

use super::environment::from_environment;
use super::file::from_file;
use super::{CONFIG_VARIABLE, ConfigError, ServeOptions, Settings};

/// Merges `flags`, the `A2A_*` entries of `environment` and the TOML file (`config`, else
/// `A2A_CONFIG`), then applies defaults and checks the result.
pub(crate) fn load(
    flags: ServeOptions,
    config: Option<PathBuf>,
    environment: impl IntoIterator<Item = (OsString, OsString)>,
) -> Result<Settings, ConfigError> {
    Settings::resolve(merge(flags, config, environment)?)
}

/// The options the three sources give, merged, before defaults.
pub(crate) fn merge(
    flags: ServeOptions,
    config: Option<PathBuf>,
    environment: impl IntoIterator<Item = (OsString, OsString)>,
) -> Result<ServeOptions, ConfigError> {
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
    Ok(flags.or(from_environment(environment)?).or(file))
}
