//! Authentication: who is calling, checked against the card's security schemes and
//! requirements, failing closed: authentication is on by default, and with no scheme on the
//! card every operation is refused.
//!
//! The card says what is accepted ([`AgentCard::security_schemes`] and
//! [`AgentCard::security_requirements`]); [`Authentication`] holds what the server checks
//! credentials against (API keys, static tokens, token verifiers). The server builder pairs
//! them once, refusing a scheme nothing can check, and every request is then authenticated
//! before its body is read. The card itself is always public.
//!
//! ```
//! use a2a_server::auth::Authentication;
//! use a2a_types::card::{ApiKeyLocation, SecurityRequirement, SecurityScheme};
//! use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
//!
//! // The card offers an API key in `X-API-Key`; the server accepts one key.
//! let mut card = AgentCard::new("Echo", "Repeats what it is told.", "1.0.0")
//!     .with_interface(AgentInterface::new("http://localhost:8080/", ProtocolBinding::JsonRpc));
//! card.security_schemes
//!     .insert("apiKey".into(), SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"));
//! card.security_requirements.push(SecurityRequirement::scheme("apiKey", Vec::<String>::new()));
//! let auth = Authentication::required().api_key("a-long-random-key");
//! # let _ = (card, auth);
//! ```
//!
//! [`AgentCard::security_schemes`]: a2a_types::AgentCard::security_schemes
//! [`AgentCard::security_requirements`]: a2a_types::AgentCard::security_requirements

mod authenticator;
pub mod certificate;
mod credentials;
mod profile;
mod secret;
pub mod token;

use std::fmt;
use std::sync::Arc;

pub(crate) use self::authenticator::{AuthFailure, Authenticator};
pub use self::profile::{CallerProfile, CredentialKind};
pub use self::secret::Secret;
use self::token::TokenVerifier;

/// What the server checks presented credentials against. The default is
/// [`Authentication::required`] with nothing configured: every operation is refused with
/// 401 until credentials are added (fail closed).
#[derive(Clone, Default)]
pub struct Authentication {
    disabled: bool,
    api_keys: Vec<StaticCredential>,
    bearer_tokens: Vec<StaticCredential>,
    token_verifier: Option<Arc<dyn TokenVerifier>>,
    scheme_verifiers: Vec<(String, Arc<dyn TokenVerifier>)>,
}

/// An API key or static token, and the caller it names (if any).
#[derive(Debug, Clone)]
pub(crate) struct StaticCredential {
    pub(crate) secret: Secret,
    pub(crate) caller: Option<String>,
}

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
    fn verifier_for(&self, scheme: &str) -> Option<Arc<dyn TokenVerifier>> {
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

/// A card scheme the configured [`Authentication`] cannot check, found at build time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthConfigError {
    /// A requirement names a scheme the card does not declare.
    #[error("securityRequirements name the scheme `{0}`, which securitySchemes does not declare")]
    UnknownScheme(String),
    /// The scheme's kind is not supported (e.g. HTTP Basic).
    #[error("security scheme `{scheme}` cannot be checked: {reason}")]
    Unsupported {
        /// The scheme's name in the card.
        scheme: String,
        /// Why.
        reason: String,
    },
    /// Nothing is configured to check the scheme's credentials.
    #[error("security scheme `{scheme}` is declared but nothing checks it: {hint}")]
    NothingChecks {
        /// The scheme's name in the card.
        scheme: String,
        /// What to configure.
        hint: &'static str,
    },
    /// An empty API key or token was configured.
    #[error("an empty API key or bearer token was configured")]
    EmptySecret,
}

/// A shared verifier is a verifier: one JWKS cache can serve several schemes.
#[async_trait::async_trait]
impl<T: TokenVerifier + ?Sized> TokenVerifier for Arc<T> {
    async fn verify(&self, token: &str) -> Result<token::VerifiedToken, token::TokenError> {
        (**self).verify(token).await
    }
}
