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

mod authentication;
mod authenticator;
pub mod certificate;
mod credentials;
mod profile;
mod secret;
pub mod token;

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
