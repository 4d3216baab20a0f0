//! `--print-config`: the effective configuration of `a2a serve` or `a2a gateway` as a TOML
//! file to start from.
//!
//! Every setting appears once, in `--help`'s order and sections, under its help text. A
//! setting that a flag, a variable or the file gives a value other than its default is
//! written out; the others stay comments showing the default (or, for a setting without a
//! default value, an example). Secrets are never written: a secret that is set shows as a
//! comment. With nothing set, the output is `docs/serve.toml` or `docs/gateway.toml`.

use std::fmt::Write as _;

use super::layers::key_of;
use super::samples::{self, Hint};
use super::{Millis, NOT_SETTINGS};

/// The longest line written, comment marker included.
const WIDTH: usize = 96;

/// Which command's file to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sample {
    /// `a2a serve`.
    Serve,
    /// `a2a gateway`.
    Gateway,
}

impl Sample {
    fn header(self) -> &'static str {
        match self {
            Self::Serve => SERVE_HEADER,
            Self::Gateway => GATEWAY_HEADER,
        }
    }

    fn hints(self) -> &'static [(&'static str, Hint)] {
        match self {
            Self::Serve => samples::SERVE,
            Self::Gateway => samples::GATEWAY,
        }
    }
}

const SERVE_HEADER: &str = "\
# Every setting of `a2a serve`, with its default; written by `a2a serve --print-config`, which
# writes out the settings its flags, variables and file set. Change what you need, then run
# `a2a serve --config serve.toml` (or set A2A_CONFIG=serve.toml).
#
# Each key is also a flag and an environment variable: `max_connections` here is
# `--max-connections` and `A2A_MAX_CONNECTIONS`. A flag wins over a variable, which wins over
# this file. Keys that name no setting are refused.
#
# Durations are written with a unit: \"250ms\", \"30s\", \"5m\", \"1h\"; a bare number is
# milliseconds. A line with a comment after its value shows an example, not a default (the
# setting is off or computed when left out). Secrets are better given as variables than
# written here, and are never printed.
#
# A relative `card` path is relative to this file; other paths to the working directory.
";

const GATEWAY_HEADER: &str = "\
# Every setting of `a2a gateway`, with its default; written by `a2a gateway --print-config`,
# which writes out the settings its flags, variables and file set. Change what you need, then
# run `a2a gateway --config gateway.toml` (or set A2A_CONFIG=gateway.toml).
#
# Each key is also a flag and an environment variable: `max_connections` here is
# `--max-connections` and `A2A_MAX_CONNECTIONS`. A flag wins over a variable, which wins over
# this file. Keys that name no setting are refused.
#
# Durations are written with a unit: \"250ms\", \"30s\", \"5m\", \"1h\"; a bare number is
# milliseconds. A line with a comment after its value shows an example, not a default (the
# setting is off or computed when left out). Secrets are better given as variables than
# written here, and are never printed.
#
# The older variable names A2A_GATEWAY_<SETTING> and KubeMQ's KUBEMQ_A2A_<SETTING> are read
# too; A2A_<SETTING> wins over both. Relative file paths are relative to this file.
";

/// The file for `command` (the `serve` or `gateway` subcommand), `values` holding each
/// setting's effective value by TOML key (settings left out or empty lists are not set).
pub(crate) fn render(sample: Sample, command: &clap::Command, values: &toml::Table) -> String {
    let mut text = sample.header().to_owned();
    let mut heading: Option<&str> = None;
    for option in command.get_arguments() {
        let Some(key) = key_of_option(option) else {
            continue;
        };
        if option.get_help_heading() != heading {
            heading = option.get_help_heading();
            let _ = write!(text, "\n# ---- {} ----\n", heading.unwrap_or("Other"));
        }
        let hint = sample
            .hints()
            .iter()
            .find(|(name, _)| *name == key)
            .map(|(_, hint)| *hint);
        text.push('\n');
        text.push_str(&setting(option, &key, hint, values.get(&key)));
    }
    text
}

/// The TOML key of a setting, `None` for options that are not settings.
fn key_of_option(option: &clap::Arg) -> Option<String> {
    match option.get_long() {
        Some(long) if NOT_SETTINGS.contains(&long) => None,
        Some(long) => Some(key_of(long)),
        // The exec agent's command, after `--`.
        None if option.is_positional() => Some(option.get_id().as_str().to_owned()),
        None => None,
    }
}

