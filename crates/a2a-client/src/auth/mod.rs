//! Credentials: API keys, static bearer tokens and OAuth 2.0 client credentials,
//! sent only to the agent's own origin. Secrets are held in [`Secret`], whose
//! `Debug` never shows them.

mod authenticator;
mod card;
mod credentials;
mod oauth;
mod request;
mod secret;

use std::sync::Arc;

use http::header::HeaderName;

pub use self::oauth::OAuth2ClientCredentials;
pub(crate) use self::oauth::TokenCache;
pub use self::request::RequestAuth;

/// A secret string: an API key, token or client secret. `Debug` and `Display` print
/// `<redacted>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

/// Where an API key travels (the card's `apiKeySecurityScheme`: `location` and `name`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApiKeyPlacement {
    /// In this request header, e.g. `X-API-Key`.
    Header(String),
    /// In this query parameter.
    Query(String),
    /// In this cookie.
    Cookie(String),
}

/// How the client authenticates to the agent.
///
/// Whatever the kind, credentials are only ever sent to the agent's origin: the card-source
/// origin, the URL the client was built from, or the host override.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Credentials {
    /// An API key. With no placement, the card's API key scheme decides; without one, the
    /// key goes in the `Authorization` header (Apache Camel's default header).
    ApiKey {
        /// The key.
        key: Secret,
        /// Where it goes; `None` to follow the card.
        placement: Option<ApiKeyPlacement>,
    },
    /// A static bearer token: `Authorization: Bearer <token>`.
    Bearer(Secret),
    /// OAuth 2.0 client credentials: a token fetched from the token endpoint, cached, and
    /// refreshed shortly before it expires.
    OAuth2ClientCredentials(OAuth2ClientCredentials),
}

/// Credentials resolved against the card, ready to apply.
#[derive(Debug, Clone)]
pub(crate) enum Authenticator {
    Header(HeaderName, Secret),
    Query(String, Secret),
    Cookie(String, Secret),
    Bearer(Secret),
    OAuth2(Arc<TokenCache>),
}

/// Where the credentials of one request went, so a 401 can invalidate a cached token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Applied {
    Nothing,
    Static,
    OAuthToken,
}
