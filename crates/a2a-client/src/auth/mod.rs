//! Credentials: API keys, static bearer tokens and OAuth 2.0 client credentials,
//! sent only to the agent's own origin. Secrets are held in [`Secret`], whose
//! `Debug` never shows them.

mod oauth;

use std::fmt;
use std::sync::Arc;

use a2a_types::AgentCard;
use a2a_types::card::{ApiKeyLocation, OAuthFlows, SecuritySchemeKind};
use http::HeaderMap;
use http::header::{AUTHORIZATION, COOKIE, HeaderName, HeaderValue};

pub use self::oauth::OAuth2ClientCredentials;
pub(crate) use self::oauth::TokenCache;

use crate::ClientError;
use crate::transport::Transport;

/// A secret string: an API key, token or client secret. `Debug` and `Display` print
/// `<redacted>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Self {
        Self(secret.into())
    }

    /// The secret itself.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl From<String> for Secret {
    fn from(secret: String) -> Self {
        Self(secret)
    }
}

impl From<&str> for Secret {
    fn from(secret: &str) -> Self {
        Self(secret.to_owned())
    }
}

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

impl Credentials {
    /// An API key placed as the card says.
    pub fn api_key(key: impl Into<Secret>) -> Self {
        Self::ApiKey {
            key: key.into(),
            placement: None,
        }
    }

    /// An API key placed explicitly.
    pub fn api_key_in(key: impl Into<Secret>, placement: ApiKeyPlacement) -> Self {
        Self::ApiKey {
            key: key.into(),
            placement: Some(placement),
        }
    }

    /// A static bearer token.
    pub fn bearer(token: impl Into<Secret>) -> Self {
        Self::Bearer(token.into())
    }

    /// OAuth 2.0 client credentials; see [`OAuth2ClientCredentials`] for scopes and the token
    /// endpoint.
    pub fn oauth2(credentials: OAuth2ClientCredentials) -> Self {
        Self::OAuth2ClientCredentials(credentials)
    }
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

impl Authenticator {
    /// Resolves `credentials` against the card (API key placement, token endpoint).
    pub(crate) fn resolve(
        credentials: Credentials,
        card: Option<&AgentCard>,
        card_source: Option<&url::Url>,
        transport: Arc<dyn Transport>,
        request_timeout: std::time::Duration,
    ) -> Result<Self, ClientError> {
        match credentials {
            Credentials::Bearer(token) => Ok(Self::Bearer(token)),
            Credentials::ApiKey { key, placement } => {
                let placement = placement
                    .or_else(|| card.and_then(card_api_key_placement))
                    .unwrap_or_else(|| ApiKeyPlacement::Header(AUTHORIZATION.to_string()));
                Ok(match placement {
                    ApiKeyPlacement::Header(name) => {
                        let name = HeaderName::try_from(name.as_str()).map_err(|_| {
                            ClientError::config(format!("{name:?} is not a header name"))
                        })?;
                        Self::Header(name, key)
                    }
                    ApiKeyPlacement::Query(name) => Self::Query(name, key),
                    ApiKeyPlacement::Cookie(name) => Self::Cookie(name, key),
                })
            }
            Credentials::OAuth2ClientCredentials(oauth) => {
                let token_url = match oauth.token_url.clone() {
                    Some(url) => url::Url::parse(&url).map_err(|error| {
                        ClientError::config(format!("invalid OAuth token url: {error}"))
                    })?,
                    None => card_token_url(card, card_source)?,
                };
                Ok(Self::OAuth2(Arc::new(TokenCache::new(
                    oauth,
                    token_url,
                    transport,
                    request_timeout,
                ))))
            }
        }
    }

    /// Adds the credentials to a request for `url`.
    pub(crate) async fn apply(
        &self,
        url: &mut url::Url,
        headers: &mut HeaderMap,
    ) -> Result<Applied, ClientError> {
        let value = |secret: &str| {
            HeaderValue::from_str(secret)
                .map(|mut value| {
                    value.set_sensitive(true);
                    value
                })
                .map_err(|_| ClientError::config("a credential is not a valid header value"))
        };
        match self {
            Self::Header(name, key) => {
                headers.insert(name.clone(), value(key.expose())?);
            }
            Self::Query(name, key) => {
                url.query_pairs_mut().append_pair(name, key.expose());
            }
            Self::Cookie(name, key) => {
                let pair = format!("{name}={}", key.expose());
                let cookie = match headers.get(COOKIE).and_then(|v| v.to_str().ok()) {
                    Some(existing) if !existing.is_empty() => format!("{existing}; {pair}"),
                    Some(_) | None => pair,
                };
                headers.insert(COOKIE, value(&cookie)?);
            }
            Self::Bearer(token) => {
                headers.insert(AUTHORIZATION, value(&format!("Bearer {}", token.expose()))?);
            }
            Self::OAuth2(cache) => {
                let token = cache.token().await?;
                headers.insert(AUTHORIZATION, value(&format!("Bearer {}", token.expose()))?);
                return Ok(Applied::OAuthToken);
            }
        }
        Ok(Applied::Static)
    }

