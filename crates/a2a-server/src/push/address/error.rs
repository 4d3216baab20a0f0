//! Why a webhook URL was refused: the refusal, its address category, and the `InvalidParams`
//! error for the client.

use std::io;
use std::net::IpAddr;

use a2a_types::A2aError;

use super::category;

/// Why a webhook URL was refused. The messages name the problem in the caller's terms and
/// suit an `InvalidParams` error; [`to_a2a_error`](Self::to_a2a_error) makes that error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AddressError {
    /// The URL contains whitespace or control characters, which URL parsing would silently
    /// drop or which could inject header lines.
    #[error("webhook URL contains whitespace or control characters")]
    InvalidCharacters,
    /// The URL does not parse.
    #[error("webhook URL is not a valid URL")]
    InvalidUrl {
        /// What the parser objected to.
        #[source]
        source: url::ParseError,
    },
    /// The scheme is neither https nor http.
    #[error("webhook URL scheme {scheme} is not supported; use https")]
    UnsupportedScheme {
        /// The scheme, lower-case.
        scheme: String,
    },
    /// The URL carries a user name or password.
    #[error("webhook URL must not contain credentials (user:password@)")]
    Credentials,
    /// The URL has an empty host.
    #[error("webhook URL has no host")]
    MissingHost,
    /// Plain http under the production policy.
    #[error("webhook URL must use https")]
    HttpsRequired,
    /// Plain http to a host that is not loopback, under
    /// [`allow_local`](super::WebhookPolicy::allow_local).
    #[error("webhook URL must use https unless it points to a loopback address")]
    HttpOnlyForLoopback,
    /// The host is `localhost` or a name under `.localhost`.
    #[error("webhook host {host} is a localhost name")]
    LocalhostName {
        /// The host as written in the normalised URL.
        host: String,
    },
    /// The host is an IP literal (in any spelling) in a forbidden range.
    #[error("webhook URL points to {} {category} address ({ip})", article(.category))]
    ForbiddenAddress {
        /// The address, after normalisation.
        ip: IpAddr,
        /// One of the [`category`] names.
        category: &'static str,
    },
    /// The host name resolves to at least one address in a forbidden range.
    #[error("webhook host {host} resolves to {} {category} address ({ip})", article(.category))]
    ForbiddenResolvedAddress {
        /// The host name.
        host: String,
        /// The first forbidden address among those it resolved to.
        ip: IpAddr,
        /// One of the [`category`] names.
        category: &'static str,
    },
    /// The host name does not resolve (unknown, no addresses, or the lookup failed or timed
    /// out).
    #[error("webhook host {host} does not resolve")]
    Unresolvable {
        /// The host name.
        host: String,
        /// What the resolver reported.
        #[source]
        source: io::Error,
    },
}

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
fn article(name: &str) -> &'static str {
    match name {
        category::UNSPECIFIED | category::IETF_PROTOCOL => "an",
        _ => "a",
    }
}
