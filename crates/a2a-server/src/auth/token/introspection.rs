//! [`Introspector`]: opaque tokens checked by asking the authorization server (RFC 7662
//! token introspection), with the server's answer as the caller's profile.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};
use url::Url;

use super::http::Redirects;
use super::jwt::{check_audience, check_issuer, check_times};
use super::{TokenConfigError, TokenError, TokenVerifier, VerifiedToken};

/// How the introspection request proves which client sends it (RFC 6749 §2.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ClientAuthentication {
    /// HTTP Basic with the form-encoded client id and secret (`client_secret_basic`).
    #[default]
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form body (`client_secret_post`).
    ClientSecretPost,
}

/// Where and how to introspect tokens. The client secret is never shown by `Debug`.
#[derive(Clone)]
#[non_exhaustive]
pub struct IntrospectionConfig {
    /// The introspection endpoint.
    pub endpoint: Url,
    /// This resource server's client id at the authorization server.
    pub client_id: String,
    /// Its client secret.
    pub client_secret: String,
    /// How the credentials are sent. Default HTTP Basic.
    pub client_authentication: ClientAuthentication,
    /// When set, the response's `iss` must be this.
    pub issuer: Option<String>,
    /// When not empty, the response's `aud` must name one of these.
    pub audiences: Vec<String>,
    /// Clock skew allowed when checking the response's `exp`, `nbf` and `iat`. Default 60
    /// seconds.
    pub leeway: Duration,
    /// Time allowed for each request. Default 5 seconds.
    pub timeout: Duration,
    /// The largest response read. Default 64 KiB.
    pub max_response_bytes: usize,
    /// Longer tokens are refused as malformed without asking. Default 16 KiB.
    pub max_token_bytes: usize,
    /// How long an active answer is reused (never past the token's `exp`), keyed by the
    /// token's SHA-256. Default zero: every token is introspected every time.
    pub cache_ttl: Duration,
    /// At most this many answers are cached. Default 10 000.
    pub cache_capacity: usize,
}

impl fmt::Debug for IntrospectionConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntrospectionConfig")
            .field("endpoint", &self.endpoint.as_str())
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("client_authentication", &self.client_authentication)
            .field("issuer", &self.issuer)
            .field("audiences", &self.audiences)
            .field("leeway", &self.leeway)
            .field("timeout", &self.timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("max_token_bytes", &self.max_token_bytes)
            .field("cache_ttl", &self.cache_ttl)
            .field("cache_capacity", &self.cache_capacity)
            .finish()
    }
}

impl IntrospectionConfig {
    /// Defaults, introspecting at `endpoint` as `client_id` with `client_secret`.
    #[must_use]
    pub fn new(
        endpoint: Url,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Self {
            endpoint,
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            client_authentication: ClientAuthentication::default(),
            issuer: None,
            audiences: Vec::new(),
            leeway: Duration::from_secs(60),
            timeout: Duration::from_secs(5),
            max_response_bytes: 64 * 1024,
            max_token_bytes: 16 * 1024,
            cache_ttl: Duration::ZERO,
            cache_capacity: 10_000,
        }
    }

    /// Sets [`client_authentication`](Self::client_authentication).
    #[must_use]
    pub fn with_client_authentication(mut self, method: ClientAuthentication) -> Self {
        self.client_authentication = method;
        self
    }

    /// Sets [`issuer`](Self::issuer).
    #[must_use]
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Adds one of [`audiences`](Self::audiences).
    #[must_use]
    pub fn with_audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// Sets [`leeway`](Self::leeway).
    #[must_use]
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Sets [`timeout`](Self::timeout).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets [`max_response_bytes`](Self::max_response_bytes).
    #[must_use]
    pub fn with_max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// Sets [`max_token_bytes`](Self::max_token_bytes).
    #[must_use]
    pub fn with_max_token_bytes(mut self, limit: usize) -> Self {
        self.max_token_bytes = limit;
        self
    }

    /// Sets [`cache_ttl`](Self::cache_ttl).
    #[must_use]
    pub fn with_cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Sets [`cache_capacity`](Self::cache_capacity).
    #[must_use]
    pub fn with_cache_capacity(mut self, capacity: usize) -> Self {
        self.cache_capacity = capacity;
        self
    }
}

