//! Decoding with errors that name the failing field.
//!
//! `serde_json` alone reports *what* went wrong; these functions also say *where*, as a
//! path such as `message.parts[0]` or `status.state`, so a server can answer invalid params
//! with the field at fault.

use serde::de::DeserializeOwned;

/// A document that is not valid JSON, or not the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct DecodeError {
    path: String,
    message: String,
    syntax: bool,
}

impl DecodeError {
    /// The path of the failing member (`message.parts[0]`), or `""` for the document itself.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was wrong, without the path.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// True when the text is not JSON at all (a parse error rather than invalid params).
    #[must_use]
    pub fn is_syntax(&self) -> bool {
        self.syntax
    }

    fn describe(&self) -> String {
        if self.path.is_empty() {
            self.message.clone()
        } else {
            format!("{}: {}", self.path, self.message)
        }
    }

    fn from_path_error(error: serde_path_to_error::Error<serde_json::Error>) -> Self {
        let path = error.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let inner = error.into_inner();
        Self {
            syntax: inner.is_syntax() || inner.is_eof(),
            message: inner.to_string(),
            path,
        }
    }
}

/// Decodes `text` as `T`.
///
/// # Errors
/// When `text` is not JSON or not a valid `T`; the error names the failing member.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, DecodeError> {
    from_reader_of(serde_json::Deserializer::from_str(text))
}

/// Decodes `bytes` (UTF-8 JSON) as `T`.
///
/// # Errors
/// As [`from_str`].
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    from_reader_of(serde_json::Deserializer::from_slice(bytes))
}

/// Decodes one document and refuses anything after it.
fn from_reader_of<'de, R, T>(
    mut deserializer: serde_json::Deserializer<R>,
) -> Result<T, DecodeError>
where
    R: serde_json::de::Read<'de>,
    T: DeserializeOwned,
{
    let value = serde_path_to_error::deserialize(&mut deserializer)
        .map_err(DecodeError::from_path_error)?;
    deserializer.end().map_err(|error| DecodeError {
        path: String::new(),
        message: error.to_string(),
        syntax: true,
    })?;
    Ok(value)
}

/// Decodes an already-parsed JSON value as `T`.
///
/// # Errors
/// When `value` is not a valid `T`; the error names the failing member.
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, DecodeError> {
    serde_path_to_error::deserialize(value).map_err(DecodeError::from_path_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Message, Task};

    #[test]
    fn errors_name_the_nested_field() {
        let text = r#"{"id":"t","status":{"state":"TASK_STATE_NAPPING"}}"#;
        let err = from_str::<Task>(text).unwrap_err();
        assert_eq!(err.path(), "status.state");
        assert!(err.to_string().starts_with("status.state: "), "{err}");
        assert!(!err.is_syntax());
    }

    #[test]
    fn errors_name_the_part_index() {
        let value = serde_json::json!({
            "messageId": "m", "role": "ROLE_USER",
            "parts": [{"text": "ok"}, {"text": "a", "data": 1}]
        });
        let err = from_value::<Message>(value).unwrap_err();
        assert_eq!(err.path(), "parts[1]");
    }

    #[test]
    fn bad_json_is_a_syntax_error() {
        let err = from_str::<Task>("{\"id\":").unwrap_err();
        assert!(err.is_syntax());
        let trailing = from_str::<Task>(r#"{"id":"t","status":{"state":1}} x"#).unwrap_err();
        assert!(trailing.is_syntax());
    }
}
