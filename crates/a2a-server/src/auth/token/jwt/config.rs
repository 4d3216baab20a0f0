//! Describing a verifier: its key source, shown without the keys, and the [`JwtConfig`]
//! builder.

use std::fmt;
use std::time::Duration;

use jsonwebtoken::Algorithm;

use super::super::jwks::JwksOptions;
use super::{ASYMMETRIC, JwksSource, JwtConfig};

impl fmt::Debug for JwksSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Url(url) => f.debug_tuple("Url").field(&url.as_str()).finish(),
            Self::OidcIssuer(url) => f.debug_tuple("OidcIssuer").field(&url.as_str()).finish(),
            Self::OidcDiscovery(url) => {
                f.debug_tuple("OidcDiscovery").field(&url.as_str()).finish()
            }
            Self::Keys(set) => write!(f, "Keys({} keys)", set.keys.len()),
        }
    }
}

impl JwtConfig {
    /// Defaults, with keys from `source` and no issuer or audience yet.
    #[must_use]
    pub fn new(source: JwksSource) -> Self {
        Self {
            source,
            issuer: None,
            accept_any_issuer: false,
            audiences: Vec::new(),
            accept_any_audience: false,
            leeway: Duration::from_secs(60),
            algorithms: ASYMMETRIC.to_vec(),
            max_token_bytes: 16 * 1024,
            jwks: JwksOptions::default(),
            verified_tokens: 4096,
        }
    }

    /// Sets [`issuer`](Self::issuer).
    #[must_use]
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Sets [`accept_any_issuer`](Self::accept_any_issuer).
    #[must_use]
    pub fn with_any_issuer(mut self) -> Self {
        self.accept_any_issuer = true;
        self
    }

    /// Adds one of [`audiences`](Self::audiences).
    #[must_use]
    pub fn with_audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// Sets [`accept_any_audience`](Self::accept_any_audience).
    #[must_use]
    pub fn with_any_audience(mut self) -> Self {
        self.accept_any_audience = true;
        self
    }

    /// Sets [`leeway`](Self::leeway).
    #[must_use]
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Sets [`algorithms`](Self::algorithms).
    #[must_use]
    pub fn with_algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms.into_iter().collect();
        self
    }

    /// Sets [`max_token_bytes`](Self::max_token_bytes).
    #[must_use]
    pub fn with_max_token_bytes(mut self, limit: usize) -> Self {
        self.max_token_bytes = limit;
        self
    }

    /// Sets [`jwks`](Self::jwks).
    #[must_use]
    pub fn with_jwks_options(mut self, options: JwksOptions) -> Self {
        self.jwks = options;
        self
    }

    /// Sets [`verified_tokens`](Self::verified_tokens); zero remembers none.
    #[must_use]
    pub fn with_verified_tokens(mut self, capacity: usize) -> Self {
        self.verified_tokens = capacity;
        self
    }
}
