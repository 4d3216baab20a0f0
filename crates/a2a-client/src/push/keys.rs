//! The agent's public keys: a JWK Set read from a value or fetched, with the keys this
//! verifier can use (ES256, ES384, EdDSA) and their RFC 7638 thumbprints, read by
//! `a2a-signature` (the code card signatures use too).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, HeaderValue};
use serde_json::Value;
use url::Url;

use super::error::PushVerifyError;
use super::wire::JWKS_PATH;
use crate::error::{ClientError, TimeoutKind};
use crate::transport::{Transport, read_body};

/// The largest JWK Set read.
const MAX_JWKS_BYTES: usize = 1024 * 1024;
/// Time allowed for fetching the JWK Set.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub(super) struct JwksSource {
    pub(super) url: Url,
    pub(super) transport: Arc<dyn Transport>,
}

/// One public key of the set.
#[derive(Debug, Clone)]
pub(super) struct VerifyingKey {
    pub(super) kid: String,
    pub(super) algorithm: Algorithm,
    pub(super) key: a2a_signature::VerifyingKey,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Algorithm {
    Es256,
    Es384,
    EdDsa,
}

impl Algorithm {
    pub(super) fn from_name(name: &str) -> Option<Self> {
        match name {
            "ES256" => Some(Self::Es256),
            "ES384" => Some(Self::Es384),
            "EdDSA" => Some(Self::EdDsa),
            _ => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Es256 => "ES256",
            Self::Es384 => "ES384",
            Self::EdDsa => "EdDSA",
        }
    }

    pub(super) fn jws(self) -> a2a_signature::Algorithm {
        match self {
            Self::Es256 => a2a_signature::Algorithm::ES256,
            Self::Es384 => a2a_signature::Algorithm::ES384,
            Self::EdDsa => a2a_signature::Algorithm::EdDSA,
        }
    }
}

impl JwksSource {
    pub(super) async fn fetch(&self) -> Result<Arc<[VerifyingKey]>, PushVerifyError> {
        let mut shown = self.url.clone();
        shown.set_query(None);
        let failed = |source| PushVerifyError::Fetch {
            url: shown.to_string(),
            source: Box::new(source),
        };
        let body = tokio::time::timeout(FETCH_TIMEOUT, self.fetch_body())
            .await
            .unwrap_or(Err(ClientError::Timeout(TimeoutKind::Request)))
            .map_err(failed)?;
        let jwks: Value =
            serde_json::from_slice(&body).map_err(|error| PushVerifyError::InvalidJwks {
                reason: format!("not JSON ({error})"),
            })?;
        parse_jwks(&jwks)
    }

    async fn fetch_body(&self) -> Result<Bytes, ClientError> {
        let mut request = http::Request::get(self.url.as_str())
            .body(Bytes::new())
            .map_err(|error| ClientError::Config {
                reason: format!("invalid JWK Set url: {error}"),
            })?;
        request.headers_mut().insert(
            ACCEPT,
            HeaderValue::from_static("application/jwk-set+json, application/json"),
        );
        let response = self.transport.send(request).await?;
        let status = response.status();
        if !status.is_success() {
            return Err(ClientError::Http {
                status: status.as_u16(),
                body: String::new(),
            });
        }
        read_body(response.into_body(), MAX_JWKS_BYTES).await
    }
}

/// The usable keys of a JWK Set.
pub(super) fn parse_jwks(jwks: &Value) -> Result<Arc<[VerifyingKey]>, PushVerifyError> {
    let keys =
        jwks.get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| PushVerifyError::InvalidJwks {
                reason: "no \"keys\" array".into(),
            })?;
    let usable: Vec<VerifyingKey> = keys.iter().filter_map(parse_jwk).collect();
    if usable.is_empty() {
        return Err(PushVerifyError::NoUsableKeys);
    }
    Ok(usable.into())
}

/// One JWK, when it is a signature key of an accepted algorithm.
fn parse_jwk(jwk: &Value) -> Option<VerifyingKey> {
    let key = a2a_signature::VerifyingKey::from_value(jwk).ok()?;
    let algorithm = [Algorithm::Es256, Algorithm::Es384, Algorithm::EdDsa]
        .into_iter()
        .find(|algorithm| key.accepts(algorithm.jws()))?;
    Some(VerifyingKey {
        kid: key.kid().to_owned(),
        algorithm,
        key,
    })
}

