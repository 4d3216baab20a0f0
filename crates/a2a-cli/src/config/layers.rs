//! The configuration layers of `a2a gateway`, whose options are plain clap flags with
//! defaults: each setting found in a variable or in the TOML file becomes a `--flag=VALUE`
//! before the command line is parsed, so the three sources share the flags' parsers.
//!
//! The names are those of `a2a serve`: `--agent-ttl` ↔ `A2A_AGENT_TTL` ↔ `agent_ttl` in the
//! file. For one option the first of these wins:
//!
//! 1. the flag on the command line;
//! 2. `A2A_<NAME>`;
//! 3. `A2A_GATEWAY_<NAME>`, the gateway's older name, kept so deployments keep working;
//! 4. `KUBEMQ_A2A_<NAME>`, then KubeMQ's own names ([`crate::kubemq_env`]);
//! 5. the key `<name>` of the TOML file given by `--config` (else `A2A_CONFIG`);
//! 6. the default `--help` shows.
//!
//! Empty variables count as unset. A key of the file that names no option is refused, with
//! the key and the file; relative paths of `FILE` options are relative to the file.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::{CONFIG_VARIABLE, ConfigError, NOT_SETTINGS, PREFIX};

/// The prefix of the gateway's older variable names.
const GATEWAY_PREFIX: &str = "A2A_GATEWAY_";
/// The prefix of KubeMQ's variable names.
const KUBEMQ_PREFIX: &str = "KUBEMQ_A2A_";

/// A command line with the settings of the variables and the file added as flags, and where
/// each added flag came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layered {
    /// The program's arguments, program name first.
    pub(crate) args: Vec<OsString>,
    /// `(long flag, where its value came from)` for each flag added.
    sources: Vec<(String, String)>,
}

impl Layered {
    /// `args` as they are, for commands without layers.
    pub(crate) fn unchanged(args: Vec<OsString>) -> Self {
        Self {
            args,
            sources: Vec::new(),
        }
    }

    /// `error` (clap's, from parsing [`Self::args`]) naming the variable or file key behind
    /// the flag it is about, when that flag was added here.
    pub(crate) fn explain(&self, error: clap::Error) -> clap::Error {
        use clap::error::{ContextKind, ContextValue};
        let Some(ContextValue::String(argument)) = error.get(ContextKind::InvalidArg) else {
            return error;
        };
        let long = argument
            .trim_start_matches("--")
            .split([' ', '='])
            .next()
            .unwrap_or_default();
        let Some((_, source)) = self.sources.iter().find(|(flag, _)| flag == long) else {
            return error;
        };
        let line = crate::error::clap_first_line(&error);
        let message = line.trim_start_matches("error: ");
        clap::Error::raw(error.kind(), format!("{source}: {message}\n"))
    }
}

/// The environment variable of an option: `A2A_` and its flag in upper snake case.
pub(crate) fn variable_of(long: &str) -> String {
    format!("{PREFIX}{}", long.replace('-', "_").to_ascii_uppercase())
}

/// The TOML key of an option: its flag in snake case.
pub(crate) fn key_of(long: &str) -> String {
    long.replace('-', "_")
}

