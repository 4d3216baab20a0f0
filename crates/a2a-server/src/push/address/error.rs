//! What a refusal says: its address category, and the `InvalidParams` error for the client.

use a2a_types::A2aError;

use super::{AddressError, category};

impl AddressError {
    /// The [`category`] of the forbidden address behind this refusal; `localhost` names count
    /// as [`LOOPBACK`](category::LOOPBACK). `None` when the refusal is not about an address.
    pub fn category(&self) -> Option<&'static str> {
        match self {
            Self::ForbiddenAddress { category, .. }
            | Self::ForbiddenResolvedAddress { category, .. } => Some(*category),
            Self::LocalhostName { .. } => Some(category::LOOPBACK),
            Self::InvalidCharacters
            | Self::InvalidUrl { .. }
            | Self::UnsupportedScheme { .. }
            | Self::Credentials
            | Self::MissingHost
            | Self::HttpsRequired
            | Self::HttpOnlyForLoopback
            | Self::Unresolvable { .. } => None,
        }
    }

    /// The `InvalidParams` error to answer the registering client with.
    ///
    /// The message is the [`Display`](std::fmt::Display) text, with two differences: a parse
    /// failure says what the parser objected to, and the address a host *name* resolved to is
    /// left out — the category is enough for the caller, and echoing internal DNS answers
    /// would let anyone who can register a webhook map the server's network.
    pub fn to_a2a_error(&self) -> A2aError {
        let message = match self {
            Self::InvalidUrl { source } => format!("{self}: {source}"),
            Self::ForbiddenResolvedAddress { host, category, .. } => {
                format!(
                    "webhook host {host} resolves to {} {category} address",
                    article(category)
                )
            }
            Self::InvalidCharacters
            | Self::UnsupportedScheme { .. }
            | Self::Credentials
            | Self::MissingHost
            | Self::HttpsRequired
            | Self::HttpOnlyForLoopback
            | Self::LocalhostName { .. }
            | Self::ForbiddenAddress { .. }
            | Self::Unresolvable { .. } => self.to_string(),
        };
        A2aError::invalid_params(message)
    }
}

impl From<AddressError> for A2aError {
    fn from(error: AddressError) -> Self {
        error.to_a2a_error()
    }
}

/// The indefinite article before a [`category`] name.
pub(super) fn article(name: &str) -> &'static str {
    match name {
        category::UNSPECIFIED | category::IETF_PROTOCOL => "an",
        _ => "a",
    }
}
