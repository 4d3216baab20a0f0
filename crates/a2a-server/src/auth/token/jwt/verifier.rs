//! Making a [`JwtVerifier`] from its configuration, and checking a token with it: size,
//! header, signature against the cached keys, then times, issuer and audience; or, for a
//! token verified before with the current keys and not expired, what that found.

use std::sync::Arc;

use url::Url;

use super::super::http::Redirects;
use super::super::jwks::{JwksCache, KeyMiss, KeySet, Refresh, Snapshot};
use super::super::oidc::DiscoveryTarget;
use super::super::{TokenConfigError, TokenError, TokenVerifier, VerifiedToken};
use super::claims::{expiry, now};
use super::verified::{VerifiedCache, VerifiedWith};
use super::{
    ASYMMETRIC, Inner, JwksSource, JwtConfig, JwtVerifier, Token, check_audience, check_issuer,
    check_times,
};

impl JwtVerifier {
    /// A verifier for `config`. Nothing is fetched yet: keys are read on first use.
    ///
    /// # Errors
    /// [`TokenConfigError`] when the issuer or audience is missing without being waived, an
    /// algorithm is symmetric or none is allowed, a URL is not http(s), or a limit is zero.
    pub fn new(config: JwtConfig) -> Result<Self, TokenConfigError> {
        let discovers = matches!(
            config.source,
            JwksSource::OidcIssuer(_) | JwksSource::OidcDiscovery(_)
        );
        if config.issuer.is_none() && !config.accept_any_issuer && !discovers {
            return Err(TokenConfigError::MissingIssuer);
        }
        if config.audiences.is_empty() && !config.accept_any_audience {
            return Err(TokenConfigError::MissingAudience);
        }
        if config.algorithms.is_empty() {
            return Err(TokenConfigError::NoAlgorithm);
        }
        if let Some(symmetric) = config
            .algorithms
            .iter()
            .find(|alg| !ASYMMETRIC.contains(alg))
        {
            return Err(TokenConfigError::SymmetricAlgorithm(*symmetric));
        }
        if config.max_token_bytes == 0 {
            return Err(TokenConfigError::Zero("the maximum token size"));
        }
        if config.jwks.max_response_bytes == 0 {
            return Err(TokenConfigError::Zero("the maximum JWKS size"));
        }
        let options = config.jwks.clone();
        let remote =
            || super::super::http::http_client(options.fetch_timeout, Redirects::SameOrigin);
        let configured = config.issuer.as_deref();
        let keys = match config.source {
            JwksSource::Keys(set) => JwksCache::fixed(KeySet::from_jwk_set(&set), options),
            JwksSource::Url(url) => {
                if !matches!(url.scheme(), "http" | "https") {
                    return Err(TokenConfigError::InvalidUrl {
                        what: "the JWKS url",
                    });
                }
                JwksCache::remote(url, remote()?, options)
            }
            JwksSource::OidcIssuer(issuer) => {
                let target = DiscoveryTarget::for_issuer(&issuer, configured)?;
                JwksCache::discovered(target, remote()?, options)
            }
            JwksSource::OidcDiscovery(url) => {
                let target = DiscoveryTarget::for_document(url, configured)?;
                JwksCache::discovered(target, remote()?, options)
            }
        };
        Ok(Self {
            inner: Arc::new(Inner {
                issuer: config.issuer,
                accept_any_issuer: config.accept_any_issuer,
                audiences: if config.accept_any_audience {
                    Vec::new()
                } else {
                    config.audiences
                },
                leeway: config.leeway,
                algorithms: config.algorithms,
                max_token_bytes: config.max_token_bytes,
                keys,
                verified: VerifiedCache::new(config.verified_tokens),
            }),
        })
    }