/// `args` (program name first, the subcommand second) with a `--flag=VALUE` added after the
/// subcommand for every option of `command` that the command line leaves out and a
/// variable (`lookup`) or the configuration file sets, in the order of the module docs.
///
/// # Errors
/// The file cannot be read, is not TOML, or has a key naming no option or a value of the
/// wrong shape.
pub(crate) fn layered(
    args: Vec<OsString>,
    command: &clap::Command,
    lookup: impl Fn(&str) -> Option<OsString>,
) -> Result<Layered, ConfigError> {
    let lookup = |name: &str| lookup(name).filter(|value| !value.is_empty());
    let given: Vec<String> = args
        .iter()
        .skip(2)
        .take_while(|arg| arg.as_os_str() != OsStr::new("--"))
        .filter_map(|arg| arg.to_str()?.strip_prefix("--").map(str::to_owned))
        .collect();
    let on_command_line = |long: &str| {
        given
            .iter()
            .any(|arg| arg == long || arg.strip_prefix(long).is_some_and(|r| r.starts_with('=')))
    };
    let config = config_path(&args).or_else(|| lookup(CONFIG_VARIABLE).map(PathBuf::from));
    let mut file = match &config {
        Some(path) => read_file(path, command)?,
        None => toml::Table::new(),
    };

    let mut added: Vec<OsString> = Vec::new();
    let mut sources: Vec<(String, String)> = Vec::new();
    for option in command.get_arguments() {
        let Some(long) = option.get_long() else {
            continue;
        };
        if NOT_SETTINGS.contains(&long) {
            continue;
        }
        let from_file = file.remove(&key_of(long));
        if on_command_line(long) {
            continue;
        }
        let ours = variable_of(long);
        let suffix = &ours[PREFIX.len()..];
        let from_variable = [
            ours.clone(),
            format!("{GATEWAY_PREFIX}{suffix}"),
            format!("{KUBEMQ_PREFIX}{suffix}"),
        ]
        .into_iter()
        .find_map(|name| lookup(&name).map(|value| (format!("environment variable {name}"), value)))
        .or_else(|| {
            crate::kubemq_env::native(long, lookup)
                .map(|(name, value)| (format!("environment variable {name}"), value))
        });
        let (source, value) = match (from_variable, from_file, &config) {
            (Some(found), _, _) => found,
            (None, Some(value), Some(path)) => {
                let source = format!("config file {}, key {}", path.display(), key_of(long));
                let value =
                    file_value(option, &value, path).map_err(|message| ConfigError::ParseFile {
                        path: path.clone(),
                        message: format!("{}: {message}", key_of(long)),
                    })?;
                (source, value)
            }
            (None, _, _) => continue,
        };
        let mut flag = OsString::from(format!("--{long}="));
        flag.push(value);
        added.push(flag);
        sources.push((long.to_owned(), source));
    }
    let mut args = args;
    let at = args.len().min(2);
    args.splice(at..at, added);
    Ok(Layered { args, sources })
}

/// The value of `--config` on the command line, if given.
fn config_path(args: &[OsString]) -> Option<PathBuf> {
    let mut args = args
        .iter()
        .skip(2)
        .take_while(|arg| arg.as_os_str() != OsStr::new("--"));
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if text == "--config" {
            return args.next().map(PathBuf::from);
        }
        if let Some(path) = text.strip_prefix("--config=") {
            return Some(PathBuf::from(path));
        }
    }
    None
}

/// The file's keys and values, every key naming an option of `command`.
fn read_file(path: &Path, command: &clap::Command) -> Result<toml::Table, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::ReadFile {
        path: path.to_owned(),
        source,
    })?;
    let table: toml::Table = toml::from_str(&text).map_err(|error| ConfigError::ParseFile {
        path: path.to_owned(),
        message: super::file::message(&text, &error),
    })?;
    let known: Vec<String> = command
        .get_arguments()
        .filter_map(clap::Arg::get_long)
        .filter(|long| !NOT_SETTINGS.contains(long))
        .map(key_of)
        .collect();
    if let Some(unknown) = table.keys().find(|key| !known.contains(key)) {
        let line = text
            .lines()
            .position(|line| {
                line.trim_start()
                    .strip_prefix(unknown.as_str())
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            })
            .map(|index| format!("line {}: ", index + 1))
            .unwrap_or_default();
        return Err(ConfigError::ParseFile {
            path: path.to_owned(),
            message: format!(
                "{line}unknown key `{unknown}`; the keys are the options of --help in snake_case"
            ),
        });
    }
    Ok(table)
}

/// A file value as its flag's text: strings as written, numbers (bare durations are
/// milliseconds, as on the command line) and booleans as TOML writes them, arrays joined by
/// commas where the option takes a comma-separated list.
fn file_value(option: &clap::Arg, value: &toml::Value, file: &Path) -> Result<OsString, String> {
    let text = match value {
        toml::Value::String(text) => text.clone(),
        toml::Value::Integer(number) => number.to_string(),
        toml::Value::Float(number) => number.to_string(),
        toml::Value::Boolean(flag) => flag.to_string(),
        toml::Value::Array(items) if option.get_value_delimiter().is_some() => items
            .iter()
            .map(|item| match item {
                toml::Value::String(text) => Ok(text.clone()),
                other => Err(format!(
                    "expected a list of strings, found {}",
                    other.type_str()
                )),
            })
            .collect::<Result<Vec<_>, _>>()?
            .join(","),
        other => {
            return Err(format!(
                "expected a single value, found {}",
                other.type_str()
            ));
        }
    };
    let is_file = option
        .get_value_names()
        .is_some_and(|names| names.iter().any(|name| name.as_str() == "FILE"));
    if is_file && Path::new(&text).is_relative() {
        let base = file.parent().unwrap_or_else(|| Path::new(""));
        return Ok(base.join(text).into_os_string());
    }
    Ok(OsString::from(text))
}
