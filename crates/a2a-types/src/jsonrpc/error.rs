//! Why a JSON value is not an acceptable JSON-RPC request or response.

pub(super) const ID_EXPECTED: &str = "a string, a number or null";

/// Why a JSON value is not an acceptable JSON-RPC request or response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// A JSON array: batches are not used by A2A.
    #[error("batch requests are not supported")]
    Batch,
    /// Neither an object nor an array.
    #[error("a JSON-RPC message must be a JSON object")]
    NotAnObject,
    /// `jsonrpc` is not `"2.0"`.
    #[error("member `jsonrpc` must be \"2.0\"")]
    UnsupportedVersion,
    /// A required member is absent.
    #[error("member `{member}` is missing")]
    MissingMember {
        /// The member's name.
        member: &'static str,
    },
    /// A member has the wrong JSON type.
    #[error("member `{member}` must be {expected}")]
    InvalidMember {
        /// The member's name.
        member: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// A response carries both `result` and `error`.
    #[error("members `result` and `error` must not both be present")]
    ResultAndError,
    /// A response carries neither `result` nor `error`.
    #[error("one of the members `result` and `error` is required")]
    NeitherResultNorError,
}

impl EnvelopeError {
    pub(super) const fn invalid(member: &'static str, expected: &'static str) -> Self {
        Self::InvalidMember { member, expected }
    }
}