/// The JWK Set URL for `origin_or_jwks_url`: the URL itself when its path ends in `.json`,
/// else [`JWKS_PATH`] under its path (`https://agent.example.com` →
/// `https://agent.example.com/.well-known/jwks.json`, `http://host/agents/echo` →
/// `http://host/agents/echo/.well-known/jwks.json`).
///
/// # Errors
/// [`PushVerifyError::Fetch`] with [`ClientError::Config`] when it is not an http(s) URL.
pub fn jwks_url(origin_or_jwks_url: &str) -> Result<Url, PushVerifyError> {
    let invalid = || PushVerifyError::Fetch {
        url: origin_or_jwks_url.to_owned(),
        source: Box::new(ClientError::Config {
            reason: "not an absolute http(s) url".into(),
        }),
    };
    let mut url = Url::parse(origin_or_jwks_url.trim()).map_err(|_| invalid())?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(invalid());
    }
    url.set_fragment(None);
    if !url.path().ends_with(".json") {
        let path = format!("{}{JWKS_PATH}", url.path().trim_end_matches('/'));
        url.set_path(&path);
        url.set_query(None);
    }
    Ok(url)
}

/// The agent's own JWK Set, beside its card: `agent_or_card_url` is the agent's base URL or
/// the URL of its card (`…/.well-known/agent-card.json`, or any file ending in `.json`), and
/// the answer is [`JWKS_PATH`] under the agent's base URL, or in the card file's directory.
///
/// # Errors
/// As [`jwks_url`].
pub fn agent_jwks_url(agent_or_card_url: &str) -> Result<Url, PushVerifyError> {
    let base = agent_or_card_url.trim_end_matches('/');
    let base = base
        .strip_suffix(a2a_types::card::WELL_KNOWN_CARD_PATH)
        .unwrap_or(base);
    let base = if base.ends_with(".json") {
        base.rsplit_once('/')
            .map_or(base, |(directory, _)| directory)
    } else {
        base
    };
    jwks_url(base)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::PushVerifier;
    use super::*;

    #[test]
    fn the_agent_jwk_set_is_beside_its_card() {
        for (given, expected) in [
            (
                "https://agent.example.com",
                "https://agent.example.com/.well-known/jwks.json",
            ),
            (
                "https://agent.example.com/.well-known/agent-card.json",
                "https://agent.example.com/.well-known/jwks.json",
            ),
            (
                "http://host/agents/echo/card.json",
                "http://host/agents/echo/.well-known/jwks.json",
            ),
            (
                "http://host/a2a/echo/",
                "http://host/a2a/echo/.well-known/jwks.json",
            ),
        ] {
            assert_eq!(agent_jwks_url(given).unwrap().as_str(), expected, "{given}");
        }
        assert!(agent_jwks_url("not a url").is_err());
    }

    #[test]
    fn a_key_without_kid_is_named_by_its_thumbprint() {
        // RFC 8037 Appendix A.3.
        let jwks = json!({"keys": [{
            "kty": "OKP", "crv": "Ed25519",
            "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
        }]});
        let verifier = PushVerifier::from_jwks(&jwks).unwrap();
        assert_eq!(
            verifier.key_ids(),
            ["kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"]
        );
    }

    #[test]
    fn unusable_keys_are_skipped() {
        let ec = json!({
            "kty": "EC", "crv": "P-256", "kid": "ok",
            "x": "0qnx6ykVf1n1eABwciRscVccHLcGHIB9DBlCoaW0Ids",
            "y": "krCI6IHkjFuWlHt2Q0T2DzpKm4KGvaaHrNUmGCXMgvQ",
        });
        let mut encryption = ec.clone();
        encryption["use"] = json!("enc");
        encryption["kid"] = json!("enc");
        let mut wrong_alg = ec.clone();
        wrong_alg["alg"] = json!("ES384");
        wrong_alg["kid"] = json!("wrong-alg");
        let rsa = json!({"kty": "RSA", "kid": "rsa", "n": "AQAB", "e": "AQAB"});
        let jwks = json!({"keys": [rsa, encryption, wrong_alg, ec]});
        assert_eq!(PushVerifier::from_jwks(&jwks).unwrap().key_ids(), ["ok"]);
        assert!(matches!(
            PushVerifier::from_jwks(&json!({"keys": [{"kty": "oct", "k": "c2VjcmV0"}]})),
            Err(PushVerifyError::NoUsableKeys)
        ));
        assert!(matches!(
            PushVerifier::from_jwks(&json!([])),
            Err(PushVerifyError::InvalidJwks { .. })
        ));
    }

    #[test]
    fn jwks_urls_default_to_the_well_known_path() {
        let cases = [
            (
                "https://agent.example.com",
                "https://agent.example.com/.well-known/jwks.json",
            ),
            (
                "http://h:8080/agents/echo/",
                "http://h:8080/agents/echo/.well-known/jwks.json",
            ),
            ("http://h/keys.json?v=2", "http://h/keys.json?v=2"),
        ];
        for (given, expected) in cases {
            assert_eq!(jwks_url(given).unwrap().as_str(), expected, "{given}");
        }
        assert!(jwks_url("ftp://h/").is_err());
        assert!(jwks_url("/relative").is_err());
    }
}
