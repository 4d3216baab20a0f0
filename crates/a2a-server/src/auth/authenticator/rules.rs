//! The prepared form of a card's security requirements: its schemes and how each is checked.

use std::sync::Arc;

use http::HeaderName;

use super::super::profile::CallerProfile;
use super::super::secret::Digest;
use super::super::token::TokenVerifier;

/// One scheme of the card and how it is checked.
#[derive(Debug, Clone)]
pub(super) struct Scheme {
    /// Its name in the card.
    pub(super) name: String,
    pub(super) method: Method,
    /// Its type, as the `scheme` label of refused authentications counts it.
    pub(super) kind: &'static str,
}

/// How one scheme of the card is checked.
#[derive(Debug, Clone)]
pub(super) enum Method {
    /// An API key at a location, compared with the configured keys.
    ApiKey {
        location: Location,
        name: String,
        /// `name` as a header name, for [`Location::Header`]; `None` when it is not one,
        /// so no header can carry the key.
        header: Option<HeaderName>,
        keys: Vec<Known>,
    },
    /// `Authorization: Bearer`: static tokens first, then the verifier.
    Bearer {
        tokens: Vec<Known>,
        verifier: Option<Arc<dyn TokenVerifier>>,
    },
    /// A client certificate verified by the TLS layer.
    Certificate,
}

/// A configured API key or static token, as one scheme accepts it.
#[derive(Clone)]
pub(super) struct Known {
    /// The SHA-256 of the secret.
    pub(super) digest: Digest,
    /// The caller every request presenting it is.
    pub(super) profile: Arc<CallerProfile>,
}

impl std::fmt::Debug for Known {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the digest: it would let anyone reading a log test guesses of a weak key.
        f.debug_struct("Known")
            .field("profile", &self.profile)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Location {
    Header,
    Query,
    Cookie,
}

/// One scheme of a requirement, with the scopes that requirement asks of it.
#[derive(Debug, Clone)]
pub(super) struct Check {
    /// The scheme's index in [`Rules::schemes`].
    pub(super) scheme: usize,
    pub(super) scopes: Vec<String>,
}

/// The result of checking one scheme.
#[derive(Debug, Clone)]
pub(super) enum Outcome {
    /// Passed; the caller it names.
    Pass(Arc<CallerProfile>),
    /// No credential for this scheme was presented.
    Missing,
    /// A credential was presented and refused, for this reason.
    Invalid(String),
}

/// Authenticates requests for one card.
#[derive(Debug, Clone)]
pub(crate) struct Authenticator {
    /// `None` when authentication is disabled.
    pub(super) rules: Option<Rules>,
}

#[derive(Debug, Clone)]
pub(super) struct Rules {
    /// The card's schemes, by name.
    pub(super) schemes: Vec<Scheme>,
    /// The alternatives; empty means nothing is accepted (fail closed).
    pub(super) alternatives: Vec<Vec<Check>>,
    pub(super) realm: String,
}
