//! The options set by `A2A_*` variables, parsed by the flags' own parsers.

use std::ffi::OsString;

use clap::{Args as _, FromArgMatches as _};

use super::{ConfigError, PREFIX, ServeOptions};

/// The options set by `A2A_*` variables. Empty values count as unset.
pub(super) fn from_environment(
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