    /// Forgets a cached token the agent refused, so the next request fetches a new one.
    pub(crate) async fn invalidate(&self) {
        if let Self::OAuth2(cache) = self {
            cache.invalidate().await;
        }
    }
}

/// The card's API key placement: the first API key scheme named by a security requirement,
/// else the first declared.
fn card_api_key_placement(card: &AgentCard) -> Option<ApiKeyPlacement> {
    let placement = |name: &str| {
        let scheme = card.security_schemes.get(name)?;
        match &scheme.scheme {
            SecuritySchemeKind::ApiKey(api_key) => Some(match api_key.location {
                ApiKeyLocation::Header => ApiKeyPlacement::Header(api_key.name.clone()),
                ApiKeyLocation::Query => ApiKeyPlacement::Query(api_key.name.clone()),
                ApiKeyLocation::Cookie => ApiKeyPlacement::Cookie(api_key.name.clone()),
                // A location this version does not know: leave the choice to the default.
                _ => return None,
            }),
            SecuritySchemeKind::HttpAuth(_)
            | SecuritySchemeKind::OAuth2(_)
            | SecuritySchemeKind::OpenIdConnect(_)
            | SecuritySchemeKind::MutualTls(_) => None,
        }
    };
    card.security_requirements
        .iter()
        .flat_map(|requirement| requirement.schemes.keys())
        .chain(card.security_schemes.keys())
        .find_map(|name| placement(name))
}

/// The token URL of the card's OAuth 2.0 client-credentials flow.
///
/// A card could name any token endpoint, and the client secret goes there; so a card's token
/// URL must be https, or on a loopback host (local development), or on the card's own origin.
fn card_token_url(
    card: Option<&AgentCard>,
    card_source: Option<&url::Url>,
) -> Result<url::Url, ClientError> {
    let text = card
        .into_iter()
        .flat_map(|card| card.security_schemes.values())
        .find_map(|scheme| match &scheme.scheme {
            SecuritySchemeKind::OAuth2(oauth) => match &oauth.flows {
                OAuthFlows::ClientCredentials(flow) => Some(flow.token_url.clone()),
                OAuthFlows::AuthorizationCode(_)
                | OAuthFlows::Implicit(_)
                | OAuthFlows::Password(_)
                | OAuthFlows::DeviceCode(_) => None,
            },
            SecuritySchemeKind::ApiKey(_)
            | SecuritySchemeKind::HttpAuth(_)
            | SecuritySchemeKind::OpenIdConnect(_)
            | SecuritySchemeKind::MutualTls(_) => None,
        })
        .ok_or_else(|| {
            ClientError::config(
                "OAuth client credentials need a token url: none given and the card has no \
                 clientCredentials flow",
            )
        })?;
    let url = match card_source {
        Some(source) => source.join(&text),
        None => url::Url::parse(&text),
    }
    .map_err(|error| {
        ClientError::config(format!("invalid OAuth token url in the card: {error}"))
    })?;
    let same_origin = card_source.is_some_and(|source| source.origin() == url.origin());
    let loopback = match url.host() {
        Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if url.scheme() == "https" || same_origin || loopback {
        Ok(url)
    } else {
        Err(ClientError::config(
            "the card's OAuth token url is neither https nor on the card's origin",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_show_in_debug() {
        let credentials =
            Credentials::oauth2(OAuth2ClientCredentials::new("client-1", "hunter2").scope("read"));
        let text = format!("{credentials:?} {:?}", Credentials::bearer("tok-hunter3"));
        assert!(!text.contains("hunter"), "{text}");
        assert!(text.contains("client-1"));
    }

    #[test]
    fn api_key_placement_follows_the_card() {
        let card: AgentCard = serde_json::from_value(serde_json::json!({
            "name": "a", "description": "d", "version": "1",
            "supportedInterfaces": [{"url": "http://x/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {},
            "securitySchemes": {
                "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}},
                "key": {"apiKeySecurityScheme": {"location": "query", "name": "api_key"}}
            },
            "securityRequirements": [{"schemes": {"key": {}}}]
        }))
        .unwrap();
        assert_eq!(
            card_api_key_placement(&card),
            Some(ApiKeyPlacement::Query("api_key".into()))
        );
    }
}
