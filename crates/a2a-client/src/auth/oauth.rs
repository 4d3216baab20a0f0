//! OAuth 2.0 client credentials (RFC 6749 §4.4): the token is fetched once, shared by every
//! caller, and fetched again shortly before it expires or after the agent refuses it.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use serde::Deserialize;
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::Secret;
use crate::ClientError;
use crate::error::TimeoutKind;
use crate::transport::{Transport, read_body};

/// Longest token endpoint answer read.
const MAX_TOKEN_RESPONSE: usize = 1024 * 1024;

/// The client-credentials grant: who the client is, what it asks for, and where.
#[derive(Debug, Clone)]
pub struct OAuth2ClientCredentials {
    pub(crate) client_id: String,
    pub(crate) client_secret: Secret,
    pub(crate) scopes: Vec<String>,
    pub(crate) token_url: Option<String>,
    pub(crate) refresh_margin: Duration,
    pub(crate) credentials_in_body: bool,
}

impl OAuth2ClientCredentials {
    /// Client `client_id` with `client_secret`; the token endpoint is taken from the card's
    /// `clientCredentials` flow unless [`token_url`](Self::token_url) names one.
    pub fn new(client_id: impl Into<String>, client_secret: impl Into<Secret>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scopes: Vec::new(),
            token_url: None,
            refresh_margin: Duration::from_secs(30),
            credentials_in_body: false,
        }
    }

    /// Asks for one more scope.
    #[must_use]
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes.push(scope.into());
        self
    }

    /// Asks for these scopes (added to any given before).
    #[must_use]
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Uses this token endpoint instead of the card's.
    #[must_use]
    pub fn token_url(mut self, url: impl Into<String>) -> Self {
        self.token_url = Some(url.into());
        self
    }

    /// Fetches a new token this long before the current one expires (default 30 s; never
    /// more than a quarter of the token's lifetime).
    #[must_use]
    pub fn refresh_margin(mut self, margin: Duration) -> Self {
        self.refresh_margin = margin;
        self
    }

    /// Sends the client id and secret in the form body (`client_secret_post`) instead of
    /// HTTP Basic authentication (`client_secret_basic`, the default).
    #[must_use]
    pub fn send_credentials_in_body(mut self, in_body: bool) -> Self {
        self.credentials_in_body = in_body;
        self
    }
}

/// A token and when to stop using it.
#[derive(Debug)]
struct CachedToken {
    token: Secret,
    /// `None`: the endpoint gave no lifetime; used until the agent refuses it.
    refresh_at: Option<Instant>,
}

/// The shared token of one client (and its clones).
#[derive(Debug)]
pub(crate) struct TokenCache {
    grant: OAuth2ClientCredentials,
    token_url: url::Url,
    transport: Arc<dyn Transport>,
    timeout: Duration,
    /// Held while a token is fetched, so concurrent callers wait for that one fetch.
    state: Mutex<Option<CachedToken>>,
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    expires_in: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct TokenError {
    #[serde(default)]
    error: Option<String>,
}

impl TokenCache {
    pub(crate) fn new(
        grant: OAuth2ClientCredentials,
        token_url: url::Url,
        transport: Arc<dyn Transport>,
        timeout: Duration,
    ) -> Self {
        Self {
            grant,
            token_url,
            transport,
            timeout,
            state: Mutex::new(None),
        }
    }

    /// The current token, fetched first when there is none or it is about to expire.
    pub(crate) async fn token(&self) -> Result<Secret, ClientError> {
        let mut state = self.state.lock().await;
        if let Some(cached) = state.as_ref()
            && cached.refresh_at.is_none_or(|at| Instant::now() < at)
        {
            return Ok(cached.token.clone());
        }
        let fresh = match tokio::time::timeout(self.timeout, self.fetch()).await {
            Ok(result) => result?,
            Err(_elapsed) => {
                return Err(credentials_error(
                    "the token endpoint did not answer in time",
                    Some(ClientError::Timeout(TimeoutKind::Request)),
                ));
            }
        };
        let token = fresh.token.clone();
        *state = Some(fresh);
        Ok(token)
    }