/// One setting's lines: its help, then its value, default or example.
fn setting(
    option: &clap::Arg,
    key: &str,
    hint: Option<Hint>,
    value: Option<&toml::Value>,
) -> String {
    let help = option
        .get_help()
        .map(ToString::to_string)
        .unwrap_or_default();
    let (help, default_text) = split_help(&help);
    let default_text = default_text.or_else(|| {
        let defaults: Vec<String> = option
            .get_default_values()
            .iter()
            .map(|value| value.to_string_lossy().into_owned())
            .collect();
        (!defaults.is_empty()).then(|| defaults.join(","))
    });
    let mut lines = comment(&help);
    let example = match hint {
        Some(Hint::Example(example)) => Some(example),
        _ => None,
    };
    // Without an example, the default is a value; with one, it describes what happens.
    let default = match (example, &default_text) {
        (None, Some(text)) => Some(typed(option, text)),
        (Some(_), Some(text)) => {
            let stop = if text.ends_with('.') { "" } else { "." };
            lines.push_str(&comment(&format!("Default: {text}{stop}")));
            None
        }
        (_, None) => None,
    };
    let given = value.filter(|value| {
        !matches!(value, toml::Value::Array(items) if items.is_empty())
            && Some(*value) != default.as_ref()
    });
    let secret = option.is_hide_env_values_set();
    match (given, default, example) {
        (Some(_), _, _) if secret => {
            let _ = writeln!(
                lines,
                "# {key} = \"********\"  # set; secrets are not printed"
            );
        }
        (Some(value), _, _) => {
            let _ = writeln!(lines, "{key} = {}", toml_text(value));
        }
        (None, Some(default), _) => {
            let condition = match hint {
                Some(Hint::With(other)) => format!("  # with {other}"),
                _ => String::new(),
            };
            let _ = writeln!(lines, "# {key} = {}{condition}", toml_text(&default));
        }
        (None, None, Some(example)) => {
            let _ = writeln!(lines, "# {key} = {example}  # example");
        }
        (None, None, None) => {
            let _ = writeln!(lines, "# {key} =  # not set");
        }
    }
    lines
}

/// The help text without its `[env: …]` and `[default: …]` notes, and the default's text.
fn split_help(help: &str) -> (String, Option<String>) {
    let mut help = help.trim().to_owned();
    if let Some(start) = help.find(" [env: ") {
        help.truncate(start);
    }
    let default = help.find(" [default: ").map(|start| {
        let text = help[start + " [default: ".len()..]
            .trim_end_matches(']')
            .to_owned();
        help.truncate(start);
        text
    });
    (help, default)
}

/// A default's text as the value the setting's file key takes.
fn typed(option: &clap::Arg, text: &str) -> toml::Value {
    let value_name = option
        .get_value_names()
        .and_then(|names| names.first())
        .map(ToString::to_string)
        .unwrap_or_default();
    match value_name.as_str() {
        "BOOL" if text == "true" || text == "false" => toml::Value::Boolean(text == "true"),
        "N" | "BYTES" | "BYTES/S" if text.parse::<i64>().is_ok() => {
            toml::Value::Integer(text.parse().unwrap_or_default())
        }
        "MS" | "DURATION" => match text.parse::<Millis>() {
            Ok(duration) => toml::Value::String(duration.human()),
            Err(_) => toml::Value::String(text.to_owned()),
        },
        _ if option.get_value_delimiter().is_some() => toml::Value::Array(
            text.split(',')
                .map(|item| toml::Value::String(item.to_owned()))
                .collect(),
        ),
        _ => toml::Value::String(text.to_owned()),
    }
}

/// `value` as TOML writes it on the right of `key =`.
fn toml_text(value: &toml::Value) -> String {
    match value {
        // A JSON string is a TOML basic string: the same escapes.
        toml::Value::String(text) => {
            serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
        }
        toml::Value::Integer(number) => number.to_string(),
        toml::Value::Float(number) => number.to_string(),
        toml::Value::Boolean(flag) => flag.to_string(),
        toml::Value::Datetime(datetime) => datetime.to_string(),
        toml::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(toml_text).collect();
            format!("[{}]", items.join(", "))
        }
        toml::Value::Table(table) => {
            let members: Vec<String> = table
                .iter()
                .map(|(key, value)| format!("{key} = {}", toml_text(value)))
                .collect();
            format!("{{ {} }}", members.join(", "))
        }
    }
}

/// `text` as `# ` comment lines of at most [`WIDTH`] characters.
fn comment(text: &str) -> String {
    let mut lines = String::new();
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() > 1 && line.len() + 1 + word.len() > WIDTH {
            lines.push_str(&line);
            lines.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    if line.len() > 1 {
        lines.push_str(&line);
        lines.push('\n');
    }
    lines
}

/// What a secret setting serializes to: never its value.
///
/// # Errors
/// The serializer's.
pub(crate) fn hidden<T, S: serde::Serializer>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(_) => serializer.serialize_str("********"),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_loses_its_notes_and_gives_its_default() {
        let (help, default) = split_help("Log format [default: text] [env: A2A_LOG_FORMAT]");
        assert_eq!(help, "Log format");
        assert_eq!(default.as_deref(), Some("text"));
        let (help, default) = split_help("Address to listen on");
        assert_eq!((help.as_str(), default), ("Address to listen on", None));
    }

    #[test]
    fn long_help_is_wrapped_into_comment_lines() {
        let text = comment(&"word ".repeat(40));
        assert!(
            text.lines()
                .all(|line| line.len() <= WIDTH && line.starts_with("# "))
        );
        assert_eq!(text.lines().count(), 3);
    }

    #[test]
    fn values_are_written_as_toml() {
        let value = toml::Value::Array(vec![toml::Value::String("a \"b\"\n".into())]);
        let text = format!("key = {}", toml_text(&value));
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(parsed["key"], value);
    }
}
