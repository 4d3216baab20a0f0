//! Resolving credentials against the card, and adding them to each request.

use std::sync::Arc;

use a2a_types::AgentCard;
use http::HeaderMap;
use http::header::{AUTHORIZATION, COOKIE, HeaderName, HeaderValue};

use super::card::{card_api_key_placement, card_token_url};
use super::{ApiKeyPlacement, Applied, Authenticator, Credentials, TokenCache};
use crate::ClientError;
use crate::transport::Transport;

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