    /// Drops the cached token.
    pub(crate) async fn invalidate(&self) {
        *self.state.lock().await = None;
    }

    async fn fetch(&self) -> Result<CachedToken, ClientError> {
        let mut request = http::Request::post(self.token_url.as_str())
            .header(
                CONTENT_TYPE,
                HeaderValue::from_static("application/x-www-form-urlencoded"),
            )
            .header(ACCEPT, HeaderValue::from_static("application/json"));
        let mut form = vec![("grant_type", "client_credentials".to_owned())];
        if !self.grant.scopes.is_empty() {
            form.push(("scope", self.grant.scopes.join(" ")));
        }
        if self.grant.credentials_in_body {
            form.push(("client_id", self.grant.client_id.clone()));
            form.push((
                "client_secret",
                self.grant.client_secret.expose().to_owned(),
            ));
        } else {
            // RFC 6749 §2.3.1: both parts are form-encoded before they are joined.
            let encode = |text: &str| {
                url::form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>()
            };
            let pair = format!(
                "{}:{}",
                encode(&self.grant.client_id),
                encode(self.grant.client_secret.expose())
            );
            let basic = base64::engine::general_purpose::STANDARD.encode(pair);
            let mut value = HeaderValue::from_str(&format!("Basic {basic}"))
                .map_err(|_| credentials_error("the client id cannot be sent in a header", None))?;
            value.set_sensitive(true);
            request = request.header(AUTHORIZATION, value);
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let request = request
            .body(Bytes::from(body))
            .map_err(|_| credentials_error("invalid token request", None))?;
        let response = self.transport.send(request).await.map_err(|error| {
            credentials_error("the token endpoint cannot be reached", Some(error))
        })?;
        let status = response.status();
        let body = read_body(response.into_body(), MAX_TOKEN_RESPONSE)
            .await
            .map_err(|error| {
                credentials_error("the token answer could not be read", Some(error))
            })?;
        if !status.is_success() {
            // Only the OAuth error code is kept: descriptions may echo the request.
            let code = serde_json::from_slice::<TokenError>(&body)
                .ok()
                .and_then(|answer| answer.error)
                .filter(|code| code.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                .map(|code| format!(" ({code})"))
                .unwrap_or_default();
            return Err(credentials_error(
                format!("the token endpoint answered HTTP {}{code}", status.as_u16()),
                None,
            ));
        }
        let answer: TokenResponse = serde_json::from_slice(&body)
            .map_err(|_| credentials_error("the token answer has no access_token", None))?;
        let lifetime = answer.expires_in.as_ref().and_then(seconds);
        let refresh_at = lifetime.map(|lifetime| {
            let margin = self.grant.refresh_margin.min(lifetime / 4);
            Instant::now() + lifetime.saturating_sub(margin)
        });
        tracing::debug!(lifetime = ?lifetime, "fetched an OAuth access token");
        Ok(CachedToken {
            token: Secret::new(answer.access_token),
            refresh_at,
        })
    }
}

/// `expires_in` as a number of seconds, or a numeric string (some servers send one).
fn seconds(value: &serde_json::Value) -> Option<Duration> {
    let seconds = match value {
        serde_json::Value::Number(number) => number.as_f64()?,
        serde_json::Value::String(text) => text.trim().parse().ok()?,
        serde_json::Value::Null
        | serde_json::Value::Bool(_)
        | serde_json::Value::Array(_)
        | serde_json::Value::Object(_) => return None,
    };
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

fn credentials_error(reason: impl Into<String>, source: Option<ClientError>) -> ClientError {
    ClientError::Credentials {
        reason: reason.into(),
        source: source.map(Box::new),
    }
}
