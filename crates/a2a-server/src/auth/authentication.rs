//! Building what the server checks credentials against, and showing it without its secrets.

use std::fmt;
use std::sync::Arc;

use super::token::TokenVerifier;
use super::{Authentication, Secret, StaticCredential};

impl Authentication {
    /// Authentication on, nothing accepted yet (fail closed).
    #[must_use]
    pub fn required() -> Self {
        Self::default()
    }

    /// No authentication: every caller is served, and all of them share the tasks of a
    /// tenant. For development and trusted networks only; the server logs a warning.
    #[must_use]
    pub fn disabled() -> Self {
        Self {
            disabled: true,
            ..Self::default()
        }
    }

    /// Accepts `key` for the card's API-key schemes. Holders of unnamed keys and tokens are
    /// one caller.
    #[must_use]
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        self.api_keys.push(StaticCredential {
            secret: key.into(),
            caller: None,
        });
        self
    }

    /// Accepts `key` for the card's API-key schemes, as the caller `caller`: each named key
    /// is a caller of its own, with its own tasks.
    #[must_use]
    pub fn named_api_key(mut self, caller: impl Into<String>, key: impl Into<Secret>) -> Self {
        self.api_keys.push(StaticCredential {
            secret: key.into(),
            caller: Some(caller.into()),
        });
        self
    }

    /// Accepts the static bearer token `token` for the card's HTTP bearer schemes.
    #[must_use]
    pub fn bearer_token(mut self, token: impl Into<Secret>) -> Self {
        self.bearer_tokens.push(StaticCredential {
            secret: token.into(),
            caller: None,
        });
        self
    }

    /// Accepts the static bearer token `token` as the caller `caller`.
    #[must_use]
    pub fn named_bearer_token(
        mut self,
        caller: impl Into<String>,
        token: impl Into<Secret>,
    ) -> Self {
        self.bearer_tokens.push(StaticCredential {
            secret: token.into(),
            caller: Some(caller.into()),
        });
        self
    }

    /// Checks issued tokens (JWTs, introspected tokens) of every OAuth2, OpenID Connect and
    /// HTTP bearer scheme that has no verifier of its own.
    #[must_use]
    pub fn token_verifier(mut self, verifier: impl TokenVerifier) -> Self {
        self.token_verifier = Some(Arc::new(verifier));
        self
    }

    /// Checks the tokens of the card's scheme named `scheme` with `verifier`.
    #[must_use]
    pub fn scheme_verifier(
        mut self,
        scheme: impl Into<String>,
        verifier: impl TokenVerifier,
    ) -> Self {
        self.scheme_verifiers
            .push((scheme.into(), Arc::new(verifier)));
        self
    }

    /// True for [`Authentication::disabled`].
    #[must_use]
    pub fn is_disabled(&self) -> bool {
        self.disabled
    }

    /// The verifier for the scheme named `scheme`: its own, else the shared one.
    pub(super) fn verifier_for(&self, scheme: &str) -> Option<Arc<dyn TokenVerifier>> {
        self.scheme_verifiers
            .iter()
            .find(|(name, _)| name == scheme)
            .map(|(_, verifier)| Arc::clone(verifier))
            .or_else(|| self.token_verifier.clone())
    }
}

impl fmt::Debug for Authentication {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Counts only: the keys are secrets, and their names are nobody's business in a log.
        f.debug_struct("Authentication")
            .field("disabled", &self.disabled)
            .field("api_keys", &self.api_keys.len())
            .field("bearer_tokens", &self.bearer_tokens.len())
            .field("token_verifier", &self.token_verifier.is_some())
            .field(
                "scheme_verifiers",
                &self
                    .scheme_verifiers
                    .iter()
                    .map(|(name, _)| name.as_str())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}