/// Verifies tokens by RFC 7662 introspection. Cloning shares the client and the cache.
///
/// ```no_run
/// use a2a_server::auth::token::{IntrospectionConfig, Introspector, TokenVerifier};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let endpoint = url::Url::parse("https://idp.example.com/oauth2/introspect")?;
/// let introspector = Introspector::new(IntrospectionConfig::new(endpoint, "agent", "s3cret"))?;
/// let token = introspector.verify("opaque-token").await?;
/// println!("{:?}", token.username);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Introspector {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: IntrospectionConfig,
    http: reqwest::Client,
    cache: Mutex<HashMap<[u8; 32], Cached>>,
}

#[derive(Debug)]
struct Cached {
    token: VerifiedToken,
    until: Instant,
}

impl Introspector {
    /// An introspector for `config`.
    ///
    /// # Errors
    /// [`TokenConfigError`] when the endpoint is not http(s) or a timeout or limit is zero.
    pub fn new(config: IntrospectionConfig) -> Result<Self, TokenConfigError> {
        if !matches!(config.endpoint.scheme(), "http" | "https") {
            return Err(TokenConfigError::InvalidUrl {
                what: "the introspection endpoint",
            });
        }
        if config.max_response_bytes == 0 {
            return Err(TokenConfigError::Zero(
                "the maximum introspection response size",
            ));
        }
        if config.max_token_bytes == 0 {
            return Err(TokenConfigError::Zero("the maximum token size"));
        }
        // A redirect would carry the token and credentials somewhere not configured.
        let http = super::http::http_client(config.timeout, Redirects::Never)?;
        Ok(Self {
            inner: Arc::new(Inner {
                config,
                http,
                cache: Mutex::new(HashMap::new()),
            }),
        })
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Cached>> {
        self.inner
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn cached(&self, key: &[u8; 32]) -> Option<VerifiedToken> {
        let cache = self.cache();
        cache
            .get(key)
            .filter(|entry| Instant::now() < entry.until)
            .map(|entry| entry.token.clone())
    }

    fn remember(&self, key: [u8; 32], token: &VerifiedToken) {
        let config = &self.inner.config;
        let mut ttl = config.cache_ttl;
        if let Some(exp) = token.claims.get("exp").and_then(Value::as_f64) {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|since| since.as_secs_f64())
                .unwrap_or_default();
            let left = Duration::try_from_secs_f64(exp - now).unwrap_or_default();
            ttl = ttl.min(left);
        }
        let now = Instant::now();
        let Some(until) = now.checked_add(ttl) else {
            return;
        };
        if ttl.is_zero() || config.cache_capacity == 0 {
            return;
        }
        let mut cache = self.cache();
        if cache.len() >= config.cache_capacity {
            cache.retain(|_, entry| now < entry.until);
            if cache.len() >= config.cache_capacity {
                cache.clear();
            }
        }
        cache.insert(
            key,
            Cached {
                token: token.clone(),
                until,
            },
        );
    }

    /// POSTs the token and reads the answer.
    async fn introspect(&self, token: &str) -> Result<Map<String, Value>, TokenError> {
        let config = &self.inner.config;
        let unavailable =
            |why: &str| TokenError::Unavailable(format!("token introspection failed: {why}"));
        let mut form = vec![("token", token), ("token_type_hint", "access_token")];
        let mut request = self
            .inner
            .http
            .post(config.endpoint.clone())
            .header(http::header::ACCEPT, "application/json");
        match config.client_authentication {
            ClientAuthentication::ClientSecretBasic => {
                request = request.basic_auth(
                    form_encode(&config.client_id),
                    Some(form_encode(&config.client_secret)),
                );
            }
            ClientAuthentication::ClientSecretPost => {
                form.push(("client_id", &config.client_id));
                form.push(("client_secret", &config.client_secret));
            }
        }
        let response = super::http::send_checked(request.form(&form))
            .await
            .map_err(|why| unavailable(&why))?;
        let body = super::http::read_limited(response, config.max_response_bytes)
            .await
            .map_err(unavailable)?;
        match serde_json::from_slice(&body) {
            Ok(Value::Object(answer)) => Ok(answer),
            _ => Err(unavailable("the response is not a JSON object")),
        }
    }
}

/// RFC 6749 §2.3.1: the client id and secret are form-encoded before Basic encoding.
fn form_encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

#[async_trait::async_trait]
impl TokenVerifier for Introspector {
    async fn verify(&self, token: &str) -> Result<VerifiedToken, TokenError> {
        let config = &self.inner.config;
        if token.is_empty() {
            return Err(TokenError::Malformed("the token is empty".into()));
        }
        if token.len() > config.max_token_bytes {
            return Err(TokenError::Malformed(format!(
                "the token is longer than {} bytes",
                config.max_token_bytes
            )));
        }
        // A bearer token is visible ASCII (RFC 6750 §2.1); anything else is not worth a
        // round trip to the authorization server.
        if !token.bytes().all(|byte| byte.is_ascii_graphic()) {
            return Err(TokenError::Malformed(
                "the token has characters a bearer token cannot have".into(),
            ));
        }
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(hit) = self.cached(&key) {
            return Ok(hit);
        }
        let answer = self.introspect(token).await?;
        match answer.get("active") {
            Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => return Err(TokenError::Inactive),
            _ => {
                return Err(TokenError::Unavailable(
                    "token introspection failed: the response has no active flag".into(),
                ));
            }
        }
        check_times(&answer, config.leeway, false)?;
        if let Some(issuer) = &config.issuer {
            check_issuer(&answer, issuer)?;
        }
        check_audience(&answer, &config.audiences)?;
        let verified = VerifiedToken::from_claims(answer, true);
        self.remember(key, &verified);
        Ok(verified)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_secret() {
        let config = IntrospectionConfig::new(
            Url::parse("https://idp.example/introspect").unwrap(),
            "agent",
            "very-secret-value",
        );
        let shown = format!("{config:?}");
        assert!(!shown.contains("very-secret-value"), "{shown}");
        assert!(shown.contains("agent"));
        let introspector = Introspector::new(config).unwrap();
        assert!(!format!("{introspector:?}").contains("very-secret-value"));
    }

    #[test]
    fn credentials_are_form_encoded_for_basic() {
        assert_eq!(form_encode("a b:c/d"), "a+b%3Ac%2Fd");
        assert_eq!(form_encode("plain-id_1.x~"), "plain-id_1.x%7E");
    }

    #[tokio::test]
    async fn tokens_that_cannot_be_bearer_tokens_are_refused_without_asking() {
        let introspector = Introspector::new(IntrospectionConfig::new(
            // Nothing listens here; a request would fail as unavailable, not malformed.
            Url::parse("http://127.0.0.1:9/introspect").unwrap(),
            "agent",
            "secret",
        ))
        .unwrap();
        for token in [
            "",
            "has space",
            "tab\there",
            "naïve",
            &"a".repeat(16 * 1024 + 1),
        ] {
            assert!(
                matches!(
                    introspector.verify(token).await,
                    Err(TokenError::Malformed(_))
                ),
                "{token:.20}"
            );
        }
    }

    #[test]
    fn answers_are_cached_no_longer_than_the_token_lives() {
        let introspector = Introspector::new(
            IntrospectionConfig::new(Url::parse("https://idp.example/i").unwrap(), "a", "s")
                .with_cache_ttl(Duration::from_secs(300))
                .with_cache_capacity(2),
        )
        .unwrap();
        let now = i64::try_from(jsonwebtoken::get_current_timestamp()).unwrap();
        let token = |exp: i64| {
            let mut claims = Map::new();
            claims.insert("exp".into(), exp.into());
            VerifiedToken::from_claims(claims, true)
        };
        introspector.remember([1; 32], &token(now + 600));
        introspector.remember([2; 32], &token(now - 10));
        assert!(introspector.cached(&[1; 32]).is_some());
        assert!(introspector.cached(&[2; 32]).is_none());
        introspector.remember([3; 32], &token(now + 600));
        introspector.remember([4; 32], &token(now + 600));
        assert!(introspector.cache().len() <= 2);
        assert!(introspector.cached(&[4; 32]).is_some());
    }
}
