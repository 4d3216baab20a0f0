//! The options of a TOML configuration file.

use std::path::Path;

use super::{ConfigError, ServeOptions};

/// The options of a TOML file. A relative card path is relative to the file, as a reader of
/// the file would expect.
pub(super) fn from_file(path: &Path) -> Result<ServeOptions, ConfigError> {
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
    toml::from_str(text).map_err(|error| ConfigError::ParseFile {
        path: path.to_owned(),
        message: message(text, &error),
    })
}

/// What is wrong with a TOML `text`, on one line with the line number: toml's own rendering
/// spans several lines with a source excerpt, which does not fit the command's one-line
/// errors.
pub(super) fn message(text: &str, error: &toml::de::Error) -> String {
    let line = error
        .span()
        .and_then(|span| text.get(..span.start))
        .map(|before| before.matches('\n').count() + 1);
    let mut message = error.message().trim().to_owned();
    // serde lists every known field after an unknown one: eighty names that bury the one
    // that matters.
    if let Some(rest) = message.strip_prefix("unknown field ")
        && let Some((key, _expected)) = rest.split_once(", expected")
    {
        message = format!("unknown key {key}; the keys are the options of --help in snake_case");
    }
    match line {
        Some(line) => format!("line {line}: {message}"),
        None => message,
    }
}
