//! [`ConvertError`]: a protobuf message that has no `a2a-types` form, with the field at fault.

use std::fmt;

use a2a_types::A2aError;

/// A protobuf message that is not a valid `a2a-types` value: a required field left empty, a
/// oneof with no member, an unknown enum number, a timestamp out of range.
///
/// The [`path`](Self::path) names the field with proto field names, as
/// `google.rpc.BadRequest` wants for gRPC (`message.parts[0].content`); it is `""` when the
/// message itself is at fault. Boxed so a `Result` carrying it stays small.
#[derive(Clone, PartialEq, Eq)]
pub struct ConvertError {
    inner: Box<Inner>,
}

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    path: String,
    reason: String,
}

impl ConvertError {
    /// An error at `field` (a proto field name, or a path of them) for `reason`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            inner: Box::new(Inner {
                path: field.into(),
                reason: reason.into(),
            }),
        }
    }

    /// A required field left at its default, which proto3 cannot tell from absent.
    pub(crate) fn missing(field: &str) -> Self {
        Self::new(field, "is required")
    }

    /// The path of the failing field, e.g. `message.parts[0].content`; `""` for the message
    /// itself.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.inner.path
    }

    /// What was wrong, without the path.
    #[must_use]
    pub fn reason(&self) -> &str {
        &self.inner.reason
    }

    /// The same error seen from the message holding `segment` (`status`, `parts[2]`).
    #[must_use]
    pub(crate) fn within(mut self, segment: &str) -> Self {
        let path = &mut self.inner.path;
        if path.is_empty() {
            segment.clone_into(path);
        } else if path.starts_with('[') {
            path.insert_str(0, segment);
        } else {
            path.insert(0, '.');
            path.insert_str(0, segment);
        }
        self
    }
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.inner.path.is_empty() {
            f.write_str(&self.inner.reason)
        } else {
            write!(f, "{}: {}", self.inner.path, self.inner.reason)
        }
    }
}

impl fmt::Debug for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConvertError")
            .field("path", &self.inner.path)
            .field("reason", &self.inner.reason)
            .finish()
    }
}

impl std::error::Error for ConvertError {}

impl From<ConvertError> for A2aError {
    /// Invalid params, with the field as a `google.rpc.BadRequest` field violation.
    fn from(error: ConvertError) -> Self {
        let Inner { path, reason } = *error.inner;
        A2aError::invalid_field(path, reason)
    }
}
