//! [`ConversionError`], and small helpers shared by the conversions between the v0.3 and
//! v1.0 models.

use std::fmt;

use crate::A2aError;

/// A v0.3 value that has no valid v1.0 form: the member at fault, as a JSON path from the
/// converted value (`message.parts[1].file.bytes`), and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct ConversionError {
    field: String,
    problem: String,
}

impl ConversionError {
    /// An error about `field` (a member name, or a path of them).
    pub fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            problem: problem.into(),
        }
    }

    /// The path of the member at fault.
    #[must_use]
    pub fn field(&self) -> &str {
        &self.field
    }

    /// What is wrong with it.
    #[must_use]
    pub fn problem(&self) -> &str {
        &self.problem
    }

    /// The same error, seen from the value that holds the member: `prefix` goes in front
    /// of the path (`parts[0]` + `file.bytes` → `parts[0].file.bytes`).
    #[must_use]
    pub fn within(mut self, prefix: impl fmt::Display) -> Self {
        self.field = if self.field.is_empty() {
            prefix.to_string()
        } else if self.field.starts_with('[') {
            format!("{prefix}{}", self.field)
        } else {
            format!("{prefix}.{}", self.field)
        };
        self
    }
}

/// A request whose v0.3 params cannot be converted is the caller's mistake: invalid
/// params, with the member at fault as the field violation. (A server whose own answer fails
/// to convert should report an internal error instead.)
impl From<ConversionError> for A2aError {
    fn from(error: ConversionError) -> Self {
        A2aError::invalid_field(error.field, error.problem)
    }
}

/// For the conversions that cannot fail, so they can be used where a fallible one is expected.
impl From<std::convert::Infallible> for ConversionError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

/// Converts every element, naming the index of the first that fails (`[2]`).
pub(super) fn try_each<T, U>(items: Vec<T>) -> Result<Vec<U>, ConversionError>
where
    U: TryFrom<T, Error = ConversionError>,
{
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| U::try_from(item).map_err(|err| err.within(format!("[{index}]"))))
        .collect()
}

/// Converts every element of an optional v0.3 list (absent reads as empty).
pub(super) fn try_each_opt<T, U>(items: Option<Vec<T>>) -> Result<Vec<U>, ConversionError>
where
    U: TryFrom<T, Error = ConversionError>,
{
    try_each(items.unwrap_or_default())
}

/// An optional v0.3 list from a v1.0 list: empty becomes absent.
pub(super) fn non_empty<T, U: From<T>>(items: Vec<T>) -> Option<Vec<U>> {
    (!items.is_empty()).then(|| items.into_iter().map(U::from).collect())
}

/// An optional v0.3 string from a v1.0 implicit-presence string: empty becomes absent.
pub(super) fn non_empty_str(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}