    /// A verifier for a card's OpenID Connect scheme: keys and issuer come from the
    /// discovery document at `open_id_connect_url`, and tokens must name one of `audiences`.
    ///
    /// # Errors
    /// [`TokenConfigError::InvalidUrl`] when the URL is not an absolute http(s) URL, and
    /// [`TokenConfigError::MissingAudience`] when `audiences` is empty.
    pub fn from_openid_connect_url<I>(
        open_id_connect_url: &str,
        audiences: I,
    ) -> Result<Self, TokenConfigError>
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let url = Url::parse(open_id_connect_url).map_err(|_| TokenConfigError::InvalidUrl {
            what: "the OpenID Connect discovery url",
        })?;
        let mut config = JwtConfig::new(JwksSource::OidcDiscovery(url));
        config.audiences = audiences.into_iter().map(Into::into).collect();
        Self::new(config)
    }

    /// Checks the token's signature with the key its header names, fetching the keys again
    /// when it is unknown; returns the keys (and discovered issuer) that verified it.
    async fn check_signature(&self, token: &Token<'_>) -> Result<VerifiedWith, TokenError> {
        let keys = &self.inner.keys;
        let first = keys.snapshot(Refresh::IfStale).await?;
        let snapshot = match first.keys.select(token.kid.as_deref(), token.alg) {
            Err(KeyMiss::Unknown) => {
                keys.snapshot(Refresh::UnknownKey {
                    seen: first.generation,
                })
                .await?
            }
            Ok(_) | Err(KeyMiss::WrongType) => first,
        };
        let candidates = snapshot
            .keys
            .select(token.kid.as_deref(), token.alg)
            .map_err(|miss| match miss {
                KeyMiss::Unknown => TokenError::UnknownKey,
                KeyMiss::WrongType => TokenError::Algorithm(format!(
                    "the key the token names is not a {:?} key",
                    token.alg
                )),
            })?;
        let verified = candidates.iter().any(|candidate| {
            jsonwebtoken::crypto::verify(
                token.signature,
                token.signing_input.as_bytes(),
                &candidate.key,
                token.alg,
            )
            .unwrap_or(false)
        });
        if verified {
            Ok(verified_with(snapshot))
        } else {
            Err(TokenError::Signature)
        }
    }

    /// Verifies `token` in full; returns what it says, the keys that verified it and its
    /// `exp`.
    async fn verify_uncached(
        &self,
        token: &str,
    ) -> Result<(VerifiedToken, VerifiedWith, f64), TokenError> {
        let inner = &self.inner;
        let token = Token::parse(token, inner.max_token_bytes)?;
        if !inner.algorithms.contains(&token.alg) {
            return Err(TokenError::Algorithm(format!(
                "{:?} is not allowed",
                token.alg
            )));
        }
        let with = self.check_signature(&token).await?;
        check_times(&token.claims, inner.leeway, true)?;
        match inner.issuer.as_deref().or(with.issuer.as_deref()) {
            Some(expected) => check_issuer(&token.claims, expected)?,
            None if inner.accept_any_issuer => {}
            None => return Err(TokenError::Issuer),
        }
        check_audience(&token.claims, &inner.audiences)?;
        // `check_times` required `exp`.
        let expires = expiry(&token.claims).ok_or_else(|| TokenError::Claim("exp".into()))?;
        Ok((
            VerifiedToken::from_claims(token.claims, false),
            with,
            expires,
        ))
    }
}

fn verified_with(snapshot: Snapshot) -> VerifiedWith {
    VerifiedWith {
        keys: snapshot.keys,
        issuer: snapshot.issuer,
    }
}

#[async_trait::async_trait]
impl TokenVerifier for JwtVerifier {
    async fn verify(&self, token: &str) -> Result<VerifiedToken, TokenError> {
        let inner = &self.inner;
        // A token too long to verify is refused before it is hashed.
        let Some(cache) = inner
            .verified
            .as_ref()
            .filter(|_| token.len() <= inner.max_token_bytes)
        else {
            return self
                .verify_uncached(token)
                .await
                .map(|(verified, ..)| verified);
        };
        let key = VerifiedCache::key(token);
        let current = verified_with(inner.keys.snapshot(Refresh::IfStale).await?);
        if let Some(verified) = cache.get(&key, &current, now()) {
            return Ok(verified);
        }
        let (verified, with, expires) = self.verify_uncached(token).await?;
        cache.insert(key, verified.clone(), expires, with, now());
        Ok(verified)
    }
}
