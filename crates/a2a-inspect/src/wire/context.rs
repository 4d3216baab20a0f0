//! What the log knows of the connection a call belongs to: its id, URL and credentials' shape.

use std::sync::{Mutex, PoisonError};

use super::redact::SECRET_HEADERS;

/// How a connection authenticates, for the `curl` and `a2a` renderings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AuthShape {
    /// No credentials.
    #[default]
    None,
    /// An API key in this header.
    ApiKey(String),
    /// A bearer token.
    Bearer,
    /// OAuth 2.0 client credentials with this client id.
    OAuth2(String),
}

/// What a [`RecordingTransport`](super::RecordingTransport) knows about the connection it records for.
#[derive(Debug, Default)]
pub struct RecordContext {
    /// The connection's id.
    pub connection: Option<String>,
    /// The URL the user connected to, for the `a2a` command.
    pub agent_url: String,
    /// How it authenticates.
    pub auth: AuthShape,
    /// Lower-case names of further headers and query parameters that carry secrets (the
    /// API key header, those the card's security schemes name).
    pub secret_names: Mutex<Vec<String>>,
}

impl RecordContext {
    pub(super) fn is_secret(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        SECRET_HEADERS.contains(&name.as_str())
            || self
                .secret_names
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(&name)
    }
}
