//! Checking an agent card's signatures (spec §11.5) against trusted keys: keys given to the
//! client, or the JWK Set at a URL (by default the agent's `/.well-known/jwks.json`).
//!
//! ```no_run
//! use a2a_client::{CardFetchOptions, CardVerifier, fetch_agent_card};
//!
//! # async fn run() -> Result<(), a2a_client::ClientError> {
//! let verifier = CardVerifier::jwks_url("https://agent.example.com/.well-known/jwks.json")?;
//! let options = CardFetchOptions::new().verify_signatures(verifier);
//! // Refused with ClientError::CardSignature unless a signature verifies.
//! let card = fetch_agent_card("https://agent.example.com", &options).await?;
//! # Ok(()) }
//! ```
//!
//! A signature is checked over the card JSON as received (not a re-serialised struct), so
//! members this client does not know are covered too.

use std::time::Duration;

use a2a_signature::{CardSignatureError, VerifiedCardSignature, VerifyingKey};
use bytes::Bytes;
use http::header::{ACCEPT, HeaderValue};
use serde_json::Value;
use url::Url;

use crate::error::{ClientError, TimeoutKind};
use crate::transport::{Transport, read_body};

/// The largest JWK Set read.
const MAX_JWKS_BYTES: usize = 1024 * 1024;
/// Time allowed for fetching the JWK Set.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The outcome for each entry of a card's `signatures`, in order.
pub type SignatureChecks = Vec<Result<VerifiedCardSignature, CardSignatureError>>;

/// The keys a card's signatures are checked against.
#[derive(Debug, Clone)]
pub struct CardVerifier {
    keys: Vec<VerifyingKey>,
    jwks_url: Option<Url>,
}

impl CardVerifier {
    /// Trusts these keys.
    #[must_use]
    pub fn with_keys(keys: impl IntoIterator<Item = VerifyingKey>) -> Self {
        Self {
            keys: keys.into_iter().collect(),
            jwks_url: None,
        }
    }

    /// Trusts the keys of a JWK Set (`{"keys": [...]}`) or of a single JWK; keys that cannot
    /// check signatures are skipped.
    ///
    /// # Errors
    /// [`ClientError::Config`] when it is neither, or holds no usable key.
    pub fn from_jwks(jwks: &Value) -> Result<Self, ClientError> {
        let keys = if jwks.get("keys").is_some() {
            VerifyingKey::from_jwk_set(jwks)
                .map_err(|error| ClientError::config(error.to_string()))?
        } else {
            vec![
                VerifyingKey::from_value(jwks)
                    .map_err(|error| ClientError::config(error.to_string()))?,
            ]
        };
        if keys.is_empty() {
            return Err(ClientError::config(
                "the JWK Set has no usable signature key",
            ));
        }
        Ok(Self::with_keys(keys))
    }

    /// Trusts the keys of the JWK Set at `url`, fetched for each check (through the card
    /// fetch's transport, within 10 s, at most 1 MiB).
    ///
    /// # Errors
    /// [`ClientError::Config`] when `url` is not an absolute http(s) URL.
    pub fn jwks_url(url: &str) -> Result<Self, ClientError> {
        let url = crate::http_url::parse_http_url(url)?;
        Ok(Self {
            keys: Vec::new(),
            jwks_url: Some(url),
        })
    }

    /// Checks each signature of `card` (the card's JSON as received).
    ///
    /// # Errors
    /// [`ClientError::CardSignature`] when the card has no signatures; errors fetching the
    /// JWK Set.
    pub async fn check(
        &self,
        card: &Value,
        transport: &dyn Transport,
    ) -> Result<SignatureChecks, ClientError> {
        let Some(card) = card.as_object() else {
            return Err(ClientError::InvalidCard {
                reason: "not a JSON object".to_owned(),
            });
        };
        let mut keys = self.keys.clone();
        if let Some(url) = &self.jwks_url {
            let jwks = tokio::time::timeout(FETCH_TIMEOUT, fetch_jwks(transport, url))
                .await
                .unwrap_or(Err(ClientError::Timeout(TimeoutKind::Request)))?;
            keys.extend(VerifyingKey::from_jwk_set(&jwks).map_err(|error| {
                ClientError::InvalidResponse {
                    reason: format!("JWK Set at {url}: {error}"),
                }
            })?);
        }
        a2a_signature::check_card(card, &keys).map_err(ClientError::CardSignature)
    }

    /// Checks `card` and gives the verdict: at least one signature verifies and none whose
    /// key was found fails.
    ///
    /// # Errors
    /// [`ClientError::CardSignature`] with the reason: no signature, unknown key, a bad
    /// signature (a tampered card); errors fetching the JWK Set.
    pub async fn verify(
        &self,
        card: &Value,
        transport: &dyn Transport,
    ) -> Result<VerifiedCardSignature, ClientError> {
        a2a_signature::verdict(self.check(card, transport).await?)
            .map_err(ClientError::CardSignature)
    }
}

async fn fetch_jwks(transport: &dyn Transport, url: &Url) -> Result<Value, ClientError> {
    let mut request = http::Request::get(url.as_str())
        .body(Bytes::new())
        .map_err(|error| ClientError::config(format!("invalid JWK Set url: {error}")))?;
    request.headers_mut().insert(
        ACCEPT,
        HeaderValue::from_static("application/jwk-set+json, application/json"),
    );
    let response = transport.send(request).await?;
    let status = response.status();
    if !status.is_success() {
        return Err(ClientError::Http {
            status: status.as_u16(),
            body: String::new(),
        });
    }
    let body = read_body(response.into_body(), MAX_JWKS_BYTES).await?;
    serde_json::from_slice(&body).map_err(|error| ClientError::InvalidResponse {
        reason: format!("JWK Set at {url} is not JSON ({error})"),
    })
}
